// Base64 as OPA's Go reads it where the exact error matters (the JWT and certificate built-ins):
// base64url.decode's padding step (`illegal base64url string`), then Go's encoding/base64 decoder (URL or
// standard alphabet), non-strict, with its own error,
// `illegal base64 data at input byte N` at the byte Go names. Bytes, not text: a signature is not UTF-8.
import { BuiltinError } from '../errors.js';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const valuesOf = (alphabet: string) => new Map([...alphabet].map((char, index) => [char, index]));
const URL_VALUES = valuesOf(`${LETTERS}-_`);
const STD_VALUES = valuesOf(`${LETTERS}+/`);

const corrupt = (at: number) => new BuiltinError(`illegal base64 data at input byte ${at}`);
const isNewline = (char: string | undefined) => char === '\n' || char === '\r';

/** Go's base64 DecodeString for an alphabet: padded, newlines skipped, the first corrupt byte named. */
function goDecode(text: string, values: Map<string, number>): Buffer {
  const bytes: number[] = [];
  let index = 0;
  for (;;) {
    const quantum = [0, 0, 0, 0];
    let length = 4;
    for (let j = 0; j < 4; j++) {
      if (index === text.length) {
        if (j === 0) return Buffer.from(bytes);
        throw corrupt(index - j);
      }
      const char = text[index++]!;
      const value = values.get(char);
      if (value !== undefined) {
        quantum[j] = value;
        continue;
      }
      if (isNewline(char)) {
        j--;
        continue;
      }
      if (char !== '=' || j < 2) throw corrupt(index - 1);
      if (j === 2) {
        // "==" is expected: the first is taken.
        while (index < text.length && isNewline(text[index])) index++;
        if (index === text.length) throw corrupt(text.length);
        if (text[index] !== '=') throw corrupt(index - 1);
        index++;
      }
      while (index < text.length && isNewline(text[index])) index++;
      if (index < text.length) throw corrupt(index);
      length = j;
      break;
    }
    const value = (quantum[0]! << 18) | (quantum[1]! << 12) | (quantum[2]! << 6) | quantum[3]!;
    bytes.push((value >> 16) & 0xff);
    if (length > 2) bytes.push((value >> 8) & 0xff);
    if (length > 3) bytes.push(value & 0xff);
    if (length < 4) return Buffer.from(bytes);
  }
}

/** OPA's base64url.decode: padding added where the length says it is missing, then Go's decoder. */
export function base64UrlBytes(text: string): Buffer {
  let padded = text;
  if (!text.endsWith('=')) {
    const remainder = text.length % 4;
    if (remainder === 1) throw new BuiltinError(`illegal base64url string: ${text}`);
    padded += '='.repeat((4 - remainder) % 4);
  }
  return goDecode(padded, URL_VALUES);
}

/** Go's base64.StdEncoding.DecodeString. */
export const base64StdBytes = (text: string): Buffer => goDecode(text, STD_VALUES);

export const base64UrlText = (bytes: Uint8Array | string): string => Buffer.from(bytes).toString('base64url');
