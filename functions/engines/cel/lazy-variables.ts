// ValidatingAdmissionPolicy's `variables`, evaluated as Kubernetes does: lazily, each on its first use and at
// most once per request, so a variable that a matchCondition makes irrelevant is never evaluated (and cannot
// fail the request). The engine reads a map binding with get() at access time; this Map answers get() by
// evaluating the variable. An evaluation error is kept and thrown again on every use.
const EVALUATING = Symbol('being evaluated');

class Failure {
  constructor(readonly error: unknown) {}
}

/** What gives a variable's value from its source. */
export interface VariableEvaluator<Source> {
  variable(source: Source, name: string): unknown;
}

export class LazyVariables<Source> extends Map<string, unknown> {
  /** `declared`: each variable's source, made once per rules version; `evaluator` gives a source's value. */
  constructor(
    private readonly declared: ReadonlyMap<string, Source>,
    private readonly evaluator: VariableEvaluator<Source>,
  ) {
    super();
  }

  // The Map itself keeps each variable's state: absent (not yet used), EVALUATING, its value or its Failure.
  // One collection per rule and request, where separate sets of those in evaluation and failed were three.
  override get(name: string): unknown {
    if (super.has(name)) {
      const state = super.get(name);
      if (state === EVALUATING) throw new Error(`variables.${name} refers to itself`);
      if (state instanceof Failure) throw state.error;
      return state;
    }
    const source = this.declared.get(name);
    if (source === undefined) return undefined;
    super.set(name, EVALUATING);
    try {
      const value = this.evaluator.variable(source, name);
      super.set(name, value);
      return value;
    } catch (error) {
      super.set(name, new Failure(error));
      throw error;
    }
  }

  override has(name: string): boolean {
    return this.declared.has(name);
  }

  override get size(): number {
    return this.declared.size;
  }

  override *entries(): MapIterator<[string, unknown]> {
    for (const name of this.declared.keys()) yield [name, this.get(name)];
  }

  override keys(): MapIterator<string> {
    return this.declared.keys();
  }

  override *values(): MapIterator<unknown> {
    for (const [, value] of this.entries()) yield value;
  }

  override [Symbol.iterator](): MapIterator<[string, unknown]> {
    return this.entries();
  }

  override forEach(callback: (value: unknown, key: string, map: Map<string, unknown>) => void): void {
    for (const [name, value] of this.entries()) callback(value, name, this);
  }
}

// The engine recognises maps by their constructor: to it, this is a Map (set once, not per instance).
Object.defineProperty(LazyVariables.prototype, 'constructor', { value: Map });
