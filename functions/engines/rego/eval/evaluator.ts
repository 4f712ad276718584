// OPA's top-down evaluation over the compiled form: a body is its literals in order, each a continuation of
// the one before, so iteration (`x[i]`, `some … in`, calls over iterated arguments) backtracks through the
// remaining literals; bindings live in the rule's frame and are undone on the way back. Every function
// here returns whether the continuation asked to stop (the first solution is enough for `not`, `every`,
// and a rule whose value is a constant). Documents under `data` are documents.ts's, unification
// unification.ts's.
import type { Builtin, BuiltinContext } from '../builtins/builtin.js';
import { BuiltinError, RegoError, type RegoLocation } from '../errors.js';
import type { CompiledPolicy } from '../compile/compile-policy.js';
import type { CompiledExpr, FunctionRef, CompiledLiteral, CompiledTerm } from '../compile/ir.js';
import { equal, keyOf, makeObject, RegoSet, sizeOf, type Value } from '../values.js';
import { entriesOf, isCollection, lookup } from '../collections.js';
import type { Each, Frame, Next, TermEvaluator } from './frame.js';
import type { EvalContext, FunctionReplacement } from './context.js';
import { Documents } from './documents.js';
import { direct, INDIRECT, knownSelector } from './direct.js';
import { Unification } from './unification.js';

export type { Frame, Next } from './frame.js';

export interface EvaluatorOptions {
  /** OPA's strict mode and `opa test`: a built-in's error is an error; else (OPA's default) the call is undefined. */
  strictBuiltinErrors: boolean;
  builtins: BuiltinContext;
}

/** A built-in walks its operands and makes its result: both are charged by their size, as CEL's calls are. */
function operandsSize(args: Value[]): number {
  let size = 0;
  for (let index = 0; index < args.length; index++) size += sizeOf(args[index]!);
  return size;
}

export class Evaluator implements TermEvaluator {
  readonly documents: Documents;
  readonly unification: Unification;

  constructor(
    readonly policy: CompiledPolicy,
    public ctx: EvalContext,
    readonly options: EvaluatorOptions,
  ) {
    this.documents = new Documents(this);
    this.unification = new Unification(this);
  }

  /** Charges one step; every literal, term and iteration is one. */
  step(units = 1): void {
    this.options.builtins.charge(units);
  }

  body(body: readonly CompiledLiteral[], index: number, frame: Frame, next: Next): boolean {
    if (index === body.length) return next() === true;
    return this.literal(body[index]!, frame, () => this.body(body, index + 1, frame, next));
  }

  literal(literal: CompiledLiteral, frame: Frame, next: Next): boolean {
    this.step();
    if (literal.withs.length > 0) return this.withModifiers(literal, frame, next);
    if (literal.negated) return this.expr(literal.expr, frame, () => true) ? false : next() === true;
    return this.expr(literal.expr, frame, next);
  }

  /** The literal in a context with input, data or functions replaced; what follows it, in the context before. */
  private withModifiers(literal: CompiledLiteral, frame: Frame, next: Next): boolean {
    const outer = this.ctx;
    let inner = outer;
    for (const modifier of literal.withs) {
      const target = modifier.target;
      if (target.kind === 'function' && modifier.replacement) {
        inner = inner.withFunction(target.name, { fn: modifier.replacement });
        continue;
      }
      const value = this.single(modifier.value, frame);
      if (value === undefined) return false;
      if (target.kind === 'input') inner = inner.withInput(target.path, value);
      else if (target.kind === 'data') inner = inner.withData(target.path, value);
      else inner = inner.withFunction(target.name, { value });
    }
    const resume = () => {
      this.ctx = outer;
      try {
        return next() === true;
      } finally {
        this.ctx = inner;
      }
    };
    this.ctx = inner;
    try {
      if (literal.negated) return this.expr(literal.expr, frame, () => true) ? false : resume();
      return this.expr(literal.expr, frame, resume);
    } finally {
      this.ctx = outer;
    }
  }

  private expr(expr: CompiledExpr, frame: Frame, next: Next): boolean {
    switch (expr.k) {
      case 'term':
        return this.term(expr.term, frame, (value) => (value === false ? false : next()));
      case 'unify':
        return this.unification.unify(expr.left, expr.right, frame, next);
      case 'somein':
        return this.term(expr.collection, frame, (collection) => {
          for (const [key, value] of entriesOf(collection)) {
            this.step();
            const halted = expr.key
              ? this.unification.unifyValue(expr.key, key, frame, () => this.unification.unifyValue(expr.value, value, frame, next))
              : this.unification.unifyValue(expr.value, value, frame, next);
            if (halted) return true;
          }
          return false;
        });
      case 'every':
        return this.term(expr.domain, frame, (domain) => {
          if (!isCollection(domain)) return false;
          for (const [key, value] of entriesOf(domain)) {
            this.step();
            let satisfied = false;
            const check = () => {
              satisfied = this.body(expr.body, 0, frame, () => true);
              return true;
            };
            if (expr.key)
              this.unification.unifyValue(expr.key, key, frame, () => this.unification.unifyValue(expr.value, value, frame, check));
            else this.unification.unifyValue(expr.value, value, frame, check);
            if (!satisfied) return false;
          }
          return next() === true;
        });
      case 'true':
        return next() === true;
    }
  }

