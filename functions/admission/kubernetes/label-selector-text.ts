// Label selectors as text, as kubectl's `-l`, API list calls' `labelSelector` and placement annotations write
// them (`env in (prod,staging),tier!=db,!legacy,replicas>2`): apimachinery's labels.Parse, its lexer, grammar,
// key and value validation and matching, so a selector means here what it means to the API server. Errors
// say which part of the text is wrong and what was expected, as apimachinery's do.
// Hand-written: no maintained JavaScript package parses this syntax.
import * as v from '../schema.js';

export type SelectorOperator = 'In' | 'NotIn' | '=' | '==' | '!=' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';

export interface LabelRequirement {
  key: string;
  operator: SelectorOperator;
  /** Sorted and without duplicates, as apimachinery's set; one for the exact-match and comparison operators. */
  values: readonly string[];
}

export type ParsedSelector = { ok: true; requirements: LabelRequirement[] } | { ok: false; error: string };

type TokenKind = 'id' | 'in' | 'notin' | '=' | '==' | '!=' | '!' | '>' | '<' | '(' | ')' | ',' | 'end';
interface Token {
  kind: TokenKind;
  text: string;
}

const SPECIAL = new Set(['=', '!', '(', ')', ',', '>', '<']);
const WHITESPACE = new Set([' ', '\t', '\r', '\n']);
const OPERATORS = new Set(['=', '==', '!=', '!', '>', '<', '(', ')', ',']);

/** apimachinery's lexer: a run of special characters is its longest prefix that is an operator; `in` and `notin` are words. */
function tokens(text: string): Token[] {
  const list: Token[] = [];
  let at = 0;
  for (;;) {
    while (at < text.length && WHITESPACE.has(text[at]!)) at++;
    if (at >= text.length) return [...list, { kind: 'end', text: '' }];
    let end = at;
    if (SPECIAL.has(text[at]!)) {
      while (end < text.length && SPECIAL.has(text[end]!)) end++;
      while (end > at + 1 && !OPERATORS.has(text.slice(at, end))) end--;
      list.push({ kind: text.slice(at, end) as TokenKind, text: text.slice(at, end) });
    } else {
      while (end < text.length && !SPECIAL.has(text[end]!) && !WHITESPACE.has(text[end]!)) end++;
      const word = text.slice(at, end);
      list.push({ kind: word === 'in' || word === 'notin' ? word : 'id', text: word });
    }
    at = end;
  }
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const INTEGER = /^[+-]?\d+$/;
const INT64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };

/** Why a label key is not one (IsQualifiedName), or undefined. */
export function labelKeyProblem(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2) return 'a qualified name has at most one "/" (an optional DNS prefix, then a name)';
  const [name, prefix] = parts.length === 2 ? [parts[1]!, parts[0]!] : [parts[0]!, undefined];
  if (prefix !== undefined && prefix === '') return 'prefix part must be non-empty';
  if (prefix !== undefined && (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)))
    return 'prefix part must be a lowercase DNS subdomain (e.g. example.com), at most 253 characters';
  if (name === '') return 'name part must be non-empty';
  if (name.length > 63) return 'name part must be no more than 63 characters';
  if (!NAME.test(name))
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  return undefined;
}

/** Why a label value is not one (IsValidLabelValue), or undefined. */
export function labelValueProblem(value: string): string | undefined {
  if (value.length > 63) return 'must be no more than 63 characters';
  if (!VALUE.test(value))
    return "a label value must be empty or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  return undefined;
}

/** Go's strconv.ParseInt(value, 10, 64), or undefined where it fails. */
function int64Of(value: string): bigint | undefined {
  if (!INTEGER.test(value)) return undefined;
  const number = BigInt(value);
  return number < INT64.min || number > INT64.max ? undefined : number;
}

class SelectorSyntaxError extends Error {}

const failed = (message: string): never => {
  throw new SelectorSyntaxError(message);
};

const OPERATOR_OF: Partial<Record<TokenKind, SelectorOperator>> = {
  in: 'In',
  notin: 'NotIn',
  '=': '=',
  '==': '==',
  '!=': '!=',
  '>': 'Gt',
  '<': 'Lt',
};

/** The recursive-descent parser of apimachinery's labels.Parse, over the tokens. */
class Parser {
  private at = 0;
  constructor(private readonly list: Token[]) {}

