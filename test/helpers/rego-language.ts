// regorus's Rego language cases (../shared/corpora/rego-language), run as regorus's own harness runs them:
// each case's modules compiled, its query evaluated once per input (strict built-in errors unless the case
// says `strict: false`), and the last result compared with `want_result` (its bindings when it binds vars,
// else its expression's value; every result for a `many!` want), `no_result` meaning none and `error` any
// error. The notations `set!`, `object!` and `many!` are corpora/README.md's.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseDocument } from 'yaml';
import { BUILTINS } from '../../functions/engines/rego/builtins/registry.js';
import { regoText } from '../../functions/engines/rego/builtins/format.js';
import { compilePolicy } from '../../functions/engines/rego/compile/compile-policy.js';
import type { QueryResult } from '../../functions/engines/rego/eval/query.js';
import { evalQuery } from '../../functions/engines/rego/rego.js';
import { CostBudget } from '../../functions/engines/runtime/cost-budget.js';
import { parseModule } from '../../functions/engines/rego/syntax/parser.js';
import { equal, fromJson, makeObject, RegoSet, type Value } from '../../functions/engines/rego/values.js';
import { CORPORA } from './corpora.js';

const ROOT = join(CORPORA, 'rego-language');

interface LanguageCase {
  note: string;
  modules?: string[];
  data?: unknown;
  input?: unknown;
  query: string;
  want_result?: unknown;
  no_result?: boolean;
  error?: string;
  strict?: boolean;
  skip?: boolean;
}

export interface RunnableCase {
  /** `<file under rego-language> :: <note>`. */
  name: string;
  skip: boolean;
  /** Undefined when the case passes; else what differs. */
  run(): string | undefined;
}

function yamlFiles(folder: string): string[] {
  return readdirSync(folder)
    .sort()
    .flatMap((entry) => {
      const path = join(folder, entry);
      return statSync(path).isDirectory() ? yamlFiles(path) : entry.endsWith('.yaml') ? [path] : [];
    });
}

/** An expected value, read with YAML's own key types (`1: x` has a number key), in the corpus's notation. */
function expected(value: unknown): Value {
  if (Array.isArray(value)) return value.map(expected);
  if (value instanceof Map) {
    if (value.size === 1 && value.has('set!')) return new RegoSet(((value.get('set!') as unknown[]) ?? []).map(expected));
    if (value.size === 1 && value.has('object!'))
      return makeObject(
        ((value.get('object!') as Map<string, unknown>[]) ?? []).map(
          (entry) => [expected(entry.get('key')), expected(entry.get('value'))] as const,
        ),
      );
    return makeObject([...value].map(([key, item]) => [key as Value, expected(item)] as const));
  }
  return (value ?? null) as Value;
}

/** The values of `many!: [...]` (an input as plain data, a want read with key types), else undefined. */
function many(value: unknown): unknown[] | undefined {
  if (value instanceof Map) return value.size === 1 && value.has('many!') ? (value.get('many!') as unknown[]) : undefined;
  if (typeof value === 'object' && value !== null && Object.keys(value).length === 1 && 'many!' in value)
    return (value as { 'many!': unknown[] })['many!'];
  return undefined;
}

const resultValue = (result: QueryResult): Value =>
  Object.keys(result.bindings).length > 0
    ? makeObject(Object.entries(result.bindings))
    : result.expressions.length === 1
      ? result.expressions[0]!
      : result.expressions;

function runCase(entry: LanguageCase, want: unknown, input: unknown): string | undefined {
  const inputs = many(input) ?? [input];
  const wants = many(want);
  let computed: Value[] = [];
  try {
    const modules = (entry.modules ?? []).map((source, index) => parseModule(source, `module_${index}.rego`));
    const policy = compilePolicy(modules, BUILTINS);
    for (const each of inputs) {
      const results = evalQuery(policy, entry.query, {
        input: each === undefined ? undefined : fromJson(each),
        data: fromJson(entry.data ?? {}),
        strictBuiltinErrors: entry.strict !== false,
        now: new Date(),
        budget: new CostBudget(Number.POSITIVE_INFINITY),
      });
      if (wants && !many(input)) computed = results.map(resultValue);
      else if (results.length > 0) computed.push(resultValue(results.at(-1)!));
    }
  } catch (error) {
    return entry.error !== undefined ? undefined : `error: ${(error as Error).message}`;
  }
  const got = computed.map(regoText).join(' | ');
  if (entry.error !== undefined) return `expected an error (${entry.error}), got ${got}`;
  if (entry.no_result) return computed.length === 0 ? undefined : `expected no result, got ${got}`;
  const expectedValues = (wants ?? [want]).map(expected);
  const agree = computed.length === expectedValues.length && computed.every((value, index) => equal(value, expectedValues[index]!));
  return agree ? undefined : `got ${got}, expected ${expectedValues.map(regoText).join(' | ')}`;
}

export function regoLanguageCases(): RunnableCase[] {
  return yamlFiles(ROOT).flatMap((file) => {
    const document = parseDocument(readFileSync(file, 'utf8'), { strict: false, uniqueKeys: false });
    const plain = document.toJS() as { cases?: LanguageCase[] };
    const typed = document.toJS({ mapAsMap: true }) as Map<string, Map<string, unknown>[]>;
    return (plain.cases ?? []).map((entry, index) => {
      const typedCase = typed.get('cases')![index]!;
      return {
        name: `${relative(ROOT, file)} :: ${entry.note}`,
        skip: entry.skip === true,
        run: () => runCase(entry, typedCase.get('want_result'), entry.input),
      };
    });
  });
}
