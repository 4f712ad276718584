// Reading ../shared/corpora: the Gatekeeper and Kyverno authors' own test cases, used as data.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { assertionMismatch, type GatorAssertion } from '../../infra/policy-tests/gator-suite.js';

// Beside the project's root, wherever the tests run from; PORTCULLIS_CORPORA names another place.
const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CORPORA = process.env.PORTCULLIS_CORPORA || join(PROJECT_ROOT, '..', 'shared', 'corpora');
if (!existsSync(join(CORPORA, 'README.md'))) {
  throw new Error(
    `the upstream test corpora are not at ${CORPORA}: put shared/corpora beside the project, or set PORTCULLIS_CORPORA to their folder`,
  );
}

export function corpusYaml<T = any>(...path: string[]): T {
  return parse(readFileSync(join(CORPORA, ...path), 'utf8')) as T;
}

/** Every document of a multi-document YAML file, empty ones dropped. */
export function corpusDocuments(...path: string[]): any[] {
  return parseAllDocuments(readFileSync(join(CORPORA, ...path), 'utf8'))
    .map((document) => document.toJS())
    .filter((document) => document && typeof document === 'object');
}

/** The Gatekeeper library's mutators (gatekeeper-rego/mutation/…/mutation*.yaml), each file's text, in path order. */
export function gatekeeperLibraryMutators(): string[] {
  const root = join(CORPORA, 'gatekeeper-rego', 'mutation');
  return (readdirSync(root, { recursive: true }) as string[])
    .filter((path) => /(^|\/)mutation[^/]*\.yaml$/.test(path))
    .sort()
    .map((path) => readFileSync(join(root, path), 'utf8'));
}

export type GatekeeperAssertion = GatorAssertion;

export interface GatekeeperCase {
  name: string;
  object: string;
  assertions: GatekeeperAssertion[];
}

/** The cases of a gator `Suite`, with object paths made relative to the corpus root, each with its test's name. */
export function gatekeeperCases(library: string): { test: string; name: string; object: any; assertions: GatekeeperAssertion[] }[] {
  const suite = corpusYaml<{ tests: { name: string; cases: GatekeeperCase[] }[] }>('gatekeeper-library', library, 'suite.yaml');
  return suite.tests.flatMap((test) =>
    test.cases.map((entry) => ({
      test: test.name,
      name: entry.name,
      object: corpusYaml('gatekeeper-library', library, entry.object),
      assertions: entry.assertions,
    })),
  );
}

/** Does a list of violation messages satisfy a gator assertion? As `policy test` judges it (gator-suite.ts). */
export const satisfiesAssertion = (violations: string[], assertion: GatekeeperAssertion): boolean =>
  assertionMismatch(violations, assertion) === undefined;
