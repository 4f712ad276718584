// OPA's compliance case files as one more `policy test` format: `{"cases": [...]}` in JSON or YAML, each case
// with OPA's fields (note, modules, query, data, input or input_term, want_result, want_error,
// want_error_code, strict_error, sort_bindings), one result per case named by its note. Each case runs on a
// cost budget and a time limit of its own (`--timeout`), as `opa test` bounds each test.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { type OpaCase, runOpaCases } from '../../functions/engines/rego/index.js';
import type { TestLimits } from '../../functions/engines/runtime/test-limits.js';
import { type CaseOutcome, failed, passed } from './case-outcome.js';

/** Whether a parsed document is a case file: `cases`, each with a `note` and a `query`. */
export function isOpaCaseFile(document: unknown): boolean {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return false;
  const cases = (document as { cases?: unknown }).cases;
  return (
    Array.isArray(cases) &&
    cases.length > 0 &&
    cases.every((entry) => typeof entry === 'object' && entry !== null && typeof entry.note === 'string' && typeof entry.query === 'string')
  );
}

/** A case file's document: JSON as OPA's Go reader reads it, YAML as OPA's test files are written. */
export function readCaseFile(file: string): unknown {
  const text = readFileSync(file, 'utf8');
  return file.endsWith('.json') ? JSON.parse(text) : parse(text);
}

export async function runOpaCaseFile(file: string, limits: TestLimits): Promise<CaseOutcome[]> {
  const { cases } = readCaseFile(file) as { cases: OpaCase[] };
  const outcomes = await runOpaCases(cases, limits);
  return outcomes.map((outcome, index) =>
    outcome.status === 'passed' ? passed(file, cases[index]!.note) : failed(file, cases[index]!.note, outcome.detail ?? ''),
  );
}
