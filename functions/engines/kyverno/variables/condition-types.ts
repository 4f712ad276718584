// The shape of Kyverno's conditions (preconditions, deny) and the operators Kyverno documents, apart from
// their evaluation (conditions.ts), so the rules' schema can name them without loading the evaluator.
export interface Condition {
  key: unknown;
  operator: string;
  value?: unknown;
  message?: string;
}

export type Conditions = Condition[] | { any?: Condition[]; all?: Condition[] };

export const OPERATORS = [
  'Equals',
  'NotEquals',
  'Equal',
  'NotEqual',
  'In',
  'NotIn',
  'AnyIn',
  'AllIn',
  'AnyNotIn',
  'AllNotIn',
  'GreaterThan',
  'GreaterThanOrEquals',
  'LessThan',
  'LessThanOrEquals',
  'DurationGreaterThan',
  'DurationGreaterThanOrEquals',
  'DurationLessThan',
  'DurationLessThanOrEquals',
] as const;
