// A rules object of Kubernetes manifests (a multi-document YAML bundle, or one manifest): sorted into
// policies, bindings, templates, constraints and param objects, and turned into the native rules
// document the cel policy validates (one engine, one evaluation path). Every manifest must take part:
// an unknown kind, a binding without its policy, or a policy nothing enforces is an error, never skipped.
import type { ManifestTranslation } from '../admission/policy.js';
import { type Manifest, nameOf, type TranslatedRule } from './cel-rule-parts.js';
import { constraintKindOf, rulesFromConstraintTemplate } from './gatekeeper-constraint-template.js';
import { rulesFromKyvernoPolicy } from './kyverno-validating-policy.js';
import { rulesFromValidatingAdmissionPolicy } from './validating-admission-policy.js';

const groupOf = (manifest: Manifest) =>
  typeof manifest.apiVersion === 'string' && manifest.apiVersion.includes('/') ? manifest.apiVersion.split('/')[0]! : '';

const UNSUPPORTED: Record<string, string> = {
  MutatingAdmissionPolicy: 'mutating policies are not run by cel (a validating function)',
  MutatingAdmissionPolicyBinding: 'mutating policies are not run by cel (a validating function)',
  MutatingPolicy: 'mutating policies are not run by cel (a validating function)',
  ImageValidatingPolicy: 'image verification needs registry access',
  GeneratingPolicy: 'generation writes to the cluster',
  DeletingPolicy: 'deletion acts on the cluster',
  ClusterPolicy: 'Kyverno ClusterPolicy (JMESPath patterns) is not CEL; use ValidatingPolicy',
  Policy: 'Kyverno Policy (JMESPath patterns) is not CEL; use ValidatingPolicy',
};

/** Whether parsed rules data is manifests: several documents, or one with apiVersion and kind. */
export function isManifestData(data: unknown): boolean {
  if (Array.isArray(data)) return true;
  return (
    typeof data === 'object' &&
    data !== null &&
    typeof (data as Manifest).apiVersion === 'string' &&
    typeof (data as Manifest).kind === 'string'
  );
}

export function rulesFromManifests(documents: unknown[]): ManifestTranslation {
  const errors: string[] = [];
  const manifests: Manifest[] = [];
  documents.forEach((document, index) => {
    if (document === null || document === undefined) return; // an empty document (a trailing ---)
    const manifest = document as Manifest;
    if (
      typeof document !== 'object' ||
      Array.isArray(document) ||
      typeof manifest.apiVersion !== 'string' ||
      typeof manifest.kind !== 'string'
    ) {
      errors.push(`document ${index + 1}: expected a Kubernetes manifest with apiVersion and kind`);
    } else if (!nameOf(manifest)) errors.push(`document ${index + 1} (${manifest.kind}): metadata.name is required`);
    else manifests.push(manifest);
  });

  const policies = manifests.filter((m) => groupOf(m) === 'admissionregistration.k8s.io' && m.kind === 'ValidatingAdmissionPolicy');
  const bindings = manifests.filter((m) => groupOf(m) === 'admissionregistration.k8s.io' && m.kind === 'ValidatingAdmissionPolicyBinding');
  const kyverno = manifests.filter((m) => groupOf(m) === 'policies.kyverno.io' && m.kind === 'ValidatingPolicy');
  const templates = manifests.filter((m) => groupOf(m) === 'templates.gatekeeper.sh' && m.kind === 'ConstraintTemplate');
  const constraints = manifests.filter((m) => groupOf(m) === 'constraints.gatekeeper.sh');
  const paramKinds = new Set(
    policies.map((policy) =>
      JSON.stringify([
        (policy.spec?.paramKind as Manifest | undefined)?.apiVersion,
        (policy.spec?.paramKind as Manifest | undefined)?.kind,
      ]),
    ),
  );
  const params = manifests.filter((m) => paramKinds.has(JSON.stringify([m.apiVersion, m.kind])));
  const used = new Set([...policies, ...bindings, ...kyverno, ...templates, ...constraints, ...params]);
  for (const manifest of manifests) {
    if (used.has(manifest)) continue;
    const why = UNSUPPORTED[String(manifest.kind)] ?? "not a policy, binding, template or constraint, and no policy's paramKind names it";
    errors.push(`${manifest.kind} ${nameOf(manifest)}: ${why}`);
  }

  const translated: TranslatedRule[] = [];
  const take = (result: { rules: TranslatedRule[]; errors: string[] }) => {
    translated.push(...result.rules);
    errors.push(...result.errors);
  };
  for (const policy of policies)
    take(
      rulesFromValidatingAdmissionPolicy(
        policy,
        bindings.filter((b) => b.spec?.policyName === nameOf(policy)),
        params,
      ),
    );
  for (const binding of bindings) {
    if (!policies.some((policy) => nameOf(policy) === binding.spec?.policyName))
      errors.push(
        `ValidatingAdmissionPolicyBinding ${nameOf(binding)}: its policy ${String(binding.spec?.policyName)} is not in the bundle`,
      );
  }
  for (const policy of kyverno) take(rulesFromKyvernoPolicy(policy));
  for (const template of templates)
    take(
      rulesFromConstraintTemplate(
        template,
        constraints.filter((c) => c.kind === constraintKindOf(template)),
      ),
    );
  for (const constraint of constraints) {
    if (!templates.some((template) => constraintKindOf(template) === constraint.kind))
      errors.push(`${constraint.kind} ${nameOf(constraint)}: no ConstraintTemplate in the bundle defines kind ${constraint.kind}`);
  }
  if (errors.length > 0) return { ok: false, errors };

  // The document's failure policy answers when nothing can be evaluated (rules unusable, deadline): the
  // strictest any manifest asks for, as the API server would apply each webhook's own.
  const failurePolicy = translated.some(({ rule }) => rule.failurePolicy === 'Fail') ? 'Fail' : 'Ignore';
  return {
    ok: true,
    data: { failurePolicy, rules: translated.map(({ rule }) => rule) },
    describeRule: (index) =>
      translated[index] && {
        label: translated[index].label,
        parametersAt: translated[index].parametersAt,
        matchAt: translated[index].matchAt,
      },
  };
}
