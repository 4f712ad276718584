// Gatekeeper's ConstraintTemplate with a K8sNativeValidation engine, and its constraints, as native rules:
// one per constraint. As Gatekeeper binds them: variables.params is the constraint's spec.parameters,
// variables.anyObject is the object (oldObject on DELETE), params is the constraint itself. The
// constraint's match (kinds, namespaces, excludedNamespaces, labelSelector, namespaceSelector, name, scope)
// is the rule's; enforcementAction deny/warn/dryrun becomes Deny/Warn/Audit. Gatekeeper's webhook fails open
// (Ignore) unless the constraint says otherwise. Templates with Rego only are refused: no Rego engine here.
import { celParameters } from './cel-rule-parts.js';
import { type FormatResult, groupOf, type Manifest, nameOf, type PolicyFormat, type TranslatedRule, joinResults } from './policy-format.js';

const ACTIONS: Record<string, string[]> = { deny: ['Deny'], warn: ['Warn'], dryrun: ['Audit'] };

type Code = { engine?: string; source?: Record<string, unknown> };

/** The template's K8sNativeValidation source and where it sits, or an error. */
export function nativeValidationOf(template: Manifest): { source: Record<string, unknown>; at: string } | { error: string } {
  const targets = (template.spec?.targets ?? []) as { code?: Code[] }[];
  for (const [targetIndex, target] of targets.entries()) {
    for (const [codeIndex, code] of (target.code ?? []).entries()) {
      if (code?.engine === 'K8sNativeValidation')
        return { source: code.source ?? {}, at: `spec.targets[${targetIndex}].code[${codeIndex}].source` };
    }
  }
  return { error: `ConstraintTemplate ${nameOf(template)}: no K8sNativeValidation code; Rego templates cannot run here (only CEL)` };
}

export function constraintKindOf(template: Manifest): string | undefined {
  const kind = (template.spec as { crd?: { spec?: { names?: { kind?: unknown } } } } | undefined)?.crd?.spec?.names?.kind;
  return typeof kind === 'string' ? kind : undefined;
}

const MATCH_FIELDS = new Set([
  'kinds',
  'namespaces',
  'excludedNamespaces',
  'labelSelector',
  'namespaceSelector',
  'name',
  'scope',
  'source',
]);

/** Gatekeeper's match as the native one: its name glob and scope, and `namespaces` not disqualifying objects without one. */
function matchOfConstraint(given: Record<string, unknown>): Record<string, unknown> {
  const kinds = ((given.kinds ?? []) as { kinds?: string[] }[]).flatMap((entry) => entry?.kinds ?? []);
  const match: Record<string, unknown> = { kinds: kinds.length > 0 ? kinds : ['*'] };
  for (const field of ['namespaces', 'excludedNamespaces', 'labelSelector', 'namespaceSelector', 'scope'] as const)
    if (given[field] !== undefined) match[field] = given[field];
  if (given.namespaces !== undefined) match.clusterScopedInNamespaces = true;
  if (given.name !== undefined && given.name !== '') match.names = [String(given.name)];
  return match;
}

export function rulesFromConstraintTemplate(template: Manifest, constraints: Manifest[]): FormatResult {
  const native = nativeValidationOf(template);
  if ('error' in native) return { rules: [], errors: [native.error] };
  const templateName = nameOf(template);
  const rules: TranslatedRule[] = [];
  const errors: string[] = [];
  for (const constraint of constraints) {
    const name = nameOf(constraint);
    const spec = (constraint.spec ?? {}) as Record<string, unknown>;
    const given = (spec.match ?? {}) as Record<string, unknown>;
    const unknown = Object.keys(given).filter((field) => !MATCH_FIELDS.has(field));
    if (unknown.length > 0) {
      errors.push(`${constraint.kind} ${name}: spec.match.${unknown[0]} is not a Gatekeeper match field (${[...MATCH_FIELDS].join(', ')})`);
      continue;
    }
    if (given.source !== undefined && given.source !== 'All' && given.source !== 'Original') {
      errors.push(
        `${constraint.kind} ${name}: spec.match.source ${String(given.source)}: only requests for the objects themselves reach the webhook (All or Original)`,
      );
      continue;
    }
    const match = matchOfConstraint(given);
    const action = typeof spec.enforcementAction === 'string' ? spec.enforcementAction : 'deny';
    if (!ACTIONS[action]) {
      errors.push(`${constraint.kind} ${name}: spec.enforcementAction ${action} is not supported (deny, warn or dryrun)`);
      continue;
    }
    const parameters = celParameters(native.source);
    parameters.variables = [
      { name: 'anyObject', expression: "request.operation == 'DELETE' ? oldObject : object" },
      ...((parameters.variables as unknown[]) ?? []),
    ];
    parameters.variableValues = { params: spec.parameters ?? {} };
    parameters.params = constraint;
    rules.push({
      rule: {
        name: `${templateName}/${name}`,
        mode: 'enforce',
        failurePolicy: 'Ignore',
        validationActions: ACTIONS[action],
        origin: { kind: String(constraint.kind), name },
        match,
        parameters,
      },
      label: `ConstraintTemplate ${templateName} (constraint ${name})`,
      parametersAt: native.at,
      matchAt: 'spec.match',
    });
  }
  if (constraints.length === 0)
    errors.push(
      `ConstraintTemplate ${templateName}: no ${constraintKindOf(template) ?? 'constraint'} in the bundle uses it, so it would never be enforced`,
    );
  return { rules, errors };
}

const isTemplate = (manifest: Manifest) => groupOf(manifest) === 'templates.gatekeeper.sh' && manifest.kind === 'ConstraintTemplate';
const isConstraint = (manifest: Manifest) => groupOf(manifest) === 'constraints.gatekeeper.sh';

export const gatekeeperFormat: PolicyFormat = {
  name: 'Gatekeeper ConstraintTemplate',
  claims: (manifest) => isTemplate(manifest) || isConstraint(manifest),
  rulesOf(claimed) {
    const templates = claimed.filter(isTemplate);
    const constraints = claimed.filter(isConstraint);
    const results = templates.map((template) =>
      rulesFromConstraintTemplate(
        template,
        constraints.filter((constraint) => constraint.kind === constraintKindOf(template)),
      ),
    );
    const orphans = constraints.filter((constraint) => !templates.some((template) => constraintKindOf(template) === constraint.kind));
    const errors = orphans.map(
      (constraint) => `${constraint.kind} ${nameOf(constraint)}: no ConstraintTemplate in the bundle defines kind ${constraint.kind}`,
    );
    return joinResults([...results, { rules: [], errors }]);
  },
};
