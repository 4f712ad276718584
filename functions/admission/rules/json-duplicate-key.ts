// A key written twice in one JSON object, which JSON.parse lets silently win and YAML refuses: a rules
// document stored as JSON must not mean something else than the same document read as YAML. One linear
// pass over text that JSON.parse has already accepted.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The first key that one object of valid JSON `text` has twice, or undefined. */
export function duplicateJsonKey(text: string): string | undefined {
  // One entry per open container: the keys seen so far for an object, null for an array.
  const open: (Set<string> | null)[] = [];
  let expectingKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let end = i + 1;
      while (text.charCodeAt(end) !== QUOTE) end += text.charCodeAt(end) === BACKSLASH ? 2 : 1;
      if (expectingKey) {
        const raw = text.slice(i + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw; // "\u0061" and "a" are one key
        const keys = open[open.length - 1]!;
        if (keys.has(key)) return key;
        keys.add(key);
        expectingKey = false;
      }
      i = end;
    } else if (c === 0x7b /* { */) {
      open.push(new Set());
      expectingKey = true;
    } else if (c === 0x5b /* [ */) {
      open.push(null);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      open.pop();
    } else if (c === 0x2c /* , */) {
      expectingKey = open[open.length - 1] != null;
    }
  }
  return undefined;
}
