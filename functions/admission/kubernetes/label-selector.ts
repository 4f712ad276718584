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
