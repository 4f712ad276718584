// Kyverno's chainsaw tests (`.chainsaw-test/chainsaw-test.yaml`) read as mutation cases: each object an
// `apply` (or `create`) step sends, paired by kind and name with the document an `assert` step expects of
// it (every field asserted must be in the mutated object) or an `error` step expects it not to match. Steps
// a test drives the cluster with (scripts, patches, deletes) are data, never run. Chainsaw asserts the
// object the API server stored, which it had defaulted: fields a case asserts only because of that are
// what the comparison below cannot supply.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

type Json = Record<string, any>;

export interface ChainsawCase {
  suite: string;
  /** The policy's folder. */
  folder: string;
  /** The object as applied. */
  object: Json;
  /** What chainsaw asserts of the stored object. */
  asserted: Json;
  /** `error` steps: the stored object must not match. */
  negated: boolean;
  /** Why the case cannot be compared here (an assertion written as an expression), or undefined. */
  unsupported?: string;
}

const documentsOf = (path: string): Json[] =>
  existsSync(path)
    ? parseAllDocuments(readFileSync(path, 'utf8'))
        .map((document) => document.toJS())
        .filter((document) => document && typeof document === 'object')
    : [];

const sameObject = (a: Json, b: Json) =>
  a.kind === b.kind && a.metadata?.name === b.metadata?.name && (a.metadata?.namespace ?? '') === (b.metadata?.namespace ?? '');

/** Whether an assertion key is a chainsaw expression (`(expr)`, `~iteration`), not a field. */
function expressionIn(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(expressionIn);
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(([key, item]) => key.startsWith('(') || key.startsWith('~') || expressionIn(item));
}

/** Whether `actual` holds everything `expected` asserts: maps by subset, lists element by element. */
export function holds(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(expected))
    return Array.isArray(actual) && actual.length === expected.length && expected.every((item, index) => holds(actual[index], item));
  if (typeof expected === 'object' && expected !== null)
    return (
      typeof actual === 'object' &&
      actual !== null &&
      !Array.isArray(actual) &&
      Object.entries(expected).every(([key, item]) => holds((actual as Json)[key], item))
    );
  if (expected === null) return actual === null || actual === undefined;
  return actual !== undefined && String(actual) === String(expected);
}

/** The mutation cases of every chainsaw test under `root` whose policy file holds `mutate:` or is a MutatingPolicy. */
export function chainsawCases(root: string, policyFiles: (folder: string) => string[]): ChainsawCase[] {
  const cases: ChainsawCase[] = [];
  for (const folder of policyFiles(root)) {
    const testFile = join(folder, '.chainsaw-test', 'chainsaw-test.yaml');
    if (!existsSync(testFile)) continue;
    const test = parse(readFileSync(testFile, 'utf8')) as { spec?: { steps?: { try?: Json[] }[] } };
    const applied: Json[] = [];
    for (const step of test.spec?.steps ?? []) {
      for (const operation of step.try ?? []) {
        const sent = operation.apply ?? operation.create;
        if (sent?.file && !sent.expect) applied.push(...documentsOf(join(dirname(testFile), sent.file)));
        const check = operation.assert ?? operation.error;
        if (!check?.file || /policy-ready|step-01-assert/.test(check.file)) continue;
        for (const asserted of documentsOf(join(dirname(testFile), check.file))) {
          const object = applied.find((candidate) => sameObject(candidate, asserted));
          if (!object) continue;
          cases.push({
            suite: `${relative(root, folder)} ${check.file}`,
            folder,
            object,
            asserted,
            negated: operation.error !== undefined,
            ...(expressionIn(asserted) ? { unsupported: 'an assertion written as a chainsaw expression' } : {}),
          });
        }
      }
    }
  }
  return cases;
}
