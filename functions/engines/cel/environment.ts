// The CEL engine, @marcbachmann/cel-js, set up as Kubernetes' CEL environment: optional types (`.?`,
// `orValue`, `optional.of`), mixed-type literals, the variables admission policies bind, and the libraries
// Kubernetes and Kyverno add (libraries/all-libraries.ts). Chosen over @bufbuild/cel by measurement
// (bench/cel-engines.ts). This file is the only one that knows the engine's internals:
// - metering: every node the engine evaluates goes through its evaluator's `run`, which is wrapped to
//   charge the evaluation's cost budget (runtime/evaluation.ts) 1 unit per node plus, where something walks
//   it, its result's size, so every comprehension iteration and call is paid for and no expression runs
//   unbounded (the fast path, which runs first, counts the same way ahead of time);
// - `matches` runs on RE2 (runtime/re2.ts): the engine's own uses JavaScript's backtracking RegExp, so calls
//   to it are renamed before type checking.
import { Environment, Optional } from '@marcbachmann/cel-js';
import { CEL_LIBRARIES, LIBRARY_FUNCTIONS, LIBRARY_IDENTIFIERS } from './libraries/all-libraries.js';
import { type CelLibrary, registerLibrary } from './libraries/cel-library.js';
import { currentEvaluation } from '../runtime/evaluation.js';
import { units } from '../runtime/size-units.js';
import { re2Matches } from '../runtime/re2.js';

/** The variables a ValidatingAdmissionPolicy binds; the last two need the cluster (refused by compileCel). */
export const CEL_VARIABLES = ['object', 'oldObject', 'request', 'params', 'variables', 'namespaceObject', 'authorizer'] as const;

export interface ExpressionNode {
  op: string;
  args: unknown;
}

// The accumulator of `map`/`filter` is the same growing list on every step: charging its size each step
// would make a linear walk quadratic in cost.
function isAccumulator(result: unknown, context: unknown): boolean {
  return typeof result === 'object' && result !== null && result === (context as { accuValue?: unknown } | undefined)?.accuValue;
}

export const RE2_MATCHES = 'portcullisRe2Matches';
export const LENIENT_OR_VALUE = 'portcullisOrValue';

/** `orValue` as cel-go had it: the fallback for an empty optional, and a value that is not optional as it is. */
export const lenientOrValue = (value: unknown, fallback: unknown): unknown =>
  value instanceof Optional ? (value.hasValue() ? value.value() : fallback) : value;

/** Keys the engine drops without a word when it builds a map literal (it builds a plain object). */
export const DROPPED_MAP_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

function createEnvironment(): Environment {
  const env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false });
  for (const name of CEL_VARIABLES) env.registerVariable(name, 'dyn');
  env.registerFunction(`string.${RE2_MATCHES}(string): bool`, re2Matches);
  env.registerFunction(`${RE2_MATCHES}(string, string): bool`, re2Matches);
  env.registerFunction(`dyn.${LENIENT_OR_VALUE}(dyn): dyn`, lenientOrValue);
  meterEvaluation(env);
  return env;
}

/** Registers the Kubernetes and Kyverno libraries on `env`. */
export function registerLibraries(env: Environment): void {
  for (const library of CEL_LIBRARIES) registerLibrary(env, library);
}

/**
 * An environment of its own, as admission's with every library registered and `libraries` added: for CEL
 * that judges something else than admission requests (Kyverno's authorization modes). Made on demand: the
 * functions never make one.
 */
export function environmentWith(libraries: readonly CelLibrary[]): Environment {
  const env = createEnvironment();
  registerLibraries(env);
  for (const library of libraries) registerLibrary(env, library);
  return env;
}

let librariesRegistered = false;

/**
 * Registers the Kubernetes and Kyverno libraries before the first expression that names one of their
 * functions, namespaces or types (as the libraries declare them) is checked: rules calling none of them
 * skip that part of the cold start. The engine takes functions added
 * after others were checked (it clears its overload caches), and any expression that could resolve to a
 * library overload registers them first, so no expression means anything else.
 */
export function registerLibrariesFor(calls: ReadonlySet<string>, identifiers: ReadonlySet<string>): void {
  if (librariesRegistered) return;
  const named = [...calls].some((name) => LIBRARY_FUNCTIONS.has(name)) || [...identifiers].some((name) => LIBRARY_IDENTIFIERS.has(name));
  if (!named) return;
  librariesRegistered = true;
  registerLibraries(celEnvironment);
}

