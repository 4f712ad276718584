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
import { DROPPED_MAP_KEYS, type ExpressionNode, LENIENT_OR_VALUE, lenientOrValue } from './environment.js';
import { chargeWalked } from './metering.js';
import { units } from '../runtime/size-units.js';
import { isPlainMap } from './values.js';
import type { CostBudget } from '../runtime/cost-budget.js';
import {
  ABSORBING_COMPREHENSIONS,
  type Activation,
  BINARY,
  boolean,
  type Closure,
  type Compiled,
  COMPREHENSION_LOOPS,
  COMPREHENSIONS,
  fails,
  giveUp,
  index,
  indexOptional,
  itemsOf,
  ROOT_VARIABLES,
  select,
  selectOptional,
  size,
  STRING_TESTS,
  STRING_TRANSFORMS,
  stringOf,
  strings,
} from './fast-path-values.js';
export { certainlyFails, gaveUp } from './fast-path-values.js';

type Scope = ReadonlyMap<string, number>;

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
