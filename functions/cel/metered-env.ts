// @bufbuild/cel wired so that no expression can run unbounded or overflow the stack. The engine looks every
// function up by name once, when an expression is planned, so the environment handed to plan() meters them:
// - every call charges the active cost budget (cost-budget.ts) before it runs, by its operands' size, and
//   after, by its result's;
// - every comprehension iteration is charged: each loop condition is wrapped in a metering call;
// - list `+` appends in place when the left list is the latest version of its array (amortised O(1) per
//   element) and stays flat. The engine's own concatenation nests one view per `+`: a `map` over 5,000
//   containers built 5,000 nested lists, and reading them overflowed the stack;
// - `matches` runs on RE2 (re2js: linear-time matching), loaded the first time a rule needs it.
// This file is the only one that knows the engine's internals (the list marker, the resolver's shape).
import { type CelEnv, celEnv, type CelResult, isCelList, isCelMap, plan } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import type { CostBudget } from './cost-budget.js';
import { type ExprNode, subExpressions } from './expression-tree.js';

let activeBudget: CostBudget | undefined;

/** Runs `evaluate` with every call and iteration charged to `budget`. */
export function withBudget<T>(budget: CostBudget, evaluate: () => T): T {
  const previous = activeBudget;
  activeBudget = budget;
  try {
    return evaluate();
  } finally {
    activeBudget = previous;
  }
}

function charge(units: number): void {
  activeBudget?.charge(units);
}

/** Size units: strings and bytes 1 per 10 characters (Kubernetes' traversal factor), lists and maps 1 per element. */
function units(value: unknown): number {
  if (typeof value === 'string' || value instanceof Uint8Array) return Math.ceil(value.length / 10);
  if (isCelList(value) || isCelMap(value)) return value.size;
  return 0;
}

// The engine recognises its lists by this registered symbol; an AppendableList is one of them.
const CEL_LIST_MARKER = Symbol.for('@bufbuild/cel/list');

/** A list that is a prefix of a shared array; `+` on the latest prefix pushes to the array instead of copying. */
class AppendableList {
  readonly [CEL_LIST_MARKER] = {};
  constructor(
    readonly items: unknown[],
    readonly size: number,
  ) {}
  get(index: number): unknown {
    return index >= 0 && index < this.size ? this.items[index] : undefined;
  }
  *values(): IterableIterator<unknown> {
    for (let index = 0; index < this.size; index++) yield this.items[index];
  }
  [Symbol.iterator](): IterableIterator<unknown> {
    return this.values();
  }
}

function appendLists(left: Iterable<unknown>, right: Iterable<unknown>): AppendableList {
  const items = left instanceof AppendableList && left.items.length === left.size ? left.items : Array.from(left);
  for (const item of right) items.push(item);
  return new AppendableList(items, items.length);
}

const ITERATION = '@portcullis.iteration';

interface FunctionGroup {
  name: string;
  call(id: number, target: unknown, args: unknown[]): unknown;
}

function metered(group: FunctionGroup): FunctionGroup {
  return {
    name: group.name,
    call(id, target, args) {
      if (group.name === '_+_' && args.length === 2 && isCelList(args[0]) && isCelList(args[1])) {
        charge(1 + args[1].size);
        return appendLists(args[0], args[1]);
      }
      let before = 1 + units(target);
      for (const arg of args) before += units(arg);
      // RE2 matching takes time in the text's length times the pattern's.
      if (group.name === 'matches') before += units(target ?? args[0]) * units(target === undefined ? args[1] : args[0]);
      charge(before);
      const result = group.call(id, target, args);
      charge(units(result));
      return result;
    },
  };
}

const iteration: FunctionGroup = {
  name: ITERATION,
  call(_id, _target, [condition]) {
    charge(1);
    return condition;
  },
};

let re2: typeof import('re2js').RE2JS | undefined;
const compiledPatterns = new Map<string, import('re2js').RE2JS>();
const MAX_CACHED_PATTERNS = 256;

export const regexEngineLoaded = () => re2 !== undefined;

/** Loads RE2 for rules that call `matches`; until then, `matches` is an error. */
export async function loadRegexEngine(): Promise<void> {
  re2 ??= (await import('re2js')).RE2JS;
}

function compilePattern(pattern: string) {
  if (!re2) throw new Error('matches: the regular expression engine is not loaded');
  let compiled = compiledPatterns.get(pattern);
  if (!compiled) {
    if (compiledPatterns.size >= MAX_CACHED_PATTERNS) compiledPatterns.clear(); // patterns may come from requests: bounded
    compiledPatterns.set(pattern, (compiled = re2.compile(pattern)));
  }
  return { test: (text: string) => compiled.matcher(text).find() };
}

const baseEnv = celEnv({ funcs: strings, re2: { compile: compilePattern } });

type Resolver = CelEnv['funcs'];

const meteredFuncs = {
  find(name: string) {
    if (name === ITERATION) return iteration;
    const group = baseEnv.funcs.find(name) as unknown as FunctionGroup | undefined;
    return group && metered(group);
  },
  [Symbol.iterator]: () => baseEnv.funcs[Symbol.iterator](),
} as unknown as Resolver;

/** The environment expressions are checked against (every function it knows, unmetered). */
export const checkingEnv: CelEnv = baseEnv;
const meteredEnv = { namespace: baseEnv.namespace, registry: baseEnv.registry, funcs: meteredFuncs } as CelEnv;

let nextId = 1n << 40n; // ids the parser never hands out

/** Wraps every comprehension's loop condition in a metering call, so each iteration is charged. */
function meterIterations(node: ExprNode): void {
  for (const child of subExpressions(node)) meterIterations(child);
  const kind = node?.exprKind;
  if (kind?.case !== 'comprehensionExpr') return;
  const comprehension = kind.value;
  comprehension.loopCondition = {
    $typeName: 'cel.expr.Expr',
    id: nextId++,
    exprKind: { case: 'callExpr', value: { $typeName: 'cel.expr.Expr.Call', function: ITERATION, args: [comprehension.loopCondition] } },
  };
}

/** Plans a parsed expression for metered evaluation: run it inside withBudget(). */
export function planMetered(parsed: { expr?: unknown }): (bindings: Record<string, unknown>) => CelResult {
  meterIterations(parsed.expr as ExprNode);
  return plan(meteredEnv, parsed as never) as (bindings: Record<string, unknown>) => CelResult;
}
