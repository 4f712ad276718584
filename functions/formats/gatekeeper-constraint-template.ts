// Gatekeeper's ConstraintTemplate and its constraints, one rule per constraint. A template with a
// K8sNativeValidation engine runs its CEL (as Gatekeeper does by default since 3.17): variables.params is the
// constraint's spec.parameters, variables.anyObject the object (oldObject on DELETE), params the constraint.
// Otherwise its Rego runs on the Rego engine (gatekeeper-rego-target.ts). The constraint's match (kinds,
// namespaces, excludedNamespaces, labelSelector, namespaceSelector, name, scope) is the rule's;
// enforcementAction deny/warn/dryrun becomes Deny/Warn/Audit, `scoped` takes the actions of the webhook's
// enforcement point; denials and warnings are worded as Gatekeeper's webhook words them. Gatekeeper's
// webhook fails open (Ignore). A template whose Rego reads data.inventory (the cluster's objects) reads the
// cluster view, of the kinds its requires-sync-data annotation names; without it, or calling external data,
// it is refused with the reason.
import { regoEngine } from '../engines/rego/index.js';
import { celParameters } from './cel-rule-parts.js';
import { type ClusterRead, uniqueReads } from '../admission/cluster/cluster-reads.js';
import {
  configSyncedReads,
  isSyncConfig,
  type RegoCode,
  regoCodeOf,
  regoRuleOf,
  SYNC_ANNOTATION,
  syncedReads,
} from './gatekeeper-rego-target.js';
import { type FormatResult, groupOf, type Manifest, nameOf, type PolicyFormat, type TranslatedRule, joinResults } from './policy-format.js';

const ACTIONS: Record<string, string[]> = { deny: ['Deny'], warn: ['Warn'], dryrun: ['Audit'] };

type Code = { engine?: string; source?: Record<string, unknown> };

