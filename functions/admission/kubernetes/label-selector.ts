// Kubernetes label selectors (matchLabels + matchExpressions), evaluated against an object's labels.
// Hand-written: the semantics fit in a few lines and no maintained JS package implements them on their own.
import { ownValue } from './own-value.js';
import * as z from '../zod.js';

export const LabelSelectorSchema = z
  .strictObject({
    matchLabels: z.optional(z.record(z.string(), z.string())),
    matchExpressions: z.optional(
      z.array(
        z.strictObject({
          key: z.string().check(z.minLength(1)),
          operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
          values: z.optional(z.array(z.string())),
        }),
      ),
    ),
  })
  .check(z.superRefine((selector, ctx) => {
    selector.matchExpressions?.forEach((expression, index) => {
      const needsValues = expression.operator === 'In' || expression.operator === 'NotIn';
      const count = expression.values?.length ?? 0;
      if (needsValues && count === 0) {
        ctx.addIssue({ code: 'custom', path: ['matchExpressions', index, 'values'], message: `operator ${expression.operator} needs at least one value` });
      }
      if (!needsValues && count > 0) {
        ctx.addIssue({ code: 'custom', path: ['matchExpressions', index, 'values'], message: `operator ${expression.operator} takes no values` });
      }
    });
  }));
export type LabelSelector = z.infer<typeof LabelSelectorSchema>;

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
      case 'DoesNotExist':
        return !has;
    }
  });
}
