// Kyverno's value patterns (pkg/engine/pattern): how one value of a resource is judged against one leaf of a
// `validate.pattern`. A string pattern is alternatives (`|`) of conjunctions (`&`) of conditions, each an
// optional operator (`!`, `>`, `<`, `>=`, `<=`, ranges `a-b` and `!a-b`) and an operand compared as a Go
// duration, else as a Kubernetes quantity, else (equality only) as a wildcard (`*`, `?`). Numbers, booleans
// and null compare by type as Kyverno's do. Values are JSON as Kubernetes decodes it: a whole number is an
// int64, any other number a float64.
import { matchesGlob } from '../../../admission/kubernetes/glob.js';
import { isJsonObject } from '../../../admission/kubernetes/json-object.js';
import { quantityNanos } from '../../../admission/kubernetes/quantity.js';
import { parseGoDuration } from '../../../admission/kubernetes/go-duration.js';

export type PatternOperator = '' | '!' | '>' | '<' | '>=' | '<=' | '-' | '!-';

// Ranges' operands: a signed decimal with an optional unit, so `-10--8` and `128Mi!-512Mi` split as Kyverno splits them.
const IN_RANGE = /^([-|+]?\d+(?:\.\d+)?[A-Za-z]*)-([-|+]?\d+(?:\.\d+)?[A-Za-z]*)$/;
const NOT_IN_RANGE = /^([-|+]?\d+(?:\.\d+)?[A-Za-z]*)!-([-|+]?\d+(?:\.\d+)?[A-Za-z]*)$/;

/** The operator a condition starts with (or is, for ranges); `''` is equality. */
export function operatorOf(condition: string): PatternOperator {
  if (condition.length < 2) return '';
  for (const operator of ['>=', '<=', '>', '<', '!'] as const) if (condition.startsWith(operator)) return operator;
  if (NOT_IN_RANGE.test(condition)) return '!-';
  if (IN_RANGE.test(condition)) return '-';
  return '';
}

/** Whether `value` satisfies the pattern leaf `pattern` (a map pattern only asks for a map: its fields are judged apart). */
export function matchesValuePattern(value: unknown, pattern: unknown): boolean {
  if (typeof pattern === 'boolean') return value === pattern;
  if (typeof pattern === 'number') return Number.isInteger(pattern) ? matchesInt(value, pattern) : matchesFloat(value, pattern);
  if (pattern === null || pattern === undefined) return matchesNull(value);
  if (typeof pattern === 'string') return matchesStringPattern(value, pattern);
  if (Array.isArray(pattern)) return false;
  return isJsonObject(value);
}

function matchesInt(value: unknown, pattern: number): boolean {
  if (typeof value === 'number') return Number.isInteger(value) && value === pattern;
  // Go's strconv.ParseInt, base 10.
  if (typeof value === 'string') return /^[+-]?\d+$/.test(value) && Number(value) === pattern;
  return false;
}

function matchesFloat(value: unknown, pattern: number): boolean {
  if (typeof value === 'number') return value === pattern;
  // Go's strconv.ParseFloat, decimal forms; the parts cannot take each other's characters, so matching is linear.
  if (typeof value === 'string') return /^[+-]?\d*(\.\d*)?([eE][+-]?\d+)?$/.test(value) && /\d/.test(value) && Number(value) === pattern;
  return false;
}

function matchesNull(value: unknown): boolean {
  return value === null || value === undefined || value === 0 || value === '' || value === false;
}

/** One comparison of a condition, its operand read once: as a Go duration and as a quantity, when it is one. */
interface Comparison {
  operator: PatternOperator;
  operand: string;
  duration?: bigint;
  quantity?: bigint;
}

/** A condition: comparisons that must all hold (`a-b` is `>= a` and `<= b`), or one of which must (`a!-b`). */
type Condition = { every: Comparison[] } | { some: Comparison[] };

const comparison = (operator: PatternOperator, operand: string): Comparison => ({
  operator,
  operand,
  duration: parseGoDuration(operand),
  quantity: quantityNanos(operand),
});

function conditionOf(text: string): Condition {
  const operator = operatorOf(text);
  if (operator === '-') {
    const [, low, high] = IN_RANGE.exec(text)!;
    return { every: [comparison('>=', low!), comparison('<=', high!)] };
  }
  if (operator === '!-') {
    const [, low, high] = NOT_IN_RANGE.exec(text)!;
    return { some: [comparison('<', low!), comparison('>', high!)] };
  }
  return { every: [comparison(operator, text.slice(operator.length).trim())] };
}

// A string pattern parsed once into alternatives of conditions: patterns are the rules', few and reused.
const parsedPatterns = new Map<string, Condition[][]>();
const MAX_PARSED = 4096;

function parsedPattern(pattern: string): Condition[][] {
  let parsed = parsedPatterns.get(pattern);
  if (!parsed) {
    parsed = pattern.split('|').map((alternative) =>
      alternative
        .trim()
        .split('&')
        .map((condition) => conditionOf(condition.trim())),
    );
    if (parsedPatterns.size >= MAX_PARSED) parsedPatterns.clear();
    parsedPatterns.set(pattern, parsed);
  }
  return parsed;
}

function matchesStringPattern(value: unknown, pattern: string): boolean {
  if (value === pattern) return true;
  return parsedPattern(pattern).some((conditions) =>
    conditions.every((condition) =>
      'every' in condition ? condition.every.every((each) => compares(value, each)) : condition.some.some((each) => compares(value, each)),
    ),
  );
}

/** -1, 0 or 1 as the operator asks: true when `order` satisfies it. */
function satisfies(order: number, operator: PatternOperator): boolean {
  switch (operator) {
    case '':
      return order === 0;
    case '!':
      return order !== 0;
    case '>':
      return order > 0;
    case '<':
      return order < 0;
    case '>=':
      return order >= 0;
    case '<=':
      return order <= 0;
    default:
      return false;
  }
}

const orderOf = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/** As a duration if both are Go durations, else as a quantity if both are quantities, else as text. */
function compares(value: unknown, { operator, operand, duration, quantity }: Comparison): boolean {
  const text = numberText(value);
  const valueDuration = duration === undefined || text === undefined ? undefined : parseGoDuration(text);
  if (duration !== undefined && valueDuration !== undefined) return satisfies(orderOf(valueDuration, duration), operator);
  const valueQuantity = quantity === undefined || text === undefined ? undefined : quantityNanos(text);
  if (quantity !== undefined && valueQuantity !== undefined) return satisfies(orderOf(valueQuantity, quantity), operator);
  if (operator !== '' && operator !== '!') return false; // >, <, >=, <= do not apply to text
  const valueText = textOf(value);
  if (valueText === undefined) return false;
  return matchesGlob(valueText, operand) === (operator === '');
}

/** Kyverno's convertNumberToString: null is "0", a float64 is Go's `%f`. */
function numberText(value: unknown): string | undefined {
  if (value === null || value === undefined) return '0';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : value.toFixed(6);
  return undefined;
}

/** The value as Kyverno's wildcard comparison writes it: a float64 in Go's `E` format (1.5E+00). */
function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (typeof value !== 'number') return undefined;
  if (Number.isInteger(value)) return String(value);
  const [mantissa, exponent = '0'] = value.toExponential().split('e');
  const sign = exponent.startsWith('-') ? '-' : '+';
  return `${mantissa!.toUpperCase()}E${sign}${exponent.replace(/^[+-]/, '').padStart(2, '0')}`;
}