  /** The first value of a term, or undefined: for `with` values and a function's constant replacements. */
  single(term: CompiledTerm, frame: Frame): Value | undefined {
    let found: Value | undefined;
    this.term(term, frame, (value) => {
      found = value;
      return true;
    });
    return found;
  }

  term(term: CompiledTerm, frame: Frame, each: Each): boolean {
    switch (term.t) {
      case 'const':
        return each(term.value) === true;
      case 'var': {
        const value = frame[term.slot];
        if (value === undefined) throw new RegoError('eval_type_error', `var ${term.name} is unbound`);
        return each(value) === true;
      }
      case 'input':
        return this.ctx.input === undefined ? false : each(this.ctx.input) === true;
      case 'data':
        return this.documents.data([], frame, each);
      case 'ref':
        return this.ref(term, frame, each);
      case 'array':
        return this.terms(term.items, 0, frame, new Array(term.items.length), (values) => each([...values]));
      case 'set':
        return this.terms(term.items, 0, frame, new Array(term.items.length), (values) => each(new RegoSet(values)));
      case 'object':
        return this.entries(term.entries, 0, frame, [], each);
      case 'arraycompr': {
        const items: Value[] = [];
        this.body(term.body, 0, frame, () => this.term(term.head, frame, (value) => void items.push(value)));
        return each(items) === true;
      }
      case 'setcompr': {
        const set = new RegoSet();
        this.body(term.body, 0, frame, () => this.term(term.head, frame, (value) => set.add(value)));
        return each(set) === true;
      }
      case 'objectcompr': {
        const entries = new Map<string, [Value, Value]>();
        this.body(term.body, 0, frame, () =>
          this.term(term.key, frame, (key) =>
            this.term(term.value, frame, (value) => {
              const id = keyOf(key);
              const existing = entries.get(id);
              if (existing && !equal(existing[1], value)) throw new RegoError('eval_conflict_error', 'object keys must be unique');
              entries.set(id, [key, value]);
            }),
          ),
        );
        return each(makeObject(entries.values())) === true;
      }
      case 'call':
        return this.call(term, frame, each);
    }
  }

  /** Every combination of the terms' values, in order. */
  terms(terms: readonly CompiledTerm[], index: number, frame: Frame, values: Value[], each: (values: Value[]) => unknown): boolean {
    if (index === terms.length) return each(values) === true;
    const term = terms[index]!;
    const known = direct(this, term, frame);
    if (known !== INDIRECT) {
      if (known === undefined) return false;
      values[index] = known;
      return this.terms(terms, index + 1, frame, values, each);
    }
    return this.term(term, frame, (value) => {
      values[index] = value;
      return this.terms(terms, index + 1, frame, values, each);
    });
  }

  /** An object's entries from `index` on, each key then its value, and the object they make. */
  private entries(
    entries: readonly [CompiledTerm, CompiledTerm][],
    index: number,
    frame: Frame,
    values: [Value, Value][],
    each: Each,
  ): boolean {
    if (index === entries.length) return each(makeObject(values.slice())) === true;
    const [key, value] = entries[index]!;
    return this.term(key, frame, (keyValue) =>
      this.term(value, frame, (valueValue) => {
        values[index] = [keyValue, valueValue];
        return this.entries(entries, index + 1, frame, values, each);
      }),
    );
  }

  private ref(term: CompiledTerm & { t: 'ref' }, frame: Frame, each: Each): boolean {
    const head = term.head;
    if (head.t === 'data') return this.documents.data(term.path, frame, each);
    if (head.t === 'input') return this.ctx.input === undefined ? false : this.walk(this.ctx.input, term.path, 0, frame, each);
    return this.term(head, frame, (value) => this.walk(value, term.path, 0, frame, each));
  }

