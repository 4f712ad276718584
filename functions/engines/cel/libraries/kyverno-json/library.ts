// Kyverno's json library for CEL: json.unmarshal, as Go's encoding/json decodes into `any`.
import { PROTOTYPE_KEYS } from '../../values.js';
import type { CelLibrary } from '../cel-library.js';

// A JSON object with a key Object.prototype has becomes a Map, as toCel makes it (program.ts).
const hasPrototypeKey = (value: object) => Object.keys(value).some((key) => PROTOTYPE_KEYS.has(key));

/**
 * JSON text as Go's encoding/json decodes it into `any`, and Kyverno hands it to CEL: objects are maps,
 * every number is a double (not an int), invalid text is an error.
 */
export function unmarshal(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown) =>
    typeof value === 'object' && value !== null && !Array.isArray(value) && hasPrototypeKey(value) ? new Map(Object.entries(value)) : value,
  );
}

export const kyvernoJsonLibrary: CelLibrary = {
  name: 'kyverno.json',
  kyvernoOnly: true,
  namespaces: [{ constant: 'json' }],
  functions: { 'json.unmarshal(string): dyn': (_namespace: unknown, text: string) => unmarshal(text) },
};
