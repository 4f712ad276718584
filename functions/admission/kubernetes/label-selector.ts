// Kubernetes label selectors (matchLabels + matchExpressions), evaluated against an object's labels.
// Hand-written: the semantics fit in a few lines and no maintained JS package implements them on their own.
import { ownValue } from './own-value.js';
import * as v from '../schema.js';

export const LabelSelectorSchema = v.pipe(
  v.strictObject({
    matchLabels: v.optional(v.record(v.string(), v.string())),
    matchExpressions: v.optional(
      v.array(
        v.strictObject({
          key: v.pipe(v.string(), v.minLength(1)),
          operator: v.picklist(['In', 'NotIn', 'Exists', 'DoesNotExist']),
          values: v.optional(v.array(v.string())),
        }),
      ),
    ),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    dataset.value.matchExpressions?.forEach((expression, index) => {
      const needsValues = expression.operator === 'In' || expression.operator === 'NotIn';
      const count = expression.values?.length ?? 0;
      const path = v.issuePath('matchExpressions', index, 'values');
      if (needsValues && count === 0) addIssue({ path, message: `operator ${expression.operator} needs at least one value` });
      if (!needsValues && count > 0) addIssue({ path, message: `operator ${expression.operator} takes no values` });
    });
  }),
);
export type LabelSelector = v.InferOutput<typeof LabelSelectorSchema>;

export function matchesLabelSelector(labels: Readonly<Record<string, string>>, selector: LabelSelector): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (ownValue(labels, key) !== value) return false;
  }
  return (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    const has = Object.hasOwn(labels, key);
    switch (operator) {
      case 'In':
        return has && values.includes(labels[key]!);
      case 'NotIn':
        return !has || !values.includes(labels[key]!);
      case 'Exists':
        return has;
      default:
        return !has; // DoesNotExist, the last operator the schema allows
    }
  });
}

/** The terms of a selector's text, split at commas outside a set's parentheses. */
function selectorTerms(text: string): string[] | undefined {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '(') depth++;
    else if (char === ')') depth--;
    else if (char === ',' && depth === 0) {
      terms.push(text.slice(start, index));
      start = index + 1;
    }
    if (depth < 0 || depth > 1) return undefined;
  }
  return depth === 0 ? [...terms, text.slice(start)] : undefined;
}

const KEY = /^[^\s!=,()]+$/;

/** One term: `key`, `!key`, `key=value` (or `==`), `key!=value`, `key in (a,b)`, `key notin (a,b)`. */
function selectorTerm(term: string): NonNullable<LabelSelector['matchExpressions']>[number] | undefined {
  const text = term.trim();
  if (text.startsWith('!')) {
    const key = text.slice(1).trim();
    return KEY.test(key) ? { key, operator: 'DoesNotExist' } : undefined;
  }
  const open = text.indexOf('(');
  if (open !== -1) {
    if (!text.endsWith(')')) return undefined;
    const words = text.slice(0, open).trim().split(/\s+/);
    if (words.length !== 2 || !KEY.test(words[0]!) || (words[1] !== 'in' && words[1] !== 'notin')) return undefined;
    const values = text
      .slice(open + 1, -1)
      .split(',')
      .map((value) => value.trim());
    return { key: words[0]!, operator: words[1] === 'in' ? 'In' : 'NotIn', values };
  }
  const equals = text.indexOf('=');
  if (equals === -1) return KEY.test(text) ? { key: text, operator: 'Exists' } : undefined;
  const negated = text[equals - 1] === '!';
  const key = text.slice(0, negated ? equals - 1 : equals).trim();
  const value = text.slice(text[equals + 1] === '=' && !negated ? equals + 2 : equals + 1).trim();
  if (!KEY.test(key) || /[\s=!,()]/.test(value)) return undefined;
  return { key, operator: negated ? 'NotIn' : 'In', values: [value] };
}

/**
 * A selector as URLs and kubectl write it (`app=web,tier!=db,env in (a,b),!legacy`): apimachinery's
 * labels.Parse, as matchExpressions; undefined when the text is not one.
 */
export function parseLabelSelectorText(text: string): LabelSelector | undefined {
  if (text.trim() === '') return {};
  const expressions = selectorTerms(text)?.map(selectorTerm);
  if (!expressions || expressions.some((expression) => expression === undefined)) return undefined;
  return { matchExpressions: expressions as NonNullable<LabelSelector['matchExpressions']> };
}
