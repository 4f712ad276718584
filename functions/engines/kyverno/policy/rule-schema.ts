// A Kyverno ClusterPolicy rule as the cel function runs it (parameters.kyverno): its policy and rule names,
// match and exclude as Kyverno reads them (resource-filter.ts), and what it validates: pattern, anyPattern,
// or CEL expressions (the validations beside it). The ClusterPolicy format writes these from the manifest.
import * as v from '../../../admission/schema.js';
import { type Condition, OPERATORS } from '../variables/condition-types.js';
import { POD_SECURITY_CONTROLS } from '../pss/controls.js';

const Strings = v.array(v.string());
const SelectorSchema = v.strictObject({
  matchLabels: v.optional(v.record(v.string(), v.string())),
  matchExpressions: v.optional(
    v.array(
      v.strictObject({
        key: v.string(),
        operator: v.picklist(['In', 'NotIn', 'Exists', 'DoesNotExist']),
        values: v.optional(Strings),
      }),
    ),
  ),
});
const ResourceDescriptionSchema = v.strictObject({
  kinds: v.optional(Strings),
  name: v.optional(v.string()),
  names: v.optional(Strings),
  namespaces: v.optional(Strings),
  annotations: v.optional(v.record(v.string(), v.string())),
  selector: v.optional(SelectorSchema),
  operations: v.optional(v.array(v.picklist(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']))),
});
const filterEntries = {
  resources: v.optional(ResourceDescriptionSchema),
  subjects: v.optional(
    v.array(v.strictObject({ kind: v.picklist(['User', 'Group', 'ServiceAccount']), name: v.string(), namespace: v.optional(v.string()) })),
  ),
};
const ResourceFilterSchema = v.strictObject(filterEntries);
const MatchBlockSchema = v.strictObject({
  ...filterEntries,
  any: v.optional(v.array(ResourceFilterSchema)),
  all: v.optional(v.array(ResourceFilterSchema)),
});

const ConditionSchema = v.strictObject({
  key: v.unknown(),
  operator: v.picklist(OPERATORS),
  value: v.optional(v.unknown()),
  message: v.optional(v.string()),
});
const ConditionsSchema = v.union([
  v.array(ConditionSchema),
  v.strictObject({ any: v.optional(v.array(ConditionSchema)), all: v.optional(v.array(ConditionSchema)) }),
]);
const ContextEntrySchema = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1)),
  variable: v.strictObject({ value: v.optional(v.unknown()), jmesPath: v.optional(v.string()), default: v.optional(v.unknown()) }),
});

export interface Foreach {
  list: string;
  elementScope?: boolean;
  context?: v.InferOutput<typeof ContextEntrySchema>[];
  preconditions?: Condition[] | { any?: Condition[]; all?: Condition[] };
  pattern?: unknown;
  anyPattern?: unknown[];
  deny?: { conditions?: Condition[] | { any?: Condition[]; all?: Condition[] } };
  foreach?: Foreach[];
}

const ForeachSchema: v.GenericSchema<unknown, Foreach> = v.strictObject({
  list: v.pipe(v.string(), v.minLength(1)),
  elementScope: v.optional(v.boolean()),
  context: v.optional(v.array(ContextEntrySchema)),
  preconditions: v.optional(ConditionsSchema),
  pattern: v.optional(v.unknown()),
  anyPattern: v.optional(v.array(v.unknown())),
  deny: v.optional(v.strictObject({ conditions: v.optional(ConditionsSchema) })),
  foreach: v.optional(v.array(v.lazy(() => ForeachSchema))),
}) as v.GenericSchema<unknown, Foreach>;

const PodSecurityExclusionSchema = v.strictObject({
  controlName: v.picklist(POD_SECURITY_CONTROLS),
  images: v.optional(v.array(v.string())),
  restrictedField: v.optional(v.string()),
  values: v.optional(v.array(v.string())),
});

/** A PolicyException that names this rule: requests it matches skip the rule, or, with podSecurity, are judged with its exclusions. */
const ExceptionSchema = v.strictObject({
  name: v.string(),
  match: MatchBlockSchema,
  conditions: v.optional(ConditionsSchema),
  podSecurity: v.optional(v.array(PodSecurityExclusionSchema)),
});

