// Rego unit tests as `opa test` runs them: every rule named `test_…` of the compiled modules, each of its
// definitions a test of its own (a second `test_x` is `test_x#01`, as OPA renames duplicates), passing when
// it is true; `todo_test_…` rules are skipped. Built-in errors make a call undefined, as `opa test` does by
// default. Each test runs on a cost budget of its own, so a runaway test ends with an error.
import { caseBudget, type TestLimits } from '../runtime/test-limits.js';
import type { RegoSource } from './compile-sources.js';
import { RegoError } from './errors.js';
import { evalDefinition, prepare } from './rego.js';
import type { CompiledPolicy } from './compile/compile-policy.js';
import type { RuleGroup } from './compile/ir.js';
import { regoText } from './builtins/format.js';

export interface RegoTestResult {
  /** `data.<package>.test_name`, `#01`… for further definitions. */
  name: string;
  file: string;
  row: number;
  status: 'passed' | 'failed' | 'skipped';
  detail?: string;
}

export type RegoTestRun = { ok: true; results: RegoTestResult[] } | { ok: false; error: string };

/** One definition of a test rule, run on its own. */
function runTest(policy: CompiledPolicy, group: RuleGroup, index: number, limits: TestLimits): Pick<RegoTestResult, 'status' | 'detail'> {
  if (group.kind === 'function') return { status: 'failed', detail: 'a test must not take arguments' };
  try {
    const values = evalDefinition(policy, group, index, { now: limits.now, budget: caseBudget(limits), strictBuiltinErrors: false });
    if (values.length === 1 && values[0] === true) return { status: 'passed' };
    return { status: 'failed', detail: values.length === 0 ? 'undefined' : `value ${values.map(regoText).join(', ')}, not true` };
  } catch (error) {
    if (error instanceof Error) return { status: 'failed', detail: `error: ${error.message}` };
    throw error;
  }
}

export function runUnitTests(sources: readonly RegoSource[], limits: TestLimits): RegoTestRun {
  let policy: CompiledPolicy;
  try {
    policy = prepare(sources);
  } catch (error) {
    if (error instanceof RegoError) return { ok: false, error: error.message };
    throw error;
  }
  const results: RegoTestResult[] = [];
  for (const group of policy.groups.values()) {
    const last = group.path.at(-1)!;
    const skip = last.startsWith('todo_test_');
    if (!last.startsWith('test_') && !skip) continue;
    for (const [index, rule] of group.rules.entries()) {
      const name = `data.${group.path.join('.')}${index === 0 ? '' : `#${String(index).padStart(2, '0')}`}`;
      const outcome = skip ? ({ status: 'skipped', detail: 'a todo_test_ rule' } as const) : runTest(policy, group, index, limits);
      results.push({ name, file: rule.file, row: rule.loc.row, ...outcome });
    }
  }
  return { ok: true, results: results.sort((a, b) => (a.file === b.file ? a.row - b.row : a.file < b.file ? -1 : 1)) };
}
