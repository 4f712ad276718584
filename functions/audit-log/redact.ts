// What audit-log may write about an object: never a Secret's values (`data`, `stringData`, and the
// `last-applied-configuration` annotation, which repeats them), never an environment variable's value
// (names and sources such as secretKeyRef are kept). Parts nested beyond 200 levels are left out, so a deep
// object is still recorded rather than exhausting the stack.
const REDACTED = '<redacted>';
/** Deeper parts of an object are left out of the record (the copy and its log line recurse). */
const MAX_RECORDED_DEPTH = 200;
const TOO_DEEP = `<nested more than ${MAX_RECORDED_DEPTH} levels: left out>`;
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

function redactValues(map: unknown): unknown {
  if (typeof map !== 'object' || map === null) return map;
  return Object.fromEntries(Object.keys(map).map((key) => [key, REDACTED]));
}

function redactNode(node: unknown, key: string | undefined, depth: number): unknown {
  if (typeof node !== 'object' || node === null) return node;
  if (depth > MAX_RECORDED_DEPTH) return TOO_DEEP;
  if (Array.isArray(node)) return node.map((item) => redactNode(item, key, depth + 1));
  const entries = Object.entries(node).map(([name, value]) => {
    if (name === LAST_APPLIED) return [name, REDACTED];
    // An env entry: { name, value } or { name, valueFrom }.
    if (key === 'env' && name === 'value') return [name, REDACTED];
    return [name, redactNode(value, name, depth + 1)];
  });
  return Object.fromEntries(entries);
}

export function redactObject(object: unknown): unknown {
  const redacted = redactNode(object, undefined, 1) as Record<string, unknown> | null;
  if (redacted && typeof redacted === 'object' && (redacted as { kind?: unknown }).kind === 'Secret') {
    if ('data' in redacted) redacted.data = redactValues(redacted.data);
    if ('stringData' in redacted) redacted.stringData = redactValues(redacted.stringData);
  }
  return redacted;
}