  /** A value's selectors from `index` on: a var not bound iterates the collection, binding each key. */
  walk(value: Value, path: readonly CompiledTerm[], index: number, frame: Frame, each: Each): boolean {
    if (index === path.length) return each(value) === true;
    const part = path[index]!;
    if (part.t === 'var' && frame[part.slot] === undefined) {
      if (Array.isArray(value)) {
        for (let key = 0; key < value.length; key++) {
          this.step();
          frame[part.slot] = key;
          const halted = this.walk(value[key]!, path, index + 1, frame, each);
          frame[part.slot] = undefined;
          if (halted) return true;
        }
        return false;
      }
      for (const [key, child] of entriesOf(value)) {
        this.step();
        frame[part.slot] = key;
        const halted = this.walk(child, path, index + 1, frame, each);
        frame[part.slot] = undefined;
        if (halted) return true;
      }
      return false;
    }
    // A constant selector or a bound var's, the usual case, is looked up at once.
    const known = knownSelector(part, frame);
    if (known !== undefined) {
      const child = lookup(value, known);
      return child === undefined ? false : this.walk(child, path, index + 1, frame, each);
    }
    if (this.unification.isOpen(part, frame)) {
      for (const [key, child] of entriesOf(value)) {
        this.step();
        if (this.unification.unifyValue(part, key, frame, () => this.walk(child, path, index + 1, frame, each))) return true;
      }
      return false;
    }
    return this.term(part, frame, (key) => {
      const child = lookup(value, key);
      return child === undefined ? false : this.walk(child, path, index + 1, frame, each);
    });
  }

  private call(term: CompiledTerm & { t: 'call' }, frame: Frame, each: Each): boolean {
    const fn = term.fn;
    const output = fn.arity >= 0 && term.args.length === fn.arity + 1 ? term.args[fn.arity] : undefined;
    const inputs = output ? term.args.slice(0, fn.arity) : term.args;
    // Only a test's `with` replaces functions: an admission's evaluation looks none up.
    const replacements = this.ctx.functionReplacements;
    const replacement = replacements.size === 0 ? undefined : replacements.get(fn.name);
    // Arguments that need no continuation (most do not) are taken in a loop; from the first that does, terms().
    const args: Value[] = new Array(inputs.length);
    for (let index = 0; index < inputs.length; index++) {
      const known = direct(this, inputs[index]!, frame);
      if (known === undefined) return false;
      if (known === INDIRECT)
        return this.terms(inputs, index, frame, args, (values) => this.apply(term, replacement, output, values, frame, each));
      args[index] = known;
    }
    return this.apply(term, replacement, output, args, frame, each);
  }

  /** A call of `fn` on its arguments' values: its result, or its output argument unified with it. */
  private apply(
    call: CompiledTerm & { t: 'call' },
    replacement: FunctionReplacement | undefined,
    output: CompiledTerm | undefined,
    args: Value[],
    frame: Frame,
    each: Each,
  ): boolean {
    const fn = call.fn;
    if (fn.builtin?.enumerate && !replacement) {
      for (const result of this.enumerate(fn.builtin, args, call.at)) {
        this.step();
        if (output ? this.unification.unifyValue(output, result, frame, () => each(true)) : each(result) === true) return true;
      }
      return false;
    }
    const result = this.invoke(fn, replacement, args, call.at);
    if (result === undefined) return false;
    if (output) return this.unification.unifyValue(output, result, frame, () => each(true));
    return each(result) === true;
  }

  invoke(fn: FunctionRef, replacement: FunctionReplacement | undefined, args: Value[], at: RegoLocation): Value | undefined {
    this.step(1 + args.length);
    if (replacement) {
      if (!replacement.fn) return replacement.value;
      // A mock runs with no function mocked (it may call the function it replaces, which is then the original),
      // as OPA's evaluator runs one; `with` inside it mocks again.
      const outer = this.ctx;
      this.ctx = outer.withoutFunctionReplacements();
      try {
        return this.invoke(replacement.fn, undefined, args, at);
      } finally {
        this.ctx = outer;
      }
    }
    if (fn.builtin) return this.builtin(fn.builtin, args, at);
    return this.documents.call(fn.rule!, args);
  }

  private enumerate(builtin: Builtin, args: Value[], at: RegoLocation): Iterable<Value> {
    this.step(operandsSize(args));
    try {
      return [...builtin.enumerate!(args, this.options.builtins)];
    } catch (error) {
      this.builtinFailed(builtin, error, at);
      return [];
    }
  }

  private builtin(builtin: Builtin, args: Value[], at: RegoLocation): Value | undefined {
    this.step(operandsSize(args));
    let result: Value | undefined;
    try {
      result = builtin.call(args, this.options.builtins);
    } catch (error) {
      this.builtinFailed(builtin, error, at);
      return undefined;
    }
    const resultSize = result === undefined ? 0 : sizeOf(result);
    if (resultSize > 0) this.step(resultSize);
    return result;
  }

  /**
   * A built-in's own error makes its call undefined, as OPA's default does; in strict mode (and for OPA's
   * `opa eval --strict-builtin-errors`) it is an error, named for the built-in. Anything else (a conflict the
   * built-in raised, the cost budget) ends the evaluation.
   */
  private builtinFailed(builtin: Builtin, error: unknown, at: RegoLocation): void {
    if (!(error instanceof BuiltinError)) throw error;
    if (this.options.strictBuiltinErrors) throw new RegoError(error.code, `${builtin.name}: ${error.message}`, at);
  }
}
