// The parser's view of a module's tokens: look ahead, take, expect, and which keywords are on. `if`,
// `contains`, `in` and `every` are keywords in Rego v1 and where `future.keywords` imports them; in v0
// without them they are plain names (`contains(s, "x")` is a call either way).
import type { Location } from './ast.js';
import { RegoSyntaxError, type Token } from './lexer.js';

export type FutureKeyword = 'if' | 'contains' | 'in' | 'every';
export const FUTURE_KEYWORDS: readonly FutureKeyword[] = ['if', 'contains', 'in', 'every'];

const ALWAYS_KEYWORDS = new Set(['package', 'import', 'as', 'default', 'else', 'not', 'some', 'with', 'true', 'false', 'null']);

export class TokenStream {
  private index = 0;
  /**
   * The next token, not yet taken: a field rather than peek() where the parser asks most (several times a
   * token), as the parser runs cold, once per rules version, where a call costs more than a read.
   */
  current: Token;
  readonly keywords = new Set<FutureKeyword>();
  v1 = false;
  /** The special imports seen (`rego`, `future`), which may not be combined. */
  readonly imported = new Set<string>();

  constructor(private readonly tokens: Token[]) {
    this.current = tokens[0]!;
  }

  peek(offset = 0): Token {
    return offset === 0 ? this.current : this.tokens[Math.min(this.index + offset, this.tokens.length - 1)]!;
  }

  next(): Token {
    const token = this.current;
    if (this.index < this.tokens.length - 1) this.current = this.tokens[++this.index]!;
    return token;
  }

  at(text: string, kind: Token['kind'] = 'op'): boolean {
    const token = this.current;
    return token.kind === kind && token.text === text;
  }

  /** Whether the next token is the keyword (a future one only when it is on). */
  atKeyword(word: string): boolean {
    const token = this.current;
    return token.kind === 'ident' && token.text === word && this.isKeyword(word);
  }

  isKeyword(word: string): boolean {
    return ALWAYS_KEYWORDS.has(word) || this.keywords.has(word as FutureKeyword);
  }

  take(text: string, kind: Token['kind'] = 'op'): boolean {
    if (!this.at(text, kind)) return false;
    this.next();
    return true;
  }

  expect(text: string, what?: string): Token {
    const token = this.current;
    if (token.text !== text || (token.kind !== 'op' && token.kind !== 'ident'))
      this.fail(`expected ${what ?? JSON.stringify(text)}, found ${describe(token)}`);
    return this.next();
  }

  /** Where the stream is, to come back to after looking ahead. */
  mark(): number {
    return this.index;
  }

  reset(mark: number): void {
    this.index = mark;
    this.current = this.tokens[mark]!;
  }

  skipNewlines(): void {
    while (this.current.kind === 'newline') this.next();
  }

  location(token: Token = this.current): Location {
    return { row: token.row, col: token.col };
  }

  fail(message: string, token: Token = this.current): never {
    throw new RegoSyntaxError(message, token.row, token.col);
  }
}

export function describe(token: Token): string {
  if (token.kind === 'eof') return 'end of file';
  if (token.kind === 'newline') return 'end of line';
  return JSON.stringify(token.text);
}
