// Kyverno's conditions (preconditions and validate.deny, pkg/engine/variables/operator): `any` holds when
// one condition does, `all` when every one does, both when both are given; a plain list is `all`. Each
// condition compares its key and value (variables substituted) with an operator, as Kyverno's handlers
// compare them: Equals by type, with wildcards in text, quantities and durations; the In family over
// lists (wildcards both ways), JSON lists in text, or a range; the numeric operators over numbers,
// durations, quantities and versions.
import { isDeepStrictEqual } from 'node:util';
import { matchesGlob } from '../../../admission/kubernetes/glob.js';
import { isJsonObject } from '../../../admission/kubernetes/json-object.js';
import { quantityNanos } from '../../../admission/kubernetes/quantity.js';
import { parseGoDuration } from '../../../admission/kubernetes/go-duration.js';
import { compareSemVer, parseSemVer } from '../../runtime/go/semver.js';
import { goText } from '../../runtime/go/text.js';
import { matchesValuePattern, operatorOf } from '../validate/value-pattern.js';
import { substituteVariables, type VariableContext } from './variables.js';
import type { Condition, Conditions } from './condition-types.js';

export type { Condition, Conditions } from './condition-types.js';

/** Seconds of a Go duration (text), or of a number taken as seconds. */
function seconds(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return undefined;
  const nanos = parseGoDuration(value);
  return nanos === undefined ? undefined : Number(nanos) / 1e9;
}

/** Kyverno's parseDuration: both durations, at least one written as one (a number is seconds). */
function durations(key: unknown, value: unknown): [number, number] | undefined {
  const written =
    (typeof key === 'string' && parseGoDuration(key) !== undefined) || (typeof value === 'string' && parseGoDuration(value) !== undefined);
  const [a, b] = [seconds(key), seconds(value)];
  return written && a !== undefined && b !== undefined ? [a, b] : undefined;
}

const quantity = (text: unknown): bigint | undefined => (typeof text === 'string' ? quantityNanos(text) : undefined);

const asNumber = (value: unknown): number | undefined => {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
};

function equals(key: unknown, value: unknown): boolean {
  if (typeof key === 'boolean') return value === key;
  if (typeof key === 'number') {
    if (typeof value === 'number') return value === key;
    return typeof value === 'string' && asNumber(value) === key;
  }
  if (typeof key === 'string') {
    const pair = durations(key, value);
    if (pair) return pair[0] === pair[1];
    const keyQuantity = quantity(key);
    if (keyQuantity !== undefined && typeof value === 'string') return quantity(value) === keyQuantity;
    return typeof value === 'string' && matchesGlob(key, value);
  }
  if (Array.isArray(key) || isJsonObject(key)) return isDeepStrictEqual(key, value);
  return false;
}

function order(key: unknown, value: unknown): number | undefined {
  const pair = durations(key, value);
  if (pair) return Math.sign(pair[0] - pair[1]);
  const [keyQuantity, valueQuantity] = [quantity(key), quantity(value)];
  if (typeof key === 'string' && keyQuantity !== undefined && valueQuantity !== undefined)
    return keyQuantity < valueQuantity ? -1 : keyQuantity > valueQuantity ? 1 : 0;
  const [a, b] = [asNumber(key), asNumber(value)];
  if (a !== undefined && b !== undefined) return Math.sign(a - b);
  // Versions as Kyverno's numeric operators read them: both strict SemVer (blang's Parse), prereleases ordered.
  const versionA = typeof key === 'string' ? parseSemVer(key) : undefined;
  const versionB = versionA && typeof value === 'string' ? parseSemVer(value) : undefined;
  return versionA && versionB ? compareSemVer(versionA, versionB) : undefined;
}

/** The value as a list of texts: a list, a JSON list written as text, or the text itself. */
function valueTexts(value: unknown): string[] | undefined {
  if (Array.isArray(value)) return value.map(goText);
  if (typeof value === 'number' || typeof value === 'boolean') return [goText(value)];
  if (typeof value !== 'string') return undefined;
  try {
    const parsed = JSON.parse(value);
    if (Array.isArray(parsed)) return parsed.map(goText);
  } catch {
    // not JSON: the text itself
  }
  return [value];
}

