// A Kyverno ClusterPolicy or Policy rule as Kyverno's engine runs it here: the shape a ClusterPolicy writes
// (match, exclude, context, preconditions, then validate or mutate), with what the formats add to it: the
// policy's name, the PolicyExceptions that name the rule, and the autogen rules made from it (autogen/).
// The engine's one rule type, KyvernoRule, is inferred from this schema; WrittenRule is a rule as a
// ClusterPolicy writes it, before a format has read it.
import { ImageExtractorsSchema } from '../verify-images/image-extractor-schema.js';
import { type ImageRule, readVerifyImages } from '../verify-images/verify-images-rule.js';
import * as v from '../../../admission/schema.js';
import type { Condition } from '../variables/condition-types.js';
import { ConditionsSchema } from './conditions-schema.js';
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
  namespaceSelector: v.optional(SelectorSchema),
  operations: v.optional(v.array(v.picklist(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']))),
});
const filterEntries = {
  resources: v.optional(ResourceDescriptionSchema),
  roles: v.optional(Strings),
  clusterRoles: v.optional(Strings),
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
export type ResourceFilter = v.InferOutput<typeof ResourceFilterSchema>;
/** A match or exclude block: `any`, `all`, or the legacy single filter. */
export type MatchBlock = v.InferOutput<typeof MatchBlockSchema>;

type Conditions = Condition[] | { any?: Condition[]; all?: Condition[] };
// One source per entry: a variable, a read of the cluster (answered from the cluster view), or an image's data.
const ContextEntrySchema = v.pipe(
  v.strictObject({
    name: v.pipe(v.string(), v.minLength(1)),
    variable: v.optional(
      v.strictObject({ value: v.optional(v.unknown()), jmesPath: v.optional(v.string()), default: v.optional(v.unknown()) }),
    ),
    apiCall: v.optional(
      v.strictObject({
        urlPath: v.pipe(v.string(), v.minLength(1)),
        method: v.optional(v.literal('GET')),
        jmesPath: v.optional(v.string()),
        default: v.optional(v.unknown()),
      }),
    ),
    configMap: v.optional(v.strictObject({ name: v.pipe(v.string(), v.minLength(1)), namespace: v.optional(v.string()) })),
    // An image's data from its registry (image-lookups.ts); credentials are the deployment's, refused here.
    imageRegistry: v.optional(v.strictObject({ reference: v.pipe(v.string(), v.minLength(1)), jmesPath: v.optional(v.string()) })),
    // A GlobalContextEntry's value, its definition resolved from the bundle by the format.
    globalReference: v.optional(
      v.strictObject({
        name: v.pipe(v.string(), v.minLength(1)),
        jmesPath: v.optional(v.string()),
        entry: v.union([
          v.strictObject({
            kubernetesResource: v.strictObject({ apiVersion: v.string(), resource: v.string(), namespace: v.optional(v.string()) }),
          }),
          v.strictObject({ apiCall: v.strictObject({ urlPath: v.string() }) }),
        ]),
      }),
    ),
  }),
  v.check(
    (entry) =>
      [entry.variable, entry.apiCall, entry.configMap, entry.globalReference, entry.imageRegistry].filter((source) => source !== undefined)
        .length === 1,
    'expected exactly one of variable, apiCall, configMap, globalReference, imageRegistry',
  ),
);
export type ContextEntry = v.InferOutput<typeof ContextEntrySchema>;

/** What every foreach loop has, in validate and mutate rules alike: its list, then per element its context and preconditions. */
export interface Loop {
  list: string;
  context?: ContextEntry[];
  preconditions?: Conditions;
}
const loopEntries = {
  list: v.pipe(v.string(), v.minLength(1)),
  context: v.optional(v.array(ContextEntrySchema)),
  preconditions: v.optional(ConditionsSchema),
};

export interface Foreach extends Loop {
  /** Whether each element stands for the resource (an error when it is not an object). */
  elementScope?: boolean;
  pattern?: unknown;
  anyPattern?: unknown[];
  deny?: { conditions?: Conditions };
  foreach?: Foreach[];
}

const ForeachSchema: v.GenericSchema<unknown, Foreach> = v.strictObject({
  ...loopEntries,
  elementScope: v.optional(v.boolean()),
  pattern: v.optional(v.unknown()),
  anyPattern: v.optional(v.array(v.unknown())),
  deny: v.optional(v.strictObject({ conditions: v.optional(ConditionsSchema) })),
  foreach: v.optional(v.array(v.lazy(() => ForeachSchema))),
}) as v.GenericSchema<unknown, Foreach>;

export interface MutateForeach extends Loop {
  order?: 'Ascending' | 'Descending';
  patchStrategicMerge?: unknown;
  patchesJson6902?: string;
  foreach?: MutateForeach[];
}

const MutateForeachSchema: v.GenericSchema<unknown, MutateForeach> = v.strictObject({
  ...loopEntries,
  order: v.optional(v.picklist(['Ascending', 'Descending'])),
  patchStrategicMerge: v.optional(v.unknown()),
  patchesJson6902: v.optional(v.string()),
  foreach: v.optional(v.array(v.lazy(() => MutateForeachSchema))),
}) as v.GenericSchema<unknown, MutateForeach>;

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
export type Exception = v.InferOutput<typeof ExceptionSchema>;

/** What a validate rule judges with Kyverno's own means; validate.cel is CEL's, beside the rule (the rule's `embedded`). */
const ValidateSchema = v.strictObject({
  message: v.optional(v.string()),
  pattern: v.optional(v.unknown()),
  anyPattern: v.optional(v.array(v.unknown())),
  deny: v.optional(v.strictObject({ conditions: v.optional(ConditionsSchema) })),
  foreach: v.optional(v.array(ForeachSchema)),
  podSecurity: v.optional(
    v.strictObject({
      level: v.picklist(['baseline', 'restricted']),
      version: v.optional(v.pipe(v.string(), v.regex(/^(latest|v1\.\d+)$/, 'expected latest or v1.<minor>')), 'latest'),
      exclude: v.optional(v.array(PodSecurityExclusionSchema), () => []),
    }),
  ),
});

const MutateSchema = v.strictObject({
  patchStrategicMerge: v.optional(v.unknown()),
  patchesJson6902: v.optional(v.string()),
  foreach: v.optional(v.array(MutateForeachSchema)),
});

/** A verifyImages rule's entries, read with Kyverno's defaults (verify-images/verify-images-rule.ts). */
const VerifyImagesSchema = v.pipe(
  v.array(v.unknown()),
  v.rawTransform(({ dataset, addIssue, NEVER }): ImageRule => {
    const read = readVerifyImages(dataset.value);
    if ('verifications' in read) return read;
    for (const problem of read.problems) {
      // `verifyImages[0].attestors[1]: …` names the field under this one: the path, so errors name it where written.
      const [, at = '', message = problem] = /^verifyImages((?:\[\d+\]|\.\w+)*): (.*)$/s.exec(problem) ?? [];
      const keys = [...at.matchAll(/\[(\d+)\]|\.(\w+)/g)].map(([, index, name]) => (index !== undefined ? Number(index) : name!));
      addIssue({ ...(keys.length > 0 ? { path: v.issuePath(...keys) } : {}), message });
    }
    return NEVER;
  }),
);

export const KyvernoRuleSchema = v.pipe(
  v.strictObject({
    /** The policy's name and the rule's, as reports name them. */
    policy: v.string(),
    rule: v.string(),
    match: MatchBlockSchema,
    exclude: v.optional(MatchBlockSchema),
    context: v.optional(v.array(ContextEntrySchema)),
    preconditions: v.optional(ConditionsSchema),
    exceptions: v.optional(v.array(ExceptionSchema)),
    // The autogen rules made from this rule once it is validated (autogen/expand.ts): their names, the pod
    // controllers that replace Pod in match and exclude, and the exceptions that name them.
    autogen: v.optional(
      v.array(v.strictObject({ rule: v.string(), controllers: v.array(v.string()), exceptions: v.optional(v.array(ExceptionSchema)) })),
    ),
    validate: v.optional(ValidateSchema),
    mutate: v.optional(MutateSchema),
    verifyImages: v.optional(VerifyImagesSchema),
    // A verifyImages rule's own image locations per kind (verify-images/image-extractors.ts).
    imageExtractors: v.optional(ImageExtractorsSchema),
  }),
  v.check(
    ({ validate, mutate, verifyImages }) => [validate, mutate, verifyImages].filter((part) => part !== undefined).length === 1,
    'expected one of validate, mutate or verifyImages',
  ),
);
export type KyvernoRule = v.InferOutput<typeof KyvernoRuleSchema>;
/** A rule as a format writes it for the engine, before the schema has read it. */
export type KyvernoRuleInput = v.InferInput<typeof KyvernoRuleSchema>;

/** A rule of the given kind: the cel function runs validate rules, the mutations function mutate rules. */
export const kyvernoRuleSchemaOf = (kind: 'validate' | 'mutate') =>
  v.pipe(
    KyvernoRuleSchema,
    // verifyImages rules validate (cel verifies the images) and mutate (the mutations function pins digests).
    v.check((rule) => rule[kind] !== undefined || rule.verifyImages !== undefined, `expected a ${kind} rule`),
  );

/**
 * A rule as a ClusterPolicy writes it, which the ClusterPolicy formats read: the schema's fields, not yet
 * checked, and what the formats refuse or hand to CEL (celPreconditions, validate.cel).
 */
export type WrittenRule = Partial<Pick<KyvernoRuleInput, 'preconditions'>> & {
  name?: string;
  match?: MatchBlock & { resources?: { namespaceSelector?: unknown } };
  exclude?: MatchBlock;
  context?: Record<string, unknown>[];
  celPreconditions?: { name: string; expression: string }[];
  validate?: Record<string, unknown>;
  mutate?: Record<string, unknown>;
  generate?: unknown;
  verifyImages?: unknown;
};

/** Whether the rule validates with Kyverno's own means (else with CEL alone). */
export const validatesWithoutCel = ({ validate }: KyvernoRule) =>
  validate !== undefined &&
  (validate.pattern !== undefined ||
    validate.anyPattern !== undefined ||
    validate.deny !== undefined ||
    validate.foreach !== undefined ||
    validate.podSecurity !== undefined);

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
