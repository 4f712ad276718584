// The CEL specification's conformance tests (cel-spec's simple tests, as @bufbuild/cel-spec ships them) run
// on a CEL evaluator, for bench/cel-engines.ts. A test runs here when it needs no protocol buffer messages
// (Kubernetes objects reach CEL as JSON): no container, no message built or named in the expression, no
// message or enum value in its bindings or its expected result, no type as a result, not check-only.
// Every variable is dyn (the cel policy declares its variables so). A test passes when the value is the
// one expected, or when an error is expected and the evaluation fails.
import { getConformanceSuite, type IncrementalTestSuite } from '@bufbuild/cel-spec/testdata/tests.js';

/** A CEL value as plain data, comparable across evaluators: [type, value]. */
export type Plain = [string, unknown];

export interface ConformanceRunner {
  /** The value of `expression` with `bindings` (conformance values, already plain JS), or a thrown error. */
  evaluate(expression: string, bindings: Record<string, unknown>): unknown;
  /** The evaluator's value as plain data, or undefined for one this comparison does not read. */
  plain(value: unknown): Plain | undefined;
  /** An evaluator's input value for a conformance value. */
  input(value: ConformanceValue): unknown;
}

/** A cel.expr.Value as @bufbuild/protobuf decodes it. */
export interface ConformanceValue {
  kind: { case: string | undefined; value?: unknown };
}

interface Test {
  suite: string;
  expression: string;
  bindings: Record<string, ConformanceValue>;
  /** The value expected, or 'error'. */
  expected: ConformanceValue | 'error';
}

const UNREADABLE = new Set(['objectValue', 'enumValue', 'typeValue']);

function readable(value: ConformanceValue): boolean {
  const { case: kind, value: inner } = value.kind;
  if (kind === undefined || UNREADABLE.has(kind)) return false;
  if (kind === 'listValue') return (inner as { values: ConformanceValue[] }).values.every(readable);
  if (kind === 'mapValue')
    return (inner as { entries: { key: ConformanceValue; value: ConformanceValue }[] }).entries.every(
      (entry) => readable(entry.key) && readable(entry.value),
    );
  return true;
}

const TRUE: ConformanceValue = { kind: { case: 'boolValue', value: true } };

// A message built (`TestAllTypes{…}`, `google.protobuf.Int32Value{…}`) or a protocol buffer type named.
const NEEDS_MESSAGES = /[A-Za-z_][\w.]*\s*\{|google\.protobuf\.|TestAllTypes|NestedTestAllTypes/;

/** The tests that need no protocol buffer messages, and how many the suite has in all. */
export function runnableConformanceTests(): { tests: Test[]; total: number } {
  const tests: Test[] = [];
  let total = 0;
  const walk = (suite: IncrementalTestSuite, top: string) => {
    for (const { original } of suite.tests) {
      total++;
      if (original.container || original.checkOnly || original.disableMacros || NEEDS_MESSAGES.test(original.expr)) continue;
      const bindings: Record<string, ConformanceValue> = {};
      let usable = true;
      for (const [name, bound] of Object.entries(original.bindings)) {
        if (bound.kind.case !== 'value' || !readable(bound.kind.value)) usable = false;
        else bindings[name] = bound.kind.value;
      }
      const matcher = original.resultMatcher;
      let expected: ConformanceValue | 'error' | undefined;
      if (matcher.case === undefined) expected = TRUE;
      else if (matcher.case === 'value') expected = matcher.value;
      else if (matcher.case === 'typedResult') expected = matcher.value.result;
      else if (matcher.case === 'evalError') expected = 'error';
      if (!usable || expected === undefined || (expected !== 'error' && !readable(expected))) continue;
      tests.push({ suite: top, expression: original.expr, bindings, expected });
    }
    for (const child of suite.suites) walk(child, top || child.name);
  };
  walk(getConformanceSuite(), '');
  return { tests, total };
}

/** A conformance value as plain data (bytes in base64, map entries sorted). */
export function plainOf(value: ConformanceValue): Plain {
  const { case: kind, value: inner } = value.kind;
  switch (kind) {
    case 'int64Value':
      return ['int', String(inner)];
    case 'uint64Value':
      return ['uint', String(inner)];
    case 'doubleValue':
      return plainDouble(inner as number);
    case 'bytesValue':
      return ['bytes', Buffer.from(inner as Uint8Array).toString('base64')];
    case 'nullValue':
      return ['null', null];
    case 'listValue':
      return ['list', (inner as { values: ConformanceValue[] }).values.map(plainOf)];
    case 'mapValue':
      return sortedMap(
        (inner as { entries: { key: ConformanceValue; value: ConformanceValue }[] }).entries.map(({ key, value: item }) => [
          plainOf(key),
          plainOf(item),
        ]),
      );
    default:
      // stringValue, boolValue
      return [kind!.replace(/Value$/, ''), inner];
  }
}

/** A double as plain data: JSON has no NaN or infinities, so those are named. */
export const plainDouble = (value: number): Plain => ['double', Number.isFinite(value) ? value : String(value)];

export function sortedMap(entries: [Plain, Plain][]): Plain {
  return ['map', entries.sort(([a], [b]) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1))];
}

/** Passed per top-level suite, and in all. */
export function runConformance(runner: ConformanceRunner, tests: Test[]): { passed: number; bySuite: Map<string, [number, number]> } {
  let passed = 0;
  const bySuite = new Map<string, [number, number]>();
  for (const test of tests) {
    let ok = false;
    try {
      const bindings = Object.fromEntries(Object.entries(test.bindings).map(([name, value]) => [name, runner.input(value)]));
      const value = runner.evaluate(test.expression, bindings);
      ok = test.expected !== 'error' && JSON.stringify(runner.plain(value)) === JSON.stringify(plainOf(test.expected));
    } catch {
      ok = test.expected === 'error';
    }
    if (ok) passed++;
    const counts = bySuite.get(test.suite) ?? [0, 0];
    bySuite.set(test.suite, [counts[0] + (ok ? 1 : 0), counts[1] + 1]);
  }
  return { passed, bySuite };
}
