// JMESPath as Kyverno evaluates it: the JMESPath Community edition (@jmespath-community/jmespath), the
// specification Kyverno's go-jmespath follows (let, arithmetic, the community functions), with Kyverno's own
// functions (functions.ts); why this library and not a faster one, the README's dependencies say. The library
// has no budget of its own, so its interpreter's two entry points are wrapped here, once: every node visited
// and every function called is charged to the evaluation in progress by the size of what it makes (size
// units, as CEL is charged), so no expression and no request can run unbounded.
import { compile, type JSONValue, TreeInterpreter } from '@jmespath-community/jmespath';
import { isJsonObject } from '../../../admission/kubernetes/json-object.js';
import { currentEvaluation, type Evaluation, withEvaluation } from '../../runtime/evaluation.js';
import { units } from '../../runtime/size-units.js';
// Kyverno's functions, registered on the library before any expression runs.
import './functions.js';

type ExpressionNode = ReturnType<typeof compile>;

type Scopes = { data: Record<string, JSONValue>; inner?: Scopes };
type Interpreter = { _scope: Scopes; runtime: Runtime };
type Runtime = { _interpreter: Interpreter };
type Visit = (this: Interpreter, node: ExpressionNode, value: JSONValue) => JSONValue;
type Call = (this: Runtime, name: string, args: JSONValue[]) => JSONValue;
const interpreterPrototype = Object.getPrototypeOf(TreeInterpreter) as { visit: Visit };
const rootRuntime = (TreeInterpreter as unknown as Interpreter).runtime;
const runtimePrototype = Object.getPrototypeOf(rootRuntime) as { callFunction: Call };
const visit = interpreterPrototype.visit;
const callFunction = runtimePrototype.callFunction;

/** A let-bound variable, found as Go's scopes find it: one bound to null or false in an outer scope is still bound. */
function variable(scopes: Scopes | undefined, name: string): JSONValue {
  for (let scope = scopes; scope; scope = scope.inner) if (Object.hasOwn(scope.data, name)) return scope.data[name]!;
  throw new Error(`Error referencing undefined variable ${name}`);
}

/** Kyverno's go-jmespath: a key the object does not have, where nothing in the expression absorbs it. */
export class UnknownKeyError extends Error {
  constructor(key: string) {
    super(`Unknown key "${key}" in path`);
  }
}

// The fields of the search in progress whose missing key is an error (unknownKeys: 'error'), else none.
let strictFields: WeakSet<object> | undefined;

interpreterPrototype.visit = function metered(node, value) {
  const field = node as { type: string; name?: string };
  if (strictFields?.has(node) && isJsonObject(value) && !Object.hasOwn(value, field.name!)) throw new UnknownKeyError(field.name!);
  const result =
    (node as { type: string }).type === 'Variable' ? variable(this._scope, (node as { name: string }).name) : visit.call(this, node, value);
  currentEvaluation()?.budget.charge(1 + units(result));
  return result;
};
runtimePrototype.callFunction = function metered(name, args) {
  currentEvaluation()?.budget.charge(1 + args.reduce<number>((total, arg) => total + units(arg), 0));
  if (this === rootRuntime) return callFunction.call(this, name, args);
  // Inside a let, the library's functions (bound to the root runtime) would evaluate an expression reference
  // (`map(&...)`, `sort_by`, `max_by`) without the let's variables; Kyverno's go-jmespath evaluates it in them.
  const outer = rootRuntime._interpreter;
  rootRuntime._interpreter = this._interpreter;
  try {
    return callFunction.call(this, name, args);
  } finally {
    rootRuntime._interpreter = outer;
  }
};

const compiled = new Map<string, ExpressionNode>();
const MAX_COMPILED = 1024;

