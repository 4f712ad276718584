// Gatekeeper's location syntax (pkg/mutation/path): fields separated by dots, each a name of letters, digits,
// `_` and `-` or a quoted string ('…' or "…", `\` escaping the next character), and after a field a list
// selector `[key: value]` or `[key: *]` that picks the list's members by a key field. Errors are worded as
// Gatekeeper's parser words them, so an upload refused here reads as Gatekeeper would refuse it.

export type PathNode = { type: 'object'; reference: string } | { type: 'list'; keyField: string; keyValue?: string; glob: boolean };

export type Location = readonly PathNode[];

type Token = { type: 'ident' | '.' | '[' | ']' | '*' | ':' | 'eof' | 'error'; text: string; at: number };

const isNameCharacter = (character: string) => /^[A-Za-z0-9_-]$/.test(character);
const isSpace = (character: string) => character === ' ' || character === '\t' || character === '\r' || character === '\n';

function tokensOf(input: string): Token[] {
  const characters = [...input];
  const tokens: Token[] = [];
  let at = 0;
  while (true) {
    while (at < characters.length && isSpace(characters[at]!)) at++;
    const character = characters[at];
    if (character === undefined) {
      tokens.push({ type: 'eof', text: '', at });
      return tokens;
    }
    if ('.[]*:'.includes(character)) {
      tokens.push({ type: character as Token['type'], text: character, at: at++ });
    } else if (character === '"' || character === "'") {
      const start = at++;
      let text = '';
      while (at < characters.length && characters[at] !== character) {
        if (characters[at] === '\\') at++;
        if (at < characters.length) text += characters[at++];
      }
      if (at >= characters.length) throw new LocationError(`error at position ${characters.length}: unterminated string`);
      at++;
      tokens.push({ type: 'ident', text, at: start });
    } else if (isNameCharacter(character)) {
      const start = at;
      while (at < characters.length && isNameCharacter(characters[at]!)) at++;
      tokens.push({ type: 'ident', text: characters.slice(start, at).join(''), at: start });
    } else {
      throw new LocationError(`error at position ${at}: invalid character ${JSON.stringify(character)}`);
    }
  }
}

export class LocationError extends Error {}

const describe = (token: Token) =>
  token.type === 'eof' ? 'EOF' : `${token.type === 'ident' ? 'IDENT' : token.type} ${JSON.stringify(token.text)}`;

/** The location's nodes, or a LocationError saying where and what was expected. */
export function parseLocation(input: string): Location {
  const tokens = tokensOf(input);
  let index = 0;
  const peek = () => tokens[index]!;
  const expect = (type: Token['type'], what: string): Token => {
    const token = peek();
    if (token.type !== type) throw new LocationError(`${what}, got: ${describe(token)}`);
    index++;
    return token;
  };
  const nodes: PathNode[] = [];
  while (peek().type === 'ident') {
    nodes.push({ type: 'object', reference: tokens[index++]!.text });
    if (peek().type === '[') {
      index++;
      const keyField = expect('ident', 'expected keyField in listSpec').text;
      expect(':', `expected ':' following keyField ${keyField}`);
      const value = peek();
      if (value.type !== '*' && value.type !== 'ident')
        throw new LocationError(`expected key value or glob in listSpec, got: ${describe(value)}`);
      index++;
      expect(']', "expected ']' following listSpec");
      nodes.push(
        value.type === '*' ? { type: 'list', keyField, glob: true } : { type: 'list', keyField, keyValue: value.text, glob: false },
      );
    }
    if (peek().type === '.') {
      index++;
      if (peek().type === 'eof') throw new LocationError('trailing separators are forbidden');
      if (peek().type !== 'ident') throw new LocationError(`unexpected token: expected field name or eof, got: ${describe(peek())}`);
    } else if (peek().type !== 'eof') throw new LocationError(`expected '.' or eof, got: ${describe(peek())}`);
  }
  if (peek().type !== 'eof') throw new LocationError(`unexpected token: expected field name or eof, got: ${describe(peek())}`);
  if (nodes.length === 0) throw new LocationError('empty path');
  return nodes;
}

/** Whether two nodes are the same step (a path test's subPath must be a prefix of its location). */
export const sameNode = (a: PathNode, b: PathNode): boolean =>
  a.type === 'object'
    ? b.type === 'object' && a.reference === b.reference
    : b.type === 'list' && a.keyField === b.keyField && a.glob === b.glob && a.keyValue === b.keyValue;

/** The location as written back, for messages: `spec.containers[name: *].image`. */
export function locationText(location: Location): string {
  return location
    .map((node, index) =>
      node.type === 'object' ? `${index > 0 ? '.' : ''}${node.reference}` : `[${node.keyField}: ${node.glob ? '*' : node.keyValue}]`,
    )
    .join('');
}
