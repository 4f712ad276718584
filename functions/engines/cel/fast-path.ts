// The fast path of CEL evaluation, because the engine walks its syntax tree node by node and, for dyn
// values (all of a request), resolves every operator by the operands' runtime types at every step (cel's
// warm figures in `npm run bench` show what that costs a bundle of manifests). The constructs Kubernetes
// policies are written with (field and optional selection, orValue, has, the comprehension macros,
// comparisons, `in`, list concatenation, string tests) are compiled here, once, into JavaScript closures.
// A closure returns a value only where the result is certain: operands of the types it handles, no error.
// Anywhere else it gives up, and the engine evaluates the whole expression again from the start: evaluation
// is pure, so the engine's answer stands whenever there is any doubt (its error messages, its absorption of
// errors by `||`, `&&` and the macros, its overloads). The one exception is an error that is certain too
// (FAILS): a caller that needs no words for it is spared the engine. The tests compare the two on every
// expression of the corpus (test/unit/cel-fast-path.test.ts).
// Cost, as the engine's metering charges it (environment.ts, metering.ts), but counted ahead, since counting
// node by node would cost what the closures save: every node of the expression outside comprehensions is
// charged once, up front; every iteration charges the nodes of the comprehension's body; values that an
// operator or a function walks are charged by their size. That is never less than the nodes actually evaluated.
import { Optional } from '@marcbachmann/cel-js';
import { CEL_VARIABLES, DROPPED_MAP_KEYS, type ExpressionNode, LENIENT_OR_VALUE, lenientOrValue, RE2_MATCHES } from './environment.js';
import { chargeWalked } from './metering.js';
import { units } from '../runtime/size-units.js';
import { re2Matches } from '../runtime/re2.js';
import { isPlainMap } from './values.js';
import type { CostBudget } from '../runtime/cost-budget.js';

/** One evaluation's state (cel-go's activation): the bindings, the comprehension variables, the budget. */
interface Activation {
  bindings: Record<string, unknown>;
  /** The comprehension variables in scope, by slot. */
  frame: unknown[];
  budget: CostBudget;
}
type Closure = (activation: Activation) => unknown;

interface Compiled {
  evaluate: Closure;
  /** Units charged for this node and those below it, up to the bodies of comprehensions. */
  cost: number;
}

/** Thrown to hand the expression back to the engine; not an Error, so giving up captures no stack. */
const GIVE_UP = Symbol('give the expression to the engine');
const giveUp = (): never => {
  throw GIVE_UP;
};
export const gaveUp = (thrown: unknown): boolean => thrown === GIVE_UP;

/**
 * Thrown where the engine is certain to err as well (a conversion with no overload for its operand): the
 * expression fails, in whatever words the engine would give. Never thrown under an operator that may
 * absorb an error (`&&`, `||`, all, exists, exists_one): there the closures give up instead.
 */
const FAILS = Symbol('the engine errs here too');
const fails = (): never => {
  throw FAILS;
};
export const certainlyFails = (thrown: unknown): boolean => thrown === FAILS;

const NONE = Optional.none();
const ROOT_VARIABLES = new Set<string>(CEL_VARIABLES);
const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'filter', 'map']);
// An error in one iteration of these is absorbed when another iteration decides, as in the engine.
const ABSORBING_COMPREHENSIONS = new Set(['all', 'exists', 'exists_one']);

/** `map.key`: the value, or give up (a missing key is an error the engine words). */
function select(map: unknown, key: string): unknown {
  // Selecting a field of an optional is selecting it optionally, as the engine's optional type does.
  if (map instanceof Optional) return selectOptional(map, key);
  let value: unknown;
  if (isPlainMap(map)) value = Object.hasOwn(map, key) ? map[key] : undefined;
  else if (map instanceof Map) value = map.get(key);
  return value === undefined ? giveUp() : value;
}

/** `value.?key`: an optional, as the engine's optional type selects. */
function selectOptional(value: unknown, key: string): unknown {
  if (value instanceof Optional) {
    if (!value.hasValue()) return NONE;
    value = value.value();
  }
  if (isPlainMap(value)) return Object.hasOwn(value, key) ? Optional.of(value[key]) : NONE;
  if (value instanceof Map) return Optional.of(value.get(key));
  // Scalars, null and lists have no fields: none, as the engine says.
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return NONE;
  return giveUp();
}

