// What audit-log may write about an object: never a Secret's values (`data`, `stringData`, and the
// `last-applied-configuration` annotation, which repeats them), never an environment variable's value
// (names and sources such as secretKeyRef are kept).
const REDACTED = '<redacted>';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

function redactValues(map: unknown): unknown {
  if (typeof map !== 'object' || map === null) return map;
  return Object.fromEntries(Object.keys(map).map((key) => [key, REDACTED]));
}

function redactNode(node: unknown, key?: string): unknown {
  if (Array.isArray(node)) return node.map((item) => redactNode(item, key));
  if (typeof node !== 'object' || node === null) return node;
  const entries = Object.entries(node).map(([name, value]) => {
    if (name === LAST_APPLIED) return [name, REDACTED];
    // An env entry: { name, value } or { name, valueFrom }.
    if (key === 'env' && name === 'value') return [name, REDACTED];
    return [name, redactNode(value, name)];
  });
  return Object.fromEntries(entries);
}

export function redactObject(object: unknown): unknown {
  const redacted = redactNode(object) as Record<string, unknown> | null;
  if (redacted && typeof redacted === 'object' && (redacted as { kind?: unknown }).kind === 'Secret') {
    if ('data' in redacted) redacted.data = redactValues(redacted.data);
    if ('stringData' in redacted) redacted.stringData = redactValues(redacted.stringData);
  }
  return redacted;
}
