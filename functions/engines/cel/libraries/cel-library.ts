// A CEL library as data, as Kyverno's `pkg/cel/libs/<lib>` declares each: its name, the namespaces and types it
// adds, and its functions by signature. The environment registers a library from this alone, and the names an
// expression must mention for the libraries to be registered come from the same declarations.
import type { Environment } from '@marcbachmann/cel-js';

// biome-ignore lint/suspicious/noExplicitAny: an overload's arguments are typed by its signature, not here
type Implementation = (...args: any[]) => unknown;

export interface CelLibrary {
  /** As upstream names it: `kubernetes.quantity`, `kyverno.image`. */
  name: string;
  /** Kyverno's own: the API server's CEL environment lacks it, so a webhook matchCondition cannot call it. */
  kyvernoOnly?: boolean;
  /**
   * Namespaces of functions (`sets.contains`): a constant of a type of its own, whose methods are the
   * functions. `type` names that type when it differs (`ip` is a function too, so its namespace's type is `ipNamespace`).
   */
  namespaces?: readonly { constant: string; type?: string }[];
  /** Types by CEL name (`net.IP`) and the class whose instances are its values. */
  types?: Readonly<Record<string, new (...args: never[]) => unknown>>;
  /** Overloads by signature (`Quantity.add(int): Quantity`, `sets.contains(list, list): bool`). */
  functions: Readonly<Record<string, Implementation>>;
}

export function registerLibrary(env: Environment, library: CelLibrary): void {
  for (const { constant, type = constant } of library.namespaces ?? []) {
    const namespace = class {};
    Object.defineProperty(namespace, 'name', { value: type });
    env.registerType(type, namespace);
    env.registerConstant(constant, type, new namespace());
  }
  for (const [name, type] of Object.entries(library.types ?? {})) env.registerType(name, type);
  for (const [signature, implementation] of Object.entries(library.functions)) env.registerFunction(signature, implementation);
}

/** The function a signature declares an overload of: `add` in `Quantity.add(int): Quantity`. */
export const functionNameOf = (signature: string): string => /(\w+)\(/.exec(signature)?.[1] ?? signature;

/** The functions the libraries declare overloads of. */
export function functionNamesOf(libraries: readonly CelLibrary[]): Set<string> {
  const names = new Set<string>();
  for (const library of libraries) for (const signature of Object.keys(library.functions)) names.add(functionNameOf(signature));
  return names;
}

/** The identifiers they add: namespaces' constants and types, and the first part of each type's name (`net`). */
export function identifiersOf(libraries: readonly CelLibrary[]): Set<string> {
  const names = new Set<string>();
  for (const library of libraries) {
    for (const { constant, type = constant } of library.namespaces ?? []) names.add(constant).add(type.split('.')[0]!);
    for (const type of Object.keys(library.types ?? {})) names.add(type.split('.')[0]!);
  }
  return names;
}
