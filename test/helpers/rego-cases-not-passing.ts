// The Rego cases of the upstream suites that do not pass here, each with why, as one data file
// (test/fixtures/rego-cases-not-passing.yaml) that the tests hold the engine to and docs/rego.md shows.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export interface NotPassing {
  /** `<file under the corpus> :: <note>`. */
  case: string;
  why: string;
}

export type Suite = 'opa-compliance' | 'regorus';

export const NOT_PASSING_FILE = 'test/fixtures/rego-cases-not-passing.yaml';

export function notPassing(suite: Suite): NotPassing[] {
  const document = parse(readFileSync(NOT_PASSING_FILE, 'utf8')) as Record<Suite, NotPassing[] | null>;
  return document[suite] ?? [];
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The Markdown table docs/rego.md shows for a suite's cases that do not pass. */
export function notPassingTable(entries: readonly NotPassing[]): string {
  const rows = entries.map(({ case: name, why }) => `| \`${cell(name)}\` | ${cell(why)} |`);
  return ['| case | why |', '| --- | --- |', ...rows].join('\n');
}

const START = '<!-- cases not passing: written from test/fixtures/rego-cases-not-passing.yaml -->';
const END = '<!-- end of cases not passing -->';

/** docs/rego.md with its tables of cases that do not pass as the list has them. */
export function regoCasesSection(doc: string): string {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start === -1 || end === -1) throw new Error(`docs/rego.md has no ${START} … ${END} section`);
  const tables = [
    "### OPA's compliance cases",
    notPassingTable(notPassing('opa-compliance')),
    "### regorus's language cases",
    notPassingTable(notPassing('regorus')),
  ].join('\n\n');
  return `${doc.slice(0, start + START.length)}\n\n${tables}\n\n${doc.slice(end)}`;
}