function index(container: unknown, key: unknown): unknown {
  if (Array.isArray(container)) {
    if (typeof key !== 'bigint' || key < 0n || key >= BigInt(container.length)) return giveUp();
    return container[Number(key)];
  }
  return typeof key === 'string' || container instanceof Map ? select(container, key as string) : giveUp();
}

function indexOptional(container: unknown, key: unknown): unknown {
  if (container instanceof Optional) {
    if (!container.hasValue()) return NONE;
    container = container.value();
  }
  if (typeof key !== 'string' || !(isPlainMap(container) || container instanceof Map)) return giveUp();
  return selectOptional(container, key);
}

const boolean = (value: unknown): boolean => (typeof value === 'boolean' ? value : giveUp());

/** `a == b` where it is certain (scalars of one type, nulls); CEL's equality of anything else is the engine's. */
function scalarsEqual(a: unknown, b: unknown): boolean {
  const type = typeof a;
  if (type === typeof b && (type === 'string' || type === 'boolean' || type === 'bigint' || type === 'number')) return a === b;
  return a === null && b === null ? true : giveUp();
}

function compare(a: unknown, b: unknown): number {
  const type = typeof a;
  if (type !== typeof b || !(type === 'string' || type === 'bigint' || type === 'number')) return giveUp();
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : (a as number) === (b as number) ? 0 : giveUp();
}

function contains(container: unknown, value: unknown): boolean {
  if (Array.isArray(container)) {
    const type = typeof value;
    if (type !== 'string' && type !== 'boolean' && type !== 'bigint') return giveUp();
    // Elements of another type: the engine's overloads decide.
    for (const element of container) if (typeof element !== type) return giveUp();
    return container.includes(value);
  }
  if (typeof value !== 'string') return giveUp();
  if (isPlainMap(container)) return Object.hasOwn(container, value) && container[value] !== undefined;
  if (container instanceof Map) return container.get(value) !== undefined;
  return giveUp();
}

const MIN_INT = -(2n ** 63n);
const MAX_INT = 2n ** 63n - 1n;

function add(a: unknown, b: unknown): unknown {
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    const sum = a + b;
    return sum < MIN_INT || sum > MAX_INT ? giveUp() : sum;
  }
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  return giveUp();
}

function size(value: unknown): bigint {
  if (Array.isArray(value)) return BigInt(value.length);
  if (value instanceof Map) return BigInt(value.size);
  if (isPlainMap(value)) return BigInt(Object.keys(value).length);
  // A string's size counts code points: the engine's.
  return giveUp();
}

function itemsOf(range: unknown): unknown[] {
  if (Array.isArray(range)) return range;
  if (isPlainMap(range)) return Object.keys(range);
  if (range instanceof Map) return [...range.keys()];
  return giveUp();
}

/** `string(x)` for the types whose conversion is certain; lists and maps have no conversion at all. */
function stringOf(value: unknown, failure: () => never): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint' || typeof value === 'boolean') return `${value}`;
  if (Array.isArray(value) || isPlainMap(value) || value instanceof Map) return failure();
  // Doubles, bytes, timestamps: the engine's formatting.
  return giveUp();
}

const strings = (receiver: unknown, argument: unknown): [string, string] =>
  typeof receiver === 'string' && typeof argument === 'string' ? [receiver, argument] : giveUp();

const STRING_TESTS = new Map<string, (text: string, other: string) => boolean>([
  ['contains', (text, other) => text.includes(other)],
  ['startsWith', (text, other) => text.startsWith(other)],
  ['endsWith', (text, other) => text.endsWith(other)],
  [RE2_MATCHES, re2Matches],
]);

type Scope = ReadonlyMap<string, number>;

// As the engine has them (which is not ASCII-only).
const STRING_TRANSFORMS = new Map<string, (text: string) => string>([
  ['upperAscii', (text) => text.toUpperCase()],
  ['lowerAscii', (text) => text.toLowerCase()],
]);

