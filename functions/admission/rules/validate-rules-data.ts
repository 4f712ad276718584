// Validates a rules document's data with the policy's schema: exactly what the function, the policy CLI
// and the tests use, so "valid" means one thing everywhere. Nothing here throws: any failure, however the
// document provokes it, is an invalid document with its errors.
// Validation runs rule by rule (validationSteps yields after each), so the function can validate a large
// new version in slices while requests are answered from the last good one (parse-rules-version.ts). With a
// rule cache (rule-cache.ts), a rule written exactly as one validated before is not validated, nor its
// expressions compiled, again: a fleet's documents share most of their rules.
import type { Policy, RuleOrigin } from '../policy.js';
import {
  crossRuleIssues,
  type FailurePolicy,
  FailurePolicySchema,
  type Rule,
  ruleSchema,
  type RulesDocument,
  RulesEnvelopeSchema,
} from './rules-document-schema.js';
import { formatPath, type Issue, issueLines } from '../schema-issues.js';
import * as v from '../schema.js';
import { PLACEMENT_ANNOTATION } from '../fleet/placement.js';
import { type RuleCache, ruleCacheKey } from './rule-cache.js';

export type ParsedRules<P> =
  | { ok: true; document: RulesDocument<P> }
  | { ok: false; errors: string[] /** The document's own failurePolicy, when it states a valid one. */; failurePolicy?: FailurePolicy };

const ruleSchemas = new WeakMap<object, v.GenericSchema>();

function ruleSchemaOf<P>(policy: Policy<P>): v.GenericSchema<unknown, Rule<P>> {
  let schema = ruleSchemas.get(policy);
  if (!schema) ruleSchemas.set(policy, (schema = ruleSchema(policy.parametersSchema)));
  return schema as v.GenericSchema<unknown, Rule<P>>;
}

function describeFailure(error: unknown): string {
  return error instanceof RangeError
    ? `too deeply nested to validate (${error.message})`
    : `cannot be validated: ${(error as Error)?.message ?? String(error)}`;
}

/**
 * Validates parsed data step by step, yielding after each rule; the generator's return value is the result.
 * Run it to the end with validateRulesData, or in slices (parse-rules-version.ts).
 */
export function* validationSteps<P>(policy: Policy<P>, given: unknown, cache?: RuleCache<P>): Generator<void, ParsedRules<P>> {
  let data = given;
  let stated = v.safeParse(FailurePolicySchema, (data as { failurePolicy?: unknown } | null)?.failurePolicy);
  const invalid = (errors: string[]): ParsedRules<P> => ({ ok: false, errors, failurePolicy: stated.success ? stated.output : undefined });
  let describeRule: ((index: number) => RuleOrigin | undefined) | undefined;
  try {
    if (Array.isArray(data) || policy.manifests?.detect(data)) {
      if (!policy.manifests)
        return invalid([
          `${policy.name} takes one rules document (failurePolicy and rules); Kubernetes manifests and multi-document YAML are for cel`,
        ]);
      const translated = policy.manifests.translate(Array.isArray(data) ? data : [data]);
      if (!translated.ok) return invalid(translated.errors);
      ({ data, describeRule } = translated);
      stated = v.safeParse(FailurePolicySchema, (data as { failurePolicy?: unknown }).failurePolicy);
    }
    // The envelope's errors do not stop the rules being checked: every bad field is reported at once.
    const envelope = v.safeParse(RulesEnvelopeSchema, data);
    const errors = envelope.success ? [] : issueLines(envelope.issues);
    const listed = (data as { rules?: unknown } | null)?.rules;
    const candidates: unknown[] = Array.isArray(listed) ? listed : [];
    const rules: Rule<P>[] = [];
    const schema = ruleSchemaOf(policy);
    for (const [index, candidate] of candidates.entries()) {
      const key = cache && ruleCacheKey(candidate);
      const known = key === undefined ? undefined : cache!.get(key, candidate);
      if (known) {
        rules.push(...known);
        continue;
      }
      const rule = v.safeParse(schema, candidate);
      if (rule.success) {
        const expanded = policy.expandRule ? policy.expandRule(rule.output) : [rule.output];
        if (key !== undefined) cache!.set(key, candidate, expanded);
        rules.push(...expanded);
      } else
        errors.push(...(describeRule ? manifestIssueLines(rule.issues, describeRule(index)) : issueLines(rule.issues, ['rules', index])));
      yield;
    }
    if (errors.length > 0) return invalid(errors);
    const issues = crossRuleIssues(rules, { requireKinds: policy.defaultKinds.length === 0 });
    if (issues.length > 0) return invalid(issues.map(({ path, message }) => `${formatPath(path)}: ${message}`));
    return { ok: true, document: { failurePolicy: envelope.success ? envelope.output.failurePolicy : 'Ignore', rules } };
  } catch (error) {
    return invalid([describeFailure(error)]);
  }
}

/** A translated rule's errors, named where the manifest wrote the field (`ValidatingPolicy x: spec.validations[0]…`). */
function manifestIssueLines(issues: readonly Issue[], origin: RuleOrigin | undefined): string[] {
  // An engine's rule rides in the field of its name, and its part (`validate`) under it: where the manifest
  // wrote that part is parametersAt already (`spec.rules[0].validate`), so `.kyverno.validate` is not repeated.
  const part = /\.(\w+)$/.exec(origin?.parametersAt ?? '')?.[1];
  const repeated = origin?.parametersIn
    ? new RegExp(`^parameters\\.${origin.parametersIn}(?=[.[:])`)
    : part
      ? new RegExp(`^parameters\\.\\w+\\.${part}(?=[.[:])`)
      : undefined;
  // The rule's other fields (`context`, `imageExtractors`) sit beside that part in the manifest's rule.
  const sibling = origin?.ruleAt ? new RegExp(`^parameters\\.${origin.ruleAt.field}\\.(?=\\w)`) : undefined;
  return issueLines(issues).map((line) => {
    const inPart = repeated ? line.replace(repeated, origin!.parametersAt) : line;
    const where = (sibling ? inPart.replace(sibling, `${origin!.ruleAt!.at}.`) : inPart)
      .replace(/^parameters(?=[.[:])/, origin?.parametersAt ?? 'spec')
      .replace(/^match(?=[.[:])/, origin?.matchAt ?? 'spec')
      .replace(/^clusters(?=:)/, `metadata.annotations.${PLACEMENT_ANNOTATION}`);
    return `${origin?.label ?? 'manifest'}: ${where}`;
  });
}

export function validateRulesData<P>(policy: Policy<P>, data: unknown, cache?: RuleCache<P>): ParsedRules<P> {
  const steps = validationSteps(policy, data, cache);
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}
