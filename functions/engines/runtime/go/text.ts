// A JSON value as Go's `%v` (fmt.Sprint) prints it, which Kyverno's messages and its In-family operators
// use: `<nil>`, `[a b]`, `map[k:v]` with sorted keys.
import { isJsonObject } from '../../../admission/kubernetes/json-object.js';

export function goText(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goText).join(' ')}]`;
  if (isJsonObject(value))
    return `map[${Object.keys(value)
      .sort()
      .map((key) => `${key}:${goText(value[key])}`)
      .join(' ')}]`;
  return String(value);
}