class Compiler {
  slots = 0;
  /** Inside the operands of an operator that may absorb an error: an error there is not certain. */
  private absorbing = 0;

  /** The node as a closure and its cost; undefined if it uses something left to the engine. */
  node(node: ExpressionNode, scope: Scope): Compiled | undefined {
    const evaluate = this.operation(node, scope);
    return evaluate && { evaluate: evaluate[0], cost: 1 + evaluate[1] };
  }

  /** The closures of `nodes` and their total cost, or undefined if any is left to the engine. */
  private all(nodes: ExpressionNode[], scope: Scope): [Closure[], number] | undefined {
    const compiled = nodes.map((node) => this.node(node, scope));
    if (!compiled.every((each) => each !== undefined)) return undefined;
    return [compiled.map(({ evaluate }) => evaluate), compiled.reduce((sum, { cost }) => sum + cost, 0)];
  }

  /** The node's own closure and the cost of what is below it. */
  private operation(node: ExpressionNode, scope: Scope): [Closure, number] | undefined {
    const meta = (node as unknown as { meta?: { alternate?: unknown; macro?: unknown } }).meta;
    const args = node.args as ExpressionNode[];
    switch (node.op) {
      case 'value': {
        const value = node.args;
        return [() => value, units(value)];
      }
      case 'id': {
        const name = node.args as string;
        if (meta?.alternate) return undefined;
        const slot = scope.get(name);
        if (slot !== undefined) return [(activation) => activation.frame[slot], 0];
        if (!ROOT_VARIABLES.has(name)) return undefined;
        return [
          (activation) => {
            const value = activation.bindings[name];
            return value === undefined ? giveUp() : value;
          },
          0,
        ];
      }
      case '.':
      case '.?': {
        const target = this.node(args[0]!, scope);
        if (!target) return undefined;
        const key = args[1] as unknown as string;
        const { evaluate } = target;
        return [
          node.op === '.' ? (activation) => select(evaluate(activation), key) : (activation) => selectOptional(evaluate(activation), key),
          target.cost,
        ];
      }
      case '[]':
      case '[?]': {
        const operands = this.all(args, scope);
        if (!operands) return undefined;
        const [[container, key], cost] = operands as [[Closure, Closure], number];
        return [
          node.op === '[]'
            ? (activation) => index(container(activation), key(activation))
            : (activation) => indexOptional(container(activation), key(activation)),
          cost,
        ];
      }
      case '!_': {
        const operand = this.node((Array.isArray(node.args) ? node.args[0] : node.args) as ExpressionNode, scope);
        if (!operand) return undefined;
        const { evaluate } = operand;
        return [(activation) => !boolean(evaluate(activation)), operand.cost];
      }
      case '&&':
      case '||': {
        const operands = this.absorbingErrors(() => this.all(args, scope));
        if (!operands) return undefined;
        const [[left, right], cost] = operands as [[Closure, Closure], number];
        // When the left side errs the engine may still answer (`error || true` is true): it gives up there.
        const decisive = node.op === '||';
        return [(activation) => (boolean(left(activation)) === decisive ? decisive : boolean(right(activation))), cost];
      }
      case '?:': {
        const operands = this.all(args, scope);
        if (!operands) return undefined;
        const [[condition, then, otherwise], cost] = operands as [[Closure, Closure, Closure], number];
        return [(activation) => (boolean(condition(activation)) ? then(activation) : otherwise(activation)), cost];
      }
      case '==':
      case '!=':
      case '<':
      case '<=':
      case '>':
      case '>=':
      case 'in':
      case '+':
        return this.binary(node, scope);
      case 'list': {
        const elements = this.all(args, scope);
        if (!elements) return undefined;
        const [closures, cost] = elements;
        return [(activation) => closures.map((element) => element(activation)), cost];
      }
      case 'map':
        return this.map(node, scope);
      case 'call':
      case 'rcall':
        if (meta?.alternate) return this.comprehension(node, scope);
        if (meta?.macro) return node.op === 'call' && (node.args as [string])[0] === 'has' ? this.has(node, scope) : undefined;
        return this.call(node, scope);
      default:
        return undefined;
    }
  }

