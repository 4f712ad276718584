// A JSON object as a request or a document holds it: a map of fields, never null or a list.
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
