// The parser's view of a module's tokens: the current one, save and restore (OPA's parser backtracks the
// same way), and which names are keywords. `if`, `contains`, `in` and `every` are keywords in Rego v1 and
// where `future.keywords` or `rego.v1` imports them. A keyword right before `.` or `[` is a name (`data.x.if`,
// `else.foo := 1`, OPA's keywords in refs): the parser says so for the token it stands on (treatAsName).
import type { Location, Term } from './ast.js';
import { parseError, type Token } from './lexer.js';
import { RegoError } from '../errors.js';

export type FutureKeyword = 'if' | 'contains' | 'in' | 'every';
export const FUTURE_KEYWORDS: readonly FutureKeyword[] = ['if', 'contains', 'in', 'every'];

const ALWAYS_KEYWORDS = new Set(['package', 'import', 'as', 'default', 'else', 'not', 'some', 'with', 'true', 'false', 'null']);

/** How deep terms may nest: deeper input is refused rather than overflowing the stack. */
const MAX_DEPTH = 1000;

export interface Mark {
  index: number;
  nameAt: number;
  depth: number;
}

type Memo = { term: Term; after: Mark } | { error: unknown };

export class TokenStream {
  private index = 0;
  /** The keyword token that stands for a name here (a ref's first name), or -1. */
  private nameAt = -1;
  private depth = 0;
  /** Terms read at each place of the statement being read, or the error reading one threw. */
  private memo = new Map<number, Memo>();
  /** The token the parser stands on: a field rather than a call, as the parser asks for it several times a token. */
  current: Token;
  readonly keywords = new Set<FutureKeyword>();
  v1 = false;
  /** The special imports seen (`rego`, `future`), which may not be combined. */
  readonly imported = new Set<string>();

  constructor(private readonly tokens: Token[]) {
    this.current = tokens[0]!;
  }

  peek(offset = 1): Token {
    return this.tokens[Math.min(this.index + offset, this.tokens.length - 1)]!;
  }

  next(): Token {
    const token = this.current;
    if (this.index < this.tokens.length - 1) this.current = this.tokens[++this.index]!;
    return token;
  }

  /** Whether the current token is the operator `text`. */
  at(text: string): boolean {
    const token = this.current;
    return token.kind === 'op' && token.text === text;
  }

  take(text: string): boolean {
    if (!this.at(text)) return false;
    this.next();
    return true;
  }

  /** Whether the current token is a keyword (a future one only when it is on), and not a name here. */
  atAnyKeyword(): boolean {
    const token = this.current;
    return token.kind === 'ident' && this.isKeyword(token.text) && this.nameAt !== this.index;
  }

  atKeyword(word: string): boolean {
    return this.current.text === word && this.atAnyKeyword();
  }

  isKeyword(word: string): boolean {
    return ALWAYS_KEYWORDS.has(word) || this.keywords.has(word as FutureKeyword);
  }

  /** Whether the current token is a name: an identifier that is not a keyword here. */
  atName(): boolean {
    return this.current.kind === 'ident' && !this.atAnyKeyword();
  }

  /** Whether the next token is `.` or `[` touching this one: a reference goes on. */
  refFollows(): boolean {
    const next = this.peek();
    return next.kind === 'op' && (next.text === '.' || next.text === '[') && !next.spaceBefore;
  }

  /** OPA's scanAheadRef: a keyword right before `.` or `[` is the first name of a reference. */
  treatAsNameIfRef(): boolean {
    if (!this.atAnyKeyword() || !this.refFollows()) return false;
    this.nameAt = this.index;
    return true;
  }

  /** Where the stream is, to come back to after looking ahead. */
  mark(): Mark {
    return { index: this.index, nameAt: this.nameAt, depth: this.depth };
  }

  reset(mark: Mark): void {
    this.index = mark.index;
    this.nameAt = mark.nameAt;
    this.depth = mark.depth;
    this.current = this.tokens[mark.index]!;
  }

  /** A new statement: what earlier ones read (under other keywords, maybe) is forgotten. */
  startStatement(): void {
    this.memo.clear();
  }

  /** `read()` at this place, or what it gave (or threw) the last time it was read here. */
  memoized(read: () => Term): Term {
    const key = this.nameAt === this.index ? -1 - this.index : this.index;
    const known = this.memo.get(key);
    if (known && 'error' in known) throw known.error;
    if (known) {
      this.reset(known.after);
      return known.term;
    }
    const before = this.mark();
    try {
      const term = read();
      this.memo.set(key, { term, after: { ...this.mark(), depth: before.depth } });
      return term;
    } catch (error) {
      this.memo.set(key, { error });
      throw error;
    }
  }

  /** One level deeper into nested terms; refused past MAX_DEPTH. */
  enter(): void {
    if (++this.depth > MAX_DEPTH) this.fail('max parsing recursion depth exceeded');
  }

  leave(): void {
    this.depth--;
  }

  fail(message: string, token: Token = this.current): never {
    throw parseError(message, token.row, token.col);
  }

  /** OPA's `illegal`: `unexpected } token`, `unexpected if keyword: <note>`. */
  illegal(note?: string, token: Token = this.current): never {
    const keyword = token.kind === 'ident' && this.isKeyword(token.text);
    const what = `unexpected ${keyword ? token.text : describe(token)} ${keyword ? 'keyword' : 'token'}`;
    return this.fail(note ? `${what}: ${note}` : what, token);
  }
}

/** A token as OPA names it in errors: an operator by its text, else its kind. */
export const describe = (token: Token): string =>
  token.kind === 'op' ? token.text : token.kind === 'template' ? 'template-string' : token.kind;

/** Where a token starts. */
export const locationOf = (token: Token): Location => ({ row: token.row, col: token.col });

/** Runs `parse`; on a parse error, puts the stream back and answers undefined (OPA's parser restores its state). */
export function attempt<T>(s: TokenStream, parse: () => T): T | undefined {
  const mark = s.mark();
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof RegoError)) throw error;
    s.reset(mark);
    return undefined;
  }
}