  private binary(node: ExpressionNode, scope: Scope): [Closure, number] | undefined {
    const operands = this.all(node.args as ExpressionNode[], scope);
    if (!operands) return undefined;
    const [[left, right], cost] = operands as [[Closure, Closure], number];
    const operate = BINARY[node.op]!;
    return [
      (activation) => {
        const a = left(activation);
        const b = right(activation);
        chargeWalked(activation.budget, a, b);
        return operate(a, b);
      },
      cost,
    ];
  }

  private map(node: ExpressionNode, scope: Scope): [Closure, number] | undefined {
    const entries = this.all((node.args as [ExpressionNode, ExpressionNode][]).flat(), scope);
    if (!entries) return undefined;
    const [closures, cost] = entries;
    return [
      (activation) => {
        const map: Record<string, unknown> = {};
        for (let i = 0; i < closures.length; i += 2) {
          const key = closures[i]!(activation);
          // Other keys, and duplicates, are the engine's to judge.
          if (typeof key !== 'string' || DROPPED_MAP_KEYS.has(key) || Object.hasOwn(map, key)) giveUp();
          map[key as string] = closures[i + 1]!(activation);
        }
        return map;
      },
      cost,
    ];
  }

  /** `has(a.b.c)`: the engine errs on a missing `b`, and says false for a missing `c`. */
  private has(node: ExpressionNode, scope: Scope): [Closure, number] | undefined {
    const keys: string[] = [];
    let target = (node.args as [string, ExpressionNode[]])[1][0]!;
    while (target.op === '.') {
      keys.unshift((target.args as [ExpressionNode, string])[1]);
      target = (target.args as [ExpressionNode])[0];
    }
    const root = target.op === 'id' ? this.node(target, scope) : undefined;
    if (!root || keys.length === 0) return undefined;
    const last = keys.pop()!;
    const { evaluate } = root;
    return [
      (activation) => {
        let value = evaluate(activation);
        for (const key of keys) value = select(value, key);
        if (isPlainMap(value)) return Object.hasOwn(value, last) && value[last] !== undefined;
        if (value instanceof Map) return value.get(last) !== undefined;
        return giveUp();
      },
      root.cost + keys.length + 1,
    ];
  }

  private call(node: ExpressionNode, scope: Scope): [Closure, number] | undefined {
    const [name, receiverNode, argumentNodes] =
      node.op === 'rcall'
        ? (node.args as [string, ExpressionNode, ExpressionNode[]])
        : [(node.args as [string])[0], undefined, (node.args as [string, ExpressionNode[]])[1]];
    const operands = this.all(receiverNode ? [receiverNode, ...argumentNodes] : argumentNodes, scope);
    if (!operands) return undefined;
    const [[first, second], cost] = operands as [[Closure, Closure | undefined], number];
    const test = STRING_TESTS.get(name);
    if (test && second) {
      return [
        (activation) => {
          const [text, other] = strings(first(activation), second(activation));
          chargeWalked(activation.budget, text, other);
          return test(text, other);
        },
        cost,
      ];
    }
    const transform = STRING_TRANSFORMS.get(name);
    if (transform && !second && node.op === 'rcall') {
      return [
        (activation) => {
          const value = first(activation);
          if (typeof value !== 'string') return giveUp();
          chargeWalked(activation.budget, value);
          return transform(value);
        },
        cost,
      ];
    }
    if (name === 'string' && node.op === 'call' && !second) {
      const failure = this.absorbing > 0 ? giveUp : fails;
      return [(activation) => stringOf(first(activation), failure), cost];
    }
    if (name === 'size' && !second) {
      return [
        (activation) => {
          const value = first(activation);
          chargeWalked(activation.budget, value);
          return size(value);
        },
        cost,
      ];
    }
    if (node.op !== 'rcall') return undefined;
    if (name === LENIENT_OR_VALUE && second) {
      return [
        (activation) => {
          const value = first(activation);
          return lenientOrValue(value, second(activation));
        },
        cost,
      ];
    }
    if (name === 'hasValue' && !second) {
      return [
        (activation) => {
          const value = first(activation);
          return value instanceof Optional ? value.hasValue() : giveUp();
        },
        cost,
      ];
    }
    return undefined;
  }