/** The template's K8sNativeValidation source and where it sits, or undefined. */
export function nativeValidationOf(template: Manifest): { source: Record<string, unknown>; at: string } | undefined {
  const targets = (template.spec?.targets ?? []) as { code?: Code[] }[];
  for (const [targetIndex, target] of targets.entries()) {
    for (const [codeIndex, code] of (target.code ?? []).entries()) {
      if (code?.engine === 'K8sNativeValidation')
        return { source: code.source ?? {}, at: `spec.targets[${targetIndex}].code[${codeIndex}].source` };
    }
  }
  return undefined;
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

/** What the template runs: its CEL, else its Rego, else why neither can run. */
type TemplateCode = { cel: { source: Record<string, unknown>; at: string } } | { rego: RegoCode } | { error: string };

function codeOf(template: Manifest): TemplateCode {
  const native = nativeValidationOf(template);
  if (native) return { cel: native };
  const rego = regoCodeOf(template);
  return 'error' in rego ? rego : { rego };
}

// Gatekeeper's enforcement points: the webhook's, and every point.
const WEBHOOK_POINTS = new Set(['validation.gatekeeper.sh', '*']);

type ScopedAction = { action?: unknown; enforcementPoints?: { name?: unknown }[] };

/** The constraint's actions at the webhook: its enforcementAction, or with `scoped`, those its webhook point names. */
function actionsOf(constraint: Manifest): string[] | { error: string } {
  const spec = (constraint.spec ?? {}) as Record<string, unknown>;
  const action = typeof spec.enforcementAction === 'string' ? spec.enforcementAction : 'deny';
  const name = `${constraint.kind} ${nameOf(constraint)}`;
  if (action !== 'scoped')
    return ACTIONS[action] ?? { error: `${name}: spec.enforcementAction ${action} is not supported (deny, warn, dryrun or scoped)` };
  const scoped = (spec.scopedEnforcementActions ?? []) as ScopedAction[];
  if (!Array.isArray(scoped)) return { error: `${name}: spec.scopedEnforcementActions must be a list` };
  const actions = new Set<string>();
  for (const [index, entry] of scoped.entries()) {
    const webhook = (entry.enforcementPoints ?? []).some((point) => WEBHOOK_POINTS.has(String(point?.name)));
    if (!webhook) continue;
    const mapped = ACTIONS[String(entry.action)];
    if (!mapped)
      return {
        error: `${name}: spec.scopedEnforcementActions[${index}].action ${String(entry.action)} is not supported (deny, warn or dryrun)`,
      };
    for (const one of mapped) actions.add(one);
  }
  // No action at the webhook: the constraint only audits, as dryrun does.
  return actions.size > 0 ? [...actions] : ['Audit'];
}

const INVENTORY = /data\.inventory\b/;

/** The rule's engine parameters for one constraint, or why the constraint cannot run. */
function parametersFor(
  code: Exclude<TemplateCode, { error: string }>,
  constraint: Manifest,
  template: Manifest,
  configReads: readonly ClusterRead[],
): { parameters: Record<string, unknown>; at: string } | { error: string } {
  if ('cel' in code) {
    const spec = (constraint.spec ?? {}) as Record<string, unknown>;
    const parameters = celParameters(code.cel.source);
    parameters.variables = [
      { name: 'anyObject', expression: "request.operation == 'DELETE' ? oldObject : object" },
      ...((parameters.variables as unknown[]) ?? []),
    ];
    parameters.variableValues = { params: spec.parameters ?? {} };
    parameters.params = constraint;
    return { parameters, at: code.cel.at };
  }
  const rego = code.rego;
  const synced = syncedReads(template);
  if (synced && 'error' in synced) return synced;
  // What data.inventory holds: the kinds the template asks for, and those the bundle's sync Config syncs.
  const inventory = synced || configReads.length > 0 ? uniqueReads([...(synced ?? []), ...configReads]) : undefined;
  const rule = regoRuleOf(rego, constraint, inventory);
  const problems = regoEngine.check(rule);
  if (problems.length > 0) {
    const reason = problems.map((problem) =>
      INVENTORY.test(problem)
        ? `its Rego ${problem}: data.inventory holds the cluster objects Gatekeeper syncs (a referential policy); name the kinds it reads in the template's ${SYNC_ANNOTATION} annotation or a sync Config (config.gatekeeper.sh) in the bundle, and the cluster snapshot holds them`
        : problem,
    );
    return { error: `ConstraintTemplate ${nameOf(template)}: ${reason.join('; ')}` };
  }
  return { parameters: { rego: rule }, at: rego.at };
}

export function rulesFromConstraintTemplate(
  template: Manifest,
  constraints: Manifest[],
  configReads: readonly ClusterRead[] = [],
): FormatResult {
  const code = codeOf(template);
  if ('error' in code) return { rules: [], errors: [code.error] };
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
    const actions = actionsOf(constraint);
    if ('error' in actions) {
      errors.push(actions.error);
      continue;
    }
    const made = parametersFor(code, constraint, template, configReads);
    if ('error' in made) {
      errors.push(made.error);
      break;
    }
    rules.push({
      rule: {
        name: `${templateName}/${name}`,
        mode: 'enforce',
        failurePolicy: 'Ignore',
        validationActions: actions,
        origin: { kind: String(constraint.kind), name, wording: 'gatekeeper' },
        match: matchOfConstraint(given),
        parameters: made.parameters,
      },
      label: `ConstraintTemplate ${templateName} (constraint ${name})`,
      parametersAt: made.at,
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
  claims: (manifest, bundle) => isTemplate(manifest) || isConstraint(manifest) || (isSyncConfig(manifest) && bundle.some(isTemplate)),
  // The Rego engine loads for a bundle with a template that runs Rego, and only then.
  engines: (claimed) => (claimed.some((manifest) => isTemplate(manifest) && !nativeValidationOf(manifest)) ? [regoEngine] : []),
  rulesOf(claimed) {
    const templates = claimed.filter(isTemplate);
    const constraints = claimed.filter(isConstraint);
    const config = configSyncedReads(claimed);
    const results = templates.map((template) =>
      rulesFromConstraintTemplate(
        template,
        constraints.filter((constraint) => constraint.kind === constraintKindOf(template)),
        config.reads,
      ),
    );
    const orphans = constraints.filter((constraint) => !templates.some((template) => constraintKindOf(template) === constraint.kind));
    const errors = orphans.map(
      (constraint) => `${constraint.kind} ${nameOf(constraint)}: no ConstraintTemplate in the bundle defines kind ${constraint.kind}`,
    );
    return joinResults([...results, { rules: [], errors: [...config.errors, ...errors] }]);
  },
};
