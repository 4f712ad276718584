// ValidatingAdmissionPolicy's `variables`, evaluated as Kubernetes does: lazily, each on its first use and at
// most once per request, so a variable that a matchCondition makes irrelevant is never evaluated (and cannot
// fail the request). The engine reads a map binding with get() at access time; this Map answers get() by
// evaluating the variable. An evaluation error is kept and thrown again on every use.
export class LazyVariables extends Map<string, unknown> {
  private readonly evaluating = new Set<string>();
  private readonly failures = new Map<string, unknown>();

  constructor(
    private readonly declared: ReadonlyMap<string, () => unknown>,
  ) {
    super();
  }

  override get(name: string): unknown {
    if (super.has(name)) return super.get(name);
    const evaluate = this.declared.get(name);
    if (!evaluate) return undefined;
    if (this.failures.has(name)) throw this.failures.get(name);
    if (this.evaluating.has(name)) throw new Error(`variables.${name} refers to itself`);
    this.evaluating.add(name);
    try {
      const value = evaluate();
      super.set(name, value);
      return value;
    } catch (error) {
      this.failures.set(name, error);
      throw error;
    } finally {
      this.evaluating.delete(name);
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
