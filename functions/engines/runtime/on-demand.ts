// A part of an engine loaded the first time a rule needs it (an engine's evaluator, CEL's mutation, RE2), so
// a function whose rules never need it never loads it. Using it before its load is a programming error,
// said as such: the engine's load() runs before a rule is read or run.
export class OnDemand<T> {
  #part: T | undefined;

  constructor(
    private readonly importPart: () => Promise<T>,
    /** The error when the part is used before its load. */
    private readonly notLoaded: string,
  ) {}

  get loaded(): boolean {
    return this.#part !== undefined;
  }

  async load(): Promise<void> {
    this.#part ??= await this.importPart();
  }

  get(): T {
    if (this.#part === undefined) throw new Error(this.notLoaded);
    return this.#part;
  }
}