// The autogen rules made from a rule once it is validated (autogen.ts): their names, the pod controllers that
// replace Pod in match and exclude, and the exceptions that name them.
const AutogenSchema = v.optional(
  v.array(v.strictObject({ rule: v.string(), controllers: v.array(v.string()), exceptions: v.optional(v.array(ExceptionSchema)) })),
);

export const KyvernoRuleSchema = v.strictObject({
  policy: v.string(),
  rule: v.string(),
  match: MatchBlockSchema,
  exclude: v.optional(MatchBlockSchema),
  message: v.optional(v.string()),
  pattern: v.optional(v.unknown()),
  anyPattern: v.optional(v.array(v.unknown())),
  context: v.optional(v.array(ContextEntrySchema)),
  preconditions: v.optional(ConditionsSchema),
  deny: v.optional(v.strictObject({ conditions: v.optional(ConditionsSchema) })),
  foreach: v.optional(v.array(ForeachSchema)),
  exceptions: v.optional(v.array(ExceptionSchema)),
  autogen: AutogenSchema,
  podSecurity: v.optional(
    v.strictObject({
      level: v.picklist(['baseline', 'restricted']),
      version: v.optional(v.pipe(v.string(), v.regex(/^(latest|v1\.\d+)$/, 'expected latest or v1.<minor>')), 'latest'),
      exclude: v.optional(v.array(PodSecurityExclusionSchema), () => []),
    }),
  ),
});
export type KyvernoRule = v.InferOutput<typeof KyvernoRuleSchema>;

export interface MutateForeach {
  list: string;
  order?: 'Ascending' | 'Descending';
  context?: v.InferOutput<typeof ContextEntrySchema>[];
  preconditions?: Condition[] | { any?: Condition[]; all?: Condition[] };
  patchStrategicMerge?: unknown;
  patchesJson6902?: string;
  foreach?: MutateForeach[];
}

const MutateForeachSchema: v.GenericSchema<unknown, MutateForeach> = v.strictObject({
  list: v.pipe(v.string(), v.minLength(1)),
  order: v.optional(v.picklist(['Ascending', 'Descending'])),
  context: v.optional(v.array(ContextEntrySchema)),
  preconditions: v.optional(ConditionsSchema),
  patchStrategicMerge: v.optional(v.unknown()),
  patchesJson6902: v.optional(v.string()),
  foreach: v.optional(v.array(v.lazy(() => MutateForeachSchema))),
}) as v.GenericSchema<unknown, MutateForeach>;

/** A Kyverno mutate rule as the mutations function runs it (parameters.kyverno): the same parts as a validate rule's. */
export const KyvernoMutateRuleSchema = v.strictObject({
  policy: v.string(),
  rule: v.string(),
  match: MatchBlockSchema,
  exclude: v.optional(MatchBlockSchema),
  context: v.optional(v.array(ContextEntrySchema)),
  preconditions: v.optional(ConditionsSchema),
  exceptions: v.optional(v.array(ExceptionSchema)),
  autogen: AutogenSchema,
  mutate: v.strictObject({
    patchStrategicMerge: v.optional(v.unknown()),
    patchesJson6902: v.optional(v.string()),
    foreach: v.optional(v.array(MutateForeachSchema)),
  }),
});
export type KyvernoMutateRule = v.InferOutput<typeof KyvernoMutateRuleSchema>;

/** Whether the rule validates with Kyverno's own means (else with CEL). */
export const validatesWithoutCel = (rule: KyvernoRule) =>
  rule.pattern !== undefined ||
  rule.anyPattern !== undefined ||
  rule.deny !== undefined ||
  rule.foreach !== undefined ||
  rule.podSecurity !== undefined;

// Known once per rule of a rules version, when it first runs: reading a bundle never pays for it.
const regexCallers = new WeakMap<KyvernoRule, boolean>();

/** Whether the rule's JMESPath may call Kyverno's regex_ functions, which run on the RE2 engine. */
export function callsRegexFunctions(rule: KyvernoRule): boolean {
  let calls = regexCallers.get(rule);
  if (calls === undefined) {
    calls = JSON.stringify(rule).includes('regex_');
    regexCallers.set(rule, calls);
  }
  return calls;
}