// Selecting a field, an index or a variable takes the same time whatever the value's size: such nodes are
// charged 1 unit, unless their value goes to something that does walk it (a call, `+`, `==`, `in`, a
// comparison). Counting a map's keys at every `c.securityContext` would make navigation cost as much as walking.
const NAVIGATION = new Set(['id', '.', '.?', '[]', '[?]']);
const WALKS_ITS_OPERANDS = new Set(['call', 'rcall', '+', '==', '!=', 'in', '<', '<=', '>', '>=']);

/** Whether a node's value is charged by its size, as well as the 1 unit every node costs. */
const chargesSize = (op: string, parentOp: string | undefined): boolean =>
  !NAVIGATION.has(op) || (parentOp !== undefined && WALKS_ITS_OPERANDS.has(parentOp));

/** Marks the navigation nodes of a compiled expression whose value nothing walks, so they are charged 1 unit. */
export function markNavigation(node: ExpressionNode, parent?: ExpressionNode): void {
  if (!chargesSize(node.op, parent?.op)) (node as { chargedOne?: boolean }).chargedOne = true;
  forEachChild(node, (child) => markNavigation(child, node));
}

/** Wraps the environment's evaluator so that every node it evaluates is charged to the evaluation's budget. */
function meterEvaluation(env: Environment): void {
  const probe = env.parse('true');
  const root = probe.ast as unknown as {
    evaluate: (evaluator: { run: (node: ExpressionNode, context: unknown) => unknown }, ...rest: unknown[]) => unknown;
  };
  root.evaluate = function captureEvaluator(evaluator, ...rest) {
    const run = evaluator.run;
    evaluator.run = function meteredRun(this: unknown, node: ExpressionNode, context: unknown) {
      const result = run.call(this, node, context);
      const evaluation = currentEvaluation();
      if (evaluation)
        evaluation.budget.charge(
          (node as { chargedOne?: boolean }).chargedOne === true || isAccumulator(result, context) ? 1 : 1 + units(result),
        );
      return result;
    };
    delete (root as { evaluate?: unknown }).evaluate;
    return root.evaluate(evaluator, ...rest);
  };
  probe({});
}

export const celEnvironment = createEnvironment();

/** Calls every direct sub-expression of `node` with `visit`. */
export function forEachChild(node: ExpressionNode, visit: (child: ExpressionNode) => void): void {
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (isNode(value)) visit(value);
  };
  // A comprehension's parts are named; everything else holds its operands in an array.
  if (node.op === 'comprehension') {
    const { iterable, init, step } = node.args as Record<string, unknown>;
    [iterable, init, step].forEach(walk);
  } else walk(node.args);
}

function isNode(value: unknown): value is ExpressionNode {
  return typeof value === 'object' && value !== null && typeof (value as ExpressionNode).op === 'string' && 'args' in value;
}

/** The name a call node calls, and the receiver's identifier when it is one (`resource` in `resource.Get()`). */
export function callOf(node: ExpressionNode): { name: string; receiver?: string } | undefined {
  if (node.op !== 'call' && node.op !== 'rcall') return undefined;
  const args = node.args as [string, ExpressionNode?];
  const receiver = node.op === 'rcall' && args[1]?.op === 'id' ? (args[1].args as string) : undefined;
  return { name: args[0], receiver };
}

/**
 * Points every `matches` call at RE2, and every `orValue` at the lenient one: on a value that is not an
 * optional it returns the value, as cel-go did until 2026 (Kubernetes and Kyverno releases in use, and
 * Kyverno's own suites, rely on `list.orValue([])`); the engine's strict one is an error there.
 */
export function rewriteCalls(node: ExpressionNode): void {
  const call = callOf(node);
  if (call?.name === 'matches') (node.args as string[])[0] = RE2_MATCHES;
  if (call?.name === 'orValue' && node.op === 'rcall') {
    (node.args as string[])[0] = LENIENT_OR_VALUE;
    (node as unknown as { setMeta(key: string, value: unknown): void }).setMeta('macro', undefined);
  }
  forEachChild(node, rewriteCalls);
}