  /** The next token as a value or key reads it: `in` and `notin` are names there. */
  private peek(): Token {
    const token = this.list[this.at]!;
    return token.kind === 'in' || token.kind === 'notin' ? { kind: 'id', text: token.text } : token;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.at++;
    return token;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const ahead = this.peek();
      if (ahead.kind === 'end') return requirements;
      if (ahead.kind !== 'id' && ahead.kind !== '!') failed(`found '${ahead.text}', expected: !, identifier, or 'end of string'`);
      requirements.push(this.requirement());
      const after = this.next();
      if (after.kind === 'end') return requirements;
      if (after.kind !== ',') failed(`found '${after.text}', expected: ',' or 'end of string'`);
      const following = this.peek();
      if (following.kind !== 'id' && following.kind !== '!') failed(`found '${following.text}', expected: identifier after ','`);
    }
  }

  private requirement(): LabelRequirement {
    let token = this.next();
    const negated = token.kind === '!';
    if (negated) token = this.next();
    if (token.kind !== 'id') failed(`unable to parse requirement: found '${token.text}', expected: identifier`);
    const key = token.text;
    const keyProblem = labelKeyProblem(key);
    if (keyProblem) failed(`unable to parse requirement: key "${key}": ${keyProblem}`);
    const ahead = this.peek().kind;
    if (negated || ahead === 'end' || ahead === ',') return { key, operator: negated ? 'DoesNotExist' : 'Exists', values: [] };
    const written = this.list[this.at]!;
    const operator = OPERATOR_OF[written.kind];
    if (!operator) failed(`unable to parse requirement: found '${written.text}', expected: in, notin, =, ==, !=, gt, lt`);
    this.at++;
    const values = operator === 'In' || operator === 'NotIn' ? this.valueSet() : this.exactValue();
    return requirementOf(key, operator!, values);
  }

  private valueSet(): Set<string> {
    const open = this.next();
    if (open.kind !== '(') failed(`unable to parse requirement: found '${open.text}' expected: '('`);
    const first = this.peek();
    if (first.kind === ')') {
      this.next();
      return new Set(['']);
    }
    if (first.kind !== 'id' && first.kind !== ',')
      failed(`unable to parse requirement: found '${first.text}', expected: ',', ')' or identifier`);
    const values = this.identifiers();
    const close = this.next();
    if (close.kind !== ')') failed(`unable to parse requirement: found '${close.text}', expected: ')'`);
    return values;
  }

  /** A list's names; empty slots (`(,a)`, `(a,,b)`, `(a,)`) are the empty value, as apimachinery reads them. */
  private identifiers(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const token = this.next();
      if (token.kind === 'id') {
        values.add(token.text);
        const ahead = this.peek();
        if (ahead.kind === ',') continue;
        if (ahead.kind === ')') return values;
        failed(`unable to parse requirement: found '${ahead.text}', expected: ',' or ')'`);
      }
      if (token.kind !== ',') failed(`unable to parse requirement: found '${token.text}', expected: ',', or identifier`);
      if (values.size === 0) values.add('');
      const ahead = this.peek();
      if (ahead.kind === ')') {
        values.add('');
        return values;
      }
      if (ahead.kind === ',') {
        this.next();
        values.add('');
      }
    }
  }

  private exactValue(): Set<string> {
    const ahead = this.peek();
    if (ahead.kind === 'end' || ahead.kind === ',') return new Set(['']);
    const token = this.next();
    if (token.kind !== 'id') failed(`unable to parse requirement: found '${token.text}', expected: identifier`);
    return new Set([token.text]);
  }
}

/** apimachinery's NewRequirement: the values each operator takes, each a label value; Gt and Lt an integer. */
function requirementOf(key: string, operator: SelectorOperator, given: Set<string>): LabelRequirement {
  const values = [...given].sort();
  for (const value of values) {
    const problem = labelValueProblem(value);
    if (problem) failed(`unable to parse requirement: value "${value.slice(0, 80)}" of ${key}: ${problem}`);
  }
  if ((operator === 'Gt' || operator === 'Lt') && int64Of(values[0]!) === undefined)
    failed(`unable to parse requirement: ${key}: for 'Gt', 'Lt' operators, the value must be an integer`);
  return { key, operator, values };
}

/** The selector the text says, or why it is not one. */
export function parseSelectorText(text: string): ParsedSelector {
  try {
    const requirements = new Parser(tokens(text)).parse();
    // Sorted by key, as apimachinery sorts them (stably: requirements of one key keep their order).
    requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return { ok: true, requirements };
  } catch (error) {
    if (error instanceof SelectorSyntaxError) return { ok: false, error: error.message };
    throw error;
  }
}

/** Whether the labels hold every requirement (no requirements: every set of labels). */
export function matchesRequirements(labels: Readonly<Record<string, string>>, requirements: readonly LabelRequirement[]): boolean {
  for (const { key, operator, values } of requirements) {
    const has = Object.hasOwn(labels, key);
    const value = has ? labels[key]! : undefined;
    switch (operator) {
      case 'In':
      case '=':
      case '==':
        if (!has || !values.includes(value!)) return false;
        break;
      case 'NotIn':
      case '!=':
        if (has && values.includes(value!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default: {
        const label = has ? int64Of(value!) : undefined;
        const bound = int64Of(values[0]!)!;
        if (label === undefined || (operator === 'Gt' ? label <= bound : label >= bound)) return false;
      }
    }
  }
  return true;
}

/** The selector as apimachinery's String() writes it: canonical, so equal selectors print alike. */
export function selectorText(requirements: readonly LabelRequirement[]): string {
  return requirements
    .map(({ key, operator, values }) => {
      switch (operator) {
        case 'Exists':
          return key;
        case 'DoesNotExist':
          return `!${key}`;
        case 'In':
        case 'NotIn':
          return `${key} ${operator === 'In' ? 'in' : 'notin'} (${values.join(',')})`;
        case 'Gt':
          return `${key}>${values[0]}`;
        case 'Lt':
          return `${key}<${values[0]}`;
        default:
          return `${key}${operator}${values[0]}`;
      }
    })
    .join(',');
}

/** A label selector as kubectl's `-l` writes it, checked as apimachinery parses it. */
export const SelectorTextSchema = v.pipe(
  v.string(),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const parsed = parseSelectorText(dataset.value);
    if (!parsed.ok) addIssue({ message: `not a label selector (kubectl's -l syntax): ${parsed.error}` });
  }),
);
