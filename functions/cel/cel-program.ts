// CEL expressions as ValidatingAdmissionPolicy writes them, on @bufbuild/cel (a maintained implementation
// run against the CEL conformance suite). Compiling parses the expression and checks every function it
// calls and every variable it names exists, so a typo is an invalid rules document at `policy validate`,
// not a failure at admission. (@bufbuild/cel has no type checker: type errors surface at evaluation.)
// Programs run metered (metered-env.ts): every call and iteration is charged to a cost budget, so no
// expression runs unbounded.
import { type CelResult, isCelError, parse } from '@bufbuild/cel';
import { CostBudget } from './cost-budget.js';
import { type ExprNode, subExpressions } from './expression-tree.js';
import { checkingEnv, planMetered, withBudget } from './metered-env.js';

// Operators the evaluator implements itself rather than as functions.
const BUILT_IN_OPERATORS = new Set(['_&&_', '_||_', '_?_:_', '_[_]', '@not_strictly_false']);

export interface CelProgram {
  source: string;
  /** Calls `matches`: the regular expression engine must be loaded first (loadRegexEngine). */
  usesRegex: boolean;
  /** Evaluates with every call and iteration charged to `budget`; a spent budget is an error result. */
  run(bindings: Record<string, unknown>, budget?: CostBudget): CelResult | Error;
}

// The variables ValidatingAdmissionPolicy binds, and CEL's type names, which are identifiers too.
export const CEL_VARIABLES = ['object', 'oldObject', 'request', 'params', 'variables'] as const;
const KNOWN_IDENTIFIERS = new Set<string>([...CEL_VARIABLES, 'int', 'uint', 'double', 'bool', 'string', 'bytes', 'list', 'map', 'null_type', 'type']);

interface References {
  functions: Set<string>;
  identifiers: Set<string>;
}

/** Every function called and every free identifier used, so unknown ones fail at compile time. */
function references(node: ExprNode, bound: ReadonlySet<string>, into: References): References {
  const kind = node?.exprKind;
  if (kind?.case === 'identExpr' && !bound.has(kind.value.name)) into.identifiers.add(kind.value.name);
  if (kind?.case === 'callExpr') into.functions.add(kind.value.function);
  if (kind?.case === 'comprehensionExpr') {
    // The range and the initial value are outside the loop; the loop's variables are bound in the rest.
    const { iterRange, accuInit, loopCondition, loopStep, result, iterVar, iterVar2, accuVar } = kind.value;
    const inner = new Set([...bound, iterVar, accuVar, ...(iterVar2 ? [iterVar2] : [])]);
    for (const outside of [iterRange, accuInit]) references(outside, bound, into);
    for (const part of [loopCondition, loopStep, result]) references(part, inner, into);
    return into;
  }
  for (const child of subExpressions(node)) references(child, bound, into);
  return into;
}

/** The compiled program, or the reason the expression does not compile. */
export function compileCel(source: string): CelProgram | string {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(source);
  } catch (error) {
    return `does not compile: ${(error as Error).message.replace(/^<input>:/, 'at ')}`;
  }
  const { functions, identifiers } = references(parsed.expr, new Set(), { functions: new Set(), identifiers: new Set() });
  const unknownFunctions = [...functions].filter((name) => !BUILT_IN_OPERATORS.has(name) && !checkingEnv.funcs.find(name));
  if (unknownFunctions.length > 0) return `does not compile: unknown function${unknownFunctions.length > 1 ? 's' : ''} ${unknownFunctions.join(', ')}`;
  const unknownNames = [...identifiers].filter((name) => !KNOWN_IDENTIFIERS.has(name));
  if (unknownNames.length > 0) return `does not compile: undeclared ${unknownNames.join(', ')} (variables are ${CEL_VARIABLES.join(', ')})`;
  const program = planMetered(parsed);
  return {
    source,
    usesRegex: functions.has('matches'),
    run(bindings, budget = new CostBudget()) {
      const result = withBudget(budget, () => program(bindings));
      // The engine may have absorbed the budget's error (`true || error`); the budget has not.
      return budget.failure ?? result;
    },
  };
}

/** The value of a run, or an Error saying which expression failed and why. */
export function celValue(result: CelResult | Error, where: string): unknown {
  if (result instanceof Error || isCelError(result)) throw new Error(`${where}: ${result.message}`);
  return result;
}

/** JSON as CEL sees Kubernetes objects: maps for objects, int (bigint) for whole numbers. */
export function toCel(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toCel);
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (typeof value === 'object' && value !== null) return new Map(Object.entries(value).map(([key, item]) => [key, toCel(item)]));
  return value ?? null;
}
