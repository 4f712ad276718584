// PEM as Go's encoding/pem reads it: the first well-formed block anywhere in the text, its type and bytes,
// and what follows it, so a caller can walk several blocks as Go's pem.Decode loop does.
/** One line of PEM text and what follows its newline (Go's pem getLine: trailing spaces and tabs dropped). */
function line(text: string): [string, string] {
  const end = text.indexOf('\n');
  const [first, rest] = end === -1 ? [text, ''] : [text.slice(0, end), text.slice(end + 1)];
  return [first.replace(/[ \t\r]+$/, ''), rest];
}

/** The first PEM block of `text` (Go's pem.Decode), and what comes after it. */
export function pemBlock(text: string): { type: string; bytes: Buffer; rest: string } | undefined {
  let rest = text;
  for (;;) {
    const begin = rest.startsWith('-----BEGIN ') ? 0 : rest.indexOf('\n-----BEGIN ');
    if (begin === -1) return undefined;
    rest = rest.slice(begin + (begin === 0 ? 0 : 1) + '-----BEGIN '.length);
    const [typeLine, body] = line(rest);
    if (!typeLine.endsWith('-----')) continue;
    const type = typeLine.slice(0, -5);
    const end = body.startsWith('-----END ') ? 0 : body.indexOf('\n-----END ');
    // No END after this BEGIN means none after any later one: the search would only repeat itself.
    if (end === -1) return undefined;
    const trailer = body.slice(end + (end === 0 ? 0 : 1) + '-----END '.length);
    if (!trailer.startsWith(`${type}-----`) || line(trailer.slice(type.length + 5))[0] !== '') continue;
    const encoded = body.slice(0, end).replace(/[ \t\r\n]/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) continue;
    return { type, bytes: Buffer.from(encoded, 'base64'), rest: line(trailer)[1] };
  }
}
