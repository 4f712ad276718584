// A key written twice in one JSON object, which JSON.parse lets silently win and YAML refuses: a rules
// document stored as JSON must not mean something else than the same document read as YAML. One linear
// pass over text that JSON.parse has already accepted.

// The characters that open, close or separate, and the quote that starts a string: the scan jumps from one
// to the next with the regular expression engine rather than looking at every character itself.
const STRUCTURE = /["{}[\],]/g;

/** The index of the quote that ends the string whose opening quote is at `start`. */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  for (;;) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

/** The first key that one object of valid JSON `text` has twice, or undefined. */
export function duplicateJsonKey(text: string): string | undefined {
  // One entry per open container: the keys seen so far for an object, null for an array.
  const open: (Set<string> | null)[] = [];
  let expectingKey = false;
  const structure = new RegExp(STRUCTURE);
  // test() and lastIndex rather than exec(): no match array per character found.
  while (structure.test(text)) {
    const i = structure.lastIndex - 1;
    switch (text.charCodeAt(i)) {
      case 0x22 /* " */:
        {
          const end = stringEnd(text, i);
          if (expectingKey) {
            const raw = text.slice(i + 1, end);
            const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw; // "\u0061" and "a" are one key
            const keys = open[open.length - 1]!;
            if (keys.has(key)) return key;
            keys.add(key);
            expectingKey = false;
          }
          structure.lastIndex = end + 1;
          break;
        }
      case 0x7b /* { */:
        open.push(new Set());
        expectingKey = true;
        break;
      case 0x5b /* [ */:
        open.push(null);
        break;
      case 0x2c /* , */:
        expectingKey = open[open.length - 1] != null;
        break;
      default: // } or ]
        open.pop();
    }
  }
  return undefined;
}
