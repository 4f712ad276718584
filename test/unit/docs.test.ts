// The README and docs/ as a reader follows them: every link leads to a file and heading that exist, every
// docs page is reachable from the README, and every `portcullis` command the docs name is one the CLI has.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../../infra/cli/program.js';
import { regoCasesSection } from '../helpers/rego-cases-not-passing.js';

const PAGES = ['README.md', ...readdirSync('docs').map((name) => join('docs', name))];
const text = (page: string) => readFileSync(page, 'utf8');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');

const anchorsIn = (page: string) => new Set([...text(page).matchAll(/^#+ (.+)$/gm)].map((match) => anchorOf(match[1]!)));

/** Relative links (`[text](target)`), outside code blocks. */
function linksIn(page: string): string[] {
  const prose = text(page).replace(/```[\s\S]*?```/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!).filter((target) => !/^[a-z]+:/.test(target));
}

/** Text in code spans and blocks, where commands are written. */
function codeIn(page: string): string[] {
  const source = text(page);
  return [...source.matchAll(/```[\s\S]*?```|`[^`\n]+`/g)].map((match) => match[0].replace(/\\\|/g, '|'));
}

describe('docs', () => {
  it.each(PAGES)('every link in %s leads to a file and heading that exist', (page) => {
    for (const link of linksIn(page)) {
      const [path = '', anchor] = link.split('#');
      const target = path === '' ? page : normalize(join(dirname(page), path));
      expect(existsSync(target), `${page}: ${link}`).toBe(true);
      if (anchor) expect(anchorsIn(target).has(anchor), `${page}: ${link} (no such heading)`).toBe(true);
    }
  });

  it('every docs page is linked from the README', () => {
    const linked = new Set(linksIn('README.md').map((link) => normalize(link.split('#')[0]!)));
    for (const page of PAGES.filter((page) => page !== 'README.md')) expect(linked.has(page), page).toBe(true);
  });

  it('every portcullis command the docs name exists', () => {
    const program = createProgram();
    const named = new Set<string>();
    for (const code of PAGES.flatMap(codeIn)) {
      for (const [, command, next] of code.matchAll(/\bportcullis ([a-z][a-z-]*)(?: ([a-z][a-z|-]*))?/g)) {
        const found = program.commands.find((candidate) => candidate.name() === command);
        expect(found, `portcullis ${command}`).toBeDefined();
        named.add(command!);
        // A command with subcommands is followed by one of them (or several, as `validate|push`).
        if (found!.commands.length === 0 || next === undefined) continue;
        for (const sub of next.split('|')) {
          expect(
            found!.commands.some((candidate) => candidate.name() === sub),
            `portcullis ${command} ${sub}`,
          ).toBe(true);
        }
      }
    }
    // The docs name every command the CLI has.
    expect([...named].sort()).toEqual(program.commands.map((command) => command.name()).sort());
  });

  it('docs/rego.md lists the Rego cases that do not pass as test/fixtures/rego-cases-not-passing.yaml has them', () => {
    // Written by `npx tsx test/helpers/update-rego-cases-doc.ts`.
    expect(text('docs/rego.md')).toBe(regoCasesSection(text('docs/rego.md')));
  });
});
