// What one evaluation reads besides the policy: the input, the base data, and the values rules computed
// (cached, so each rule is evaluated once per evaluation). A `with` modifier evaluates its literal in a
// context of its own: input or data replaced at a path, or a function replaced by another or by a value,
// and a cache of its own, since what rules compute there may differ.
import type { FunctionRef, RuleGroup } from '../compile/ir.js';
import { defineKey, isPlainObject, type PlainObject, type Value } from '../values.js';

export interface FunctionReplacement {
  value?: Value;
  fn?: FunctionRef;
}

export class EvalContext {
  /** Computed documents by group (complete, set and object rules) and function results by arguments. */
  readonly documents = new Map<RuleGroup, Value | undefined>();
  readonly calls = new Map<RuleGroup, Map<string, Value | undefined>>();
  readonly packages = new Map<string, Value>();

  constructor(
    readonly input: Value | undefined,
    readonly data: Value,
    /** `with data.a.b as v`: replaced paths under data, the innermost last. */
    readonly dataReplacements: readonly { path: string[]; value: Value }[] = [],
    readonly functionReplacements: ReadonlyMap<string, FunctionReplacement> = new Map(),
  ) {}

  withInput(path: readonly string[], value: Value): EvalContext {
    return new EvalContext(replaced(this.input, path, value), this.data, this.dataReplacements, this.functionReplacements);
  }

  withData(path: readonly string[], value: Value): EvalContext {
    return new EvalContext(this.input, this.data, [...this.dataReplacements, { path: [...path], value }], this.functionReplacements);
  }

  private plain?: EvalContext;

  /** This context with no function replaced (kept: a mock called again reuses its cache). */
  withoutFunctionReplacements(): EvalContext {
    if (this.functionReplacements.size === 0) return this;
    return (this.plain ??= new EvalContext(this.input, this.data, this.dataReplacements));
  }

  withFunction(name: string, replacement: FunctionReplacement): EvalContext {
    const functions = new Map(this.functionReplacements);
    functions.set(name, replacement);
    return new EvalContext(this.input, this.data, this.dataReplacements, functions);
  }

  /** The replacement of data at `path` or above it, and the rest of the path below it. */
  dataReplacementAt(path: readonly string[]): { value: Value; rest: string[] } | undefined {
    for (let index = this.dataReplacements.length - 1; index >= 0; index--) {
      const replacement = this.dataReplacements[index]!;
      if (replacement.path.length <= path.length && replacement.path.every((part, at) => part === path[at]))
        return { value: replacement.value, rest: path.slice(replacement.path.length) };
    }
    return undefined;
  }

  /** Replacements strictly below `path`: what a package's or rule's computed value must show instead. */
  dataReplacementsBelow(path: readonly string[]): { path: string[]; value: Value }[] {
    return this.dataReplacements.filter(
      (replacement) => replacement.path.length > path.length && path.every((part, at) => part === replacement.path[at]),
    );
  }
}

/** `document` with `value` at `path` (objects made along the way); the document itself is not changed. */
export function replaced(document: Value | undefined, path: readonly string[], value: Value): Value {
  if (path.length === 0) return value;
  const base: PlainObject = isPlainObject(document) ? document : {};
  const copy: PlainObject = {};
  for (const key of Object.keys(base)) defineKey(copy, key, base[key]!);
  const [first, ...rest] = path;
  defineKey(copy, first!, replaced(Object.hasOwn(base, first!) ? base[first!] : undefined, rest, value));
  return copy;
}
