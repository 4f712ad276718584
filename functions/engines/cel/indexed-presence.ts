// `has(a.b[i].c)`, `has(f(x).c)`: CEL's presence test of a field selected from an indexed value or a call's,
// which Kubernetes' and Kyverno's policies write (`has(object.spec.containers[idx].env)`,
// `has(image.GetMetadata(ref).manifest.annotations)`) and the engine does not parse (it takes has() of a
// dotted name only). Rewritten before the expression is compiled into the test it means on a map,
// `"c" in a.b[i]`; has() of a dotted name is left as written. Read token by token, so text in strings and
// comments is never rewritten.
import { tokensOf } from './object-construction.js';

/** Whether the expression may hold such a test: has( followed, before its `)`, by a `[` or a `(`. */
export const mayTestIndexedPresence = (source: string) => /\bhas\s*\([^)]*[[(]/.test(source);

export function withIndexedPresence(source: string): string {
  const tokens = tokensOf(source).filter((token) => token.kind !== 'space');
  const edits: { start: number; end: number; text: string }[] = [];
  for (let index = 0; index < tokens.length; index++) {
    if (tokens[index]!.text !== 'has' || tokens[index + 1]?.text !== '(' || tokens[index - 1]?.text === '.') continue;
    // The argument: everything up to the matching `)`.
    let depth = 0;
    let close = index + 1;
    for (; close < tokens.length; close++) {
      const text = tokens[close]!.text;
      if (text === '(' || text === '[' || text === '{') depth++;
      else if (text === ')' || text === ']' || text === '}') depth--;
      if (depth === 0) break;
    }
    const argument = tokens.slice(index + 2, close);
    const field = argument.at(-1);
    const dot = argument.at(-2);
    if (field?.kind !== 'identifier' || dot?.text !== '.' || !argument.some((token) => token.text === '[' || token.text === '(')) continue;
    const operand = source.slice(argument[0]!.start, dot.start);
    edits.push({ start: tokens[index]!.start, end: tokens[close]!.start + 1, text: `(${JSON.stringify(field.text)} in ${operand})` });
    index = close;
  }
  let rewritten = source;
  for (const { start, end, text } of edits.reverse()) rewritten = rewritten.slice(0, start) + text + rewritten.slice(end);
  return rewritten;
}