const either = (a: string, b: string) => matchesGlob(a, b) || matchesGlob(b, a);

/** How many of the key's texts the value holds, and how many there are; a range value judges each as a number. */
function membership(key: unknown, value: unknown): { found: number; total: number } | undefined {
  const keys = Array.isArray(key) ? key.map(goText) : key === null || key === undefined || isJsonObject(key) ? undefined : [goText(key)];
  if (!keys) return undefined;
  if (typeof value === 'string' && (operatorOf(value) === '-' || operatorOf(value) === '!-')) {
    return { found: keys.filter((text) => matchesValuePattern(text, value)).length, total: keys.length };
  }
  const values = valueTexts(value);
  if (!values) return undefined;
  return { found: keys.filter((text) => values.some((candidate) => either(text, candidate))).length, total: keys.length };
}

/** One condition's outcome, on its key and value after substitution. */
export function evaluateCondition(operator: string, key: unknown, value: unknown): boolean {
  switch (operator) {
    case 'Equals':
    case 'Equal':
      return equals(key, value);
    case 'NotEquals':
    case 'NotEqual':
      return !equals(key, value);
    case 'In':
    case 'AnyIn': {
      const counted = membership(key, value);
      return counted !== undefined && counted.found > 0;
    }
    case 'AllIn': {
      const counted = membership(key, value);
      return counted !== undefined && counted.total > 0 && counted.found === counted.total;
    }
    case 'NotIn':
    case 'AllNotIn': {
      const counted = membership(key, value);
      return counted !== undefined && counted.found === 0;
    }
    case 'AnyNotIn': {
      const counted = membership(key, value);
      return counted !== undefined && counted.found < counted.total;
    }
    case 'GreaterThan':
    case 'GreaterThanOrEquals':
    case 'LessThan':
    case 'LessThanOrEquals': {
      const sign = order(key, value);
      if (sign === undefined) return false;
      return operator === 'GreaterThan'
        ? sign > 0
        : operator === 'GreaterThanOrEquals'
          ? sign >= 0
          : operator === 'LessThan'
            ? sign < 0
            : sign <= 0;
    }
    default: {
      const [a, b] = [seconds(key), seconds(value)];
      if (a === undefined || b === undefined) return false;
      if (operator === 'DurationGreaterThan') return a > b;
      if (operator === 'DurationGreaterThanOrEquals') return a >= b;
      if (operator === 'DurationLessThan') return a < b;
      return a <= b;
    }
  }
}

export interface ConditionsOutcome {
  holds: boolean;
  /** The messages of the conditions that decided, for denials and skips. */
  messages: string[];
}

function judge(condition: Condition, context: VariableContext): boolean {
  const key = substituteVariables(condition.key, context);
  const value = substituteVariables(condition.value ?? null, context);
  return evaluateCondition(condition.operator, key, value);
}

/**
 * Whether the conditions hold, as Kyverno's EvaluateConditions judges them: `any` first, stopping at the first
 * that holds (an `any` written empty never holds), then `all` whatever `any` gave, stopping at the first that
 * does not. A variable that cannot be resolved (a key the object does not have, a function's error) is the
 * rule's error, as in Kyverno since its preconditions resolver stopped reading such a variable as "", and a
 * condition never reached is never resolved.
 */
export function evaluateConditions(conditions: Conditions | undefined, context: VariableContext): ConditionsOutcome {
  if (!conditions) return { holds: true, messages: [] };
  const { any, all } = Array.isArray(conditions) ? { any: undefined, all: conditions } : conditions;
  const decided: string[] = [];
  const failed: string[] = [];
  let anyHolds = true;
  if (any) {
    const passed = any.find((condition) => judge(condition, context));
    anyHolds = passed !== undefined;
    if (passed?.message) decided.push(passed.message);
    if (!passed) failed.push(...any.flatMap(({ message }) => (message ? [message] : [])));
  }
  let allHold = true;
  for (const condition of all ?? []) {
    if (!judge(condition, context)) {
      allHold = false;
      if (condition.message) failed.push(condition.message);
      break;
    }
    if (condition.message) decided.push(condition.message);
  }
  return anyHolds && allHold ? { holds: true, messages: decided } : { holds: false, messages: failed };
}