  private absorbingErrors<T>(compile: () => T): T {
    this.absorbing++;
    try {
      return compile();
    } finally {
      this.absorbing--;
    }
  }

  /** all, exists, exists_one, filter and map, with one iteration variable. */
  private comprehension(node: ExpressionNode, scope: Scope): [Closure, number] | undefined {
    if (node.op !== 'rcall') return undefined;
    const [name, rangeNode, [variable, ...bodyNodes]] = node.args as [string, ExpressionNode, ExpressionNode[]];
    const bodies = name === 'map' ? [1, 2] : [1];
    if (!COMPREHENSIONS.has(name) || variable?.op !== 'id' || !bodies.includes(bodyNodes.length)) return undefined;
    const range = this.node(rangeNode, scope);
    const slot = this.slots++;
    const bodyScope = new Map(scope).set(variable.args as string, slot);
    const body = ABSORBING_COMPREHENSIONS.has(name)
      ? this.absorbingErrors(() => this.all(bodyNodes, bodyScope))
      : this.all(bodyNodes, bodyScope);
    if (!range || !body) return undefined;
    const [[predicate, transform], bodyCost] = body as [[Closure, Closure | undefined], number];
    const iterationCost = 1 + bodyCost;
    const items = (activation: Activation) => {
      const values = itemsOf(range.evaluate(activation));
      activation.budget.charge(values.length * iterationCost);
      return values;
    };
    return [COMPREHENSION_LOOPS[name]!(items, slot, predicate, transform), range.cost];
  }
}

const BINARY: Record<string, (a: unknown, b: unknown) => unknown> = {
  '==': scalarsEqual,
  '!=': (a, b) => !scalarsEqual(a, b),
  '<': (a, b) => compare(a, b) < 0,
  '<=': (a, b) => compare(a, b) <= 0,
  '>': (a, b) => compare(a, b) > 0,
  '>=': (a, b) => compare(a, b) >= 0,
  in: (a, b) => contains(b, a),
  '+': add,
};

type Loop = (items: (activation: Activation) => unknown[], slot: number, predicate: Closure, transform?: Closure) => Closure;

// Each iteration's cost is charged with the range, before the loop: an early exit only leaves units unused.
const COMPREHENSION_LOOPS: Record<string, Loop> = {
  all: (items, slot, predicate) => (activation) => {
    for (const item of items(activation)) {
      activation.frame[slot] = item;
      if (!boolean(predicate(activation))) return false;
    }
    return true;
  },
  exists: (items, slot, predicate) => (activation) => {
    for (const item of items(activation)) {
      activation.frame[slot] = item;
      if (boolean(predicate(activation))) return true;
    }
    return false;
  },
  exists_one: (items, slot, predicate) => (activation) => {
    let count = 0;
    for (const item of items(activation)) {
      activation.frame[slot] = item;
      if (boolean(predicate(activation))) count++;
    }
    return count === 1;
  },
  filter: (items, slot, predicate) => (activation) => {
    const kept: unknown[] = [];
    for (const item of items(activation)) {
      activation.frame[slot] = item;
      if (boolean(predicate(activation))) kept.push(item);
    }
    return kept;
  },
  map: (items, slot, predicate, transform) => (activation) => {
    const mapped: unknown[] = [];
    for (const item of items(activation)) {
      activation.frame[slot] = item;
      if (!transform) mapped.push(predicate(activation));
      else if (boolean(predicate(activation))) mapped.push(transform(activation));
    }
    return mapped;
  },
};

export type CompiledExpression = (bindings: Record<string, unknown>, budget: CostBudget) => unknown;

/** The expression (checked by the engine) as closures, or undefined when it uses something not handled here. */
export function compileExpression(root: ExpressionNode): CompiledExpression | undefined {
  const compiler = new Compiler();
  const compiled = compiler.node(root, new Map());
  if (!compiled) return undefined;
  const { evaluate, cost } = compiled;
  const slots = compiler.slots;
  return (bindings, budget) => {
    budget.charge(cost);
    return evaluate({ bindings, frame: new Array(slots), budget });
  };
}