/** The expression compiled (cached), or an Error saying why it does not parse. */
export function compileJmesPath(expression: string): ExpressionNode | Error {
  const cached = compiled.get(expression);
  if (cached) return cached;
  try {
    const node = compile(expression);
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(expression, node);
    return node;
  } catch (error) {
    return new Error(`JMESPath ${JSON.stringify(expression)} does not parse: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Every function an expression calls, for checking them when the rules are read. */
export function functionsCalledBy(node: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const child of node) functionsCalledBy(child, into);
  else if (node && typeof node === 'object') {
    const typed = node as { type?: string; name?: string };
    if (typed.type === 'Function' && typeof typed.name === 'string') into.add(typed.name);
    for (const child of Object.values(node)) if (child && typeof child === 'object') functionsCalledBy(child, into);
  }
  return into;
}

type PathNode = { type: string; name?: string; left?: PathNode; right?: PathNode };

/** The field names of an expression that is only a path (`request.object.spec.containers`), else undefined. */
function fieldPath(node: PathNode): string[] | undefined {
  if (node.type === 'Field' && typeof node.name === 'string') return [node.name];
  if (node.type !== 'Subexpression' || !node.left || !node.right) return undefined;
  const left = fieldPath(node.left);
  const right = left && fieldPath(node.right);
  return left && right ? [...left, ...right] : undefined;
}

// Most of Kyverno's expressions are plain paths; those are walked directly, as JMESPath's Field would walk them.
const fieldPaths = new WeakMap<object, string[] | null>();

function walk(data: unknown, path: readonly string[], unknownKeys: UnknownKeys): unknown {
  let value = data;
  for (const name of path) {
    if (!isJsonObject(value)) return null;
    if (!Object.hasOwn(value, name)) {
      if (unknownKeys === 'error') throw new UnknownKeyError(name);
      return null;
    }
    value = value[name];
  }
  return value ?? null;
}

/**
 * The Field nodes whose missing key Kyverno's go-jmespath reports: those reached from the root through
 * sub-expressions, index expressions and the right side of `&&` only. Everything else (`||`, a function's
 * arguments, a comparison, `!`, a projection, a filter, a multiselect, a pipe) reads a missing key as null.
 */
function strictFieldsOf(root: object): WeakSet<object> {
  const fields = new WeakSet<object>();
  const visitStrict = (node: unknown) => {
    const typed = node as { type?: string; left?: unknown; right?: unknown };
    if (typed?.type === 'Field') fields.add(typed as object);
    else if (typed?.type === 'Subexpression' || typed?.type === 'IndexExpression') {
      visitStrict(typed.left);
      visitStrict(typed.right);
    } else if (typed?.type === 'AndExpression') visitStrict(typed.right);
  };
  visitStrict(root);
  return fields;
}
const strictFieldSets = new WeakMap<object, WeakSet<object>>();

/** What a key an object does not have reads as: null (JMESPath's own rule) or an error (Kyverno's `{{ }}` variables). */
export type UnknownKeys = 'null' | 'error';

/** Evaluates an expression on `data`, charging `evaluation.budget`. */
export function searchJmesPath(expression: string, data: unknown, evaluation: Evaluation, unknownKeys: UnknownKeys = 'null'): unknown {
  const node = compileJmesPath(expression);
  if (node instanceof Error) throw node;
  let path = fieldPaths.get(node);
  if (path === undefined) {
    path = fieldPath(node as PathNode) ?? null;
    fieldPaths.set(node, path);
  }
  if (path) {
    evaluation.budget.charge(path.length);
    return walk(data, path, unknownKeys);
  }
  let fields: WeakSet<object> | undefined;
  if (unknownKeys === 'error') {
    fields = strictFieldSets.get(node);
    if (!fields) strictFieldSets.set(node, (fields = strictFieldsOf(node)));
  }
  const outer = strictFields;
  strictFields = fields;
  try {
    return withEvaluation(evaluation, () => TreeInterpreter.search(node, data as JSONValue));
  } finally {
    strictFields = outer;
  }
}
