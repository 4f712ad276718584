// CEL's object construction, `Object{spec: Object.spec{replicas: 3}}` and `JSONPatch{op: "add", ...}`, which
// MutatingAdmissionPolicy's expressions write and the engine does not parse, rewritten into the map literal it
// means before the expression is compiled: the type's name becomes `dyn(`, each field name a string key. The
// rewrite reads the expression's tokens (strings, comments and all), so text inside a string is never taken
// for a construction. Mutation expressions only: in a validating expression a construction is an error, as
// it is in Kubernetes.

export type Token = { kind: 'identifier' | 'string' | 'other' | 'space'; text: string; start: number };

const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /(?:0x[0-9a-fA-F]+|[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)[uU]?/y;
const SPACE = /(?:\s+|\/\/[^\n]*)+/y;
const STRING_PREFIX = /[rRbB]{0,2}(?='|")/y;

/** Where the string literal starting at `start` (after any r/b prefix) ends. */
function stringEnd(source: string, start: number, raw: boolean): number {
  const quote = source.startsWith("'''", start) || source.startsWith('"""', start) ? source.slice(start, start + 3) : source[start]!;
  let at = start + quote.length;
  while (at < source.length) {
    if (!raw && source[at] === '\\') {
      at += 2;
      continue;
    }
    if (source.startsWith(quote, at)) return at + quote.length;
    if (quote.length === 1 && source[at] === '\n') break;
    at++;
  }
  throw new Error(`unterminated string at ${start}`);
}

export function tokensOf(source: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  const sticky = (pattern: RegExp) => {
    pattern.lastIndex = at;
    return pattern.exec(source)?.[0];
  };
  while (at < source.length) {
    const space = sticky(SPACE);
    if (space) {
      tokens.push({ kind: 'space', text: space, start: at });
      at += space.length;
      continue;
    }
    const prefix = sticky(STRING_PREFIX);
    if (prefix !== undefined) {
      const end = stringEnd(source, at + prefix.length, /r/i.test(prefix));
      tokens.push({ kind: 'string', text: source.slice(at, end), start: at });
      at = end;
      continue;
    }
    const word = sticky(IDENTIFIER) ?? sticky(NUMBER);
    const text = word ?? source[at]!;
    tokens.push({ kind: word && /^[A-Za-z_]/.test(word) ? 'identifier' : 'other', text, start: at });
    at += text.length;
  }
  return tokens;
}

// After these a name starts an expression (a primary), where a construction may stand.
const STARTS_EXPRESSION = new Set(['(', '[', '{', ',', ':', '?', '!', '-', '+', '*', '/', '%', '<', '>', '=', '&', '|', 'in']);

/** A construction's type name, and the name its place requires: its parent's name and the field it is in. */
export interface Construction {
  name: string;
  expected?: string;
}

/** The rewrite, and the constructions it found in source order. */
function rewrite(source: string): { rewritten: string; constructions: Construction[] } {
  const significant = tokensOf(source).filter((token) => token.kind !== 'space');
  // The rewrite as edits of the source, so everything else is kept as written.
  const edits: { start: number; end: number; text: string }[] = [];
  const constructions: Construction[] = [];
  // One frame per open bracket: a construction's has its type name and the field whose value is being read.
  const frames: { construction?: { name: string; field?: string }; expectingField: boolean }[] = [];
  for (let index = 0; index < significant.length; index++) {
    const token = significant[index]!;
    const previous = significant[index - 1];
    const frame = frames.at(-1);
    if (frame?.construction && frame.expectingField && token.text !== '}') {
      if (token.text === '?') throw new Error('optional field initializers (?field:) are not supported');
      if (token.kind !== 'identifier' || significant[index + 1]?.text !== ':')
        throw new Error(`expected a field name and ':' in an object construction, found ${JSON.stringify(token.text)}`);
      edits.push({ start: token.start, end: token.start + token.text.length, text: JSON.stringify(token.text) });
      frame.construction.field = token.text;
      frame.expectingField = false;
      continue;
    }
    if (token.kind === 'identifier' && (!previous || STARTS_EXPRESSION.has(previous.text))) {
      // A type name, dotted, right before `{`: a construction.
      let end = index;
      while (significant[end + 1]?.text === '.' && significant[end + 2]?.kind === 'identifier') end += 2;
      const brace = significant[end + 1];
      if (brace?.text === '{') {
        const name = significant
          .slice(index, end + 1)
          .map((part) => part.text)
          .join('');
        const parent = [...frames].reverse().find((open) => open.construction)?.construction;
        constructions.push({ name, expected: parent && `${parent.name}.${parent.field}` });
        // As `dyn`, so constructions of different shapes type alike, as Kubernetes' Object types do.
        edits.push({ start: token.start, end: brace.start, text: 'dyn(' });
        frames.push({ construction: { name }, expectingField: true });
        index = end + 1;
        continue;
      }
    }
    if (token.text === '{' || token.text === '(' || token.text === '[') frames.push({ expectingField: false });
    else if (token.text === '}' || token.text === ')' || token.text === ']') {
      if (token.text === '}' && frame?.construction) edits.push({ start: token.start + 1, end: token.start + 1, text: ')' });
      frames.pop();
    } else if (token.text === ',' && frame?.construction) frame.expectingField = true;
  }
  let rewritten = source;
  for (const { start, end, text } of edits.reverse()) rewritten = rewritten.slice(0, start) + text + rewritten.slice(end);
  return { rewritten, constructions };
}

/** The expression with each object construction written as a map literal; throws on what cannot be rewritten. */
export const withObjectsAsMaps = (source: string): string => rewrite(source).rewritten;

/**
 * What Kubernetes refuses in an ApplyConfiguration's type names: a nested construction must be named for the
 * field path it is in (`Object.spec{...}` under `spec:`), and one that opens the expression must be `Object`.
 */
export function applyConfigurationTypeProblem(source: string): string | undefined {
  const constructions = rewrite(source).constructions;
  const first = constructions[0];
  if (first && first.name !== 'Object' && source.trimStart().startsWith(first.name)) return `must evaluate to Object but got ${first.name}`;
  const wrong = constructions.find(({ name, expected }) => expected !== undefined && name !== expected);
  return (
    wrong &&
    `type mismatch: unexpected type name ${JSON.stringify(wrong.name)}, expected ${JSON.stringify(wrong.expected)}, which matches field name path from root Object type`
  );
}

/** Whether the expression may construct an object: a name right before `{`, outside strings. */
export const mayConstructObjects = (source: string) => /[A-Za-z0-9_]\s*\{/.test(source);
