// The parts ValidatingAdmissionPolicy, Kyverno's ValidatingPolicy and Gatekeeper's K8sNativeValidation
// share, turned into the native rule's shape: the CEL lists become the cel policy's parameters (their
// schema compiles and checks them), matchConstraints becomes the rule's match, and autogen extends a
// Pod policy to the pod controllers.
import { DEFAULT_POD_CONTROLLERS, isPodController, POD_CONTROLLERS, type PodController } from '../admission/kubernetes/pod-controllers.js';

/** The CEL lists of a spec, as the cel policy's parameters (only those given, so defaults apply). */
export function celParameters(source: Record<string, unknown>): Record<string, unknown> {
  const parameters: Record<string, unknown> = {};
  for (const field of ['validations', 'variables', 'matchConditions', 'auditAnnotations'] as const) {
    if (source[field] !== undefined) parameters[field] = source[field];
  }
  return parameters;
}

/** matchConstraints (or a binding's matchResources) as the native match block. */
export function matchFromConstraints(constraints: unknown): Record<string, unknown> {
  const given = (constraints ?? {}) as Record<string, unknown>;
  const match: Record<string, unknown> = {};
  if (given.resourceRules !== undefined) match.resourceRules = given.resourceRules;
  if (given.excludeResourceRules !== undefined) match.excludeResourceRules = given.excludeResourceRules;
  if (given.matchPolicy !== undefined) match.matchPolicy = given.matchPolicy;
  if (given.namespaceSelector !== undefined && Object.keys(given.namespaceSelector as object).length > 0)
    match.namespaceSelector = given.namespaceSelector;
  if (given.objectSelector !== undefined && Object.keys(given.objectSelector as object).length > 0)
    match.labelSelector = given.objectSelector;
  return match;
}

type ResourceRule = { apiGroups?: string[]; apiVersions?: string[]; resources?: string[]; operations?: string[]; scope?: string };

const namesPods = (rule: ResourceRule) => (rule.apiGroups ?? []).includes('') && (rule.resources ?? []).includes('pods');

/**
 * Autogen: resource rules that name Pods gain the controllers' resources, and the parameters say which
 * kinds are judged by their pod template. `controllers` narrows the set (Kyverno's
 * spec.autogen.podControllers.controllers; empty turns autogen off).
 */
export function withPodControllers(
  match: Record<string, unknown>,
  parameters: Record<string, unknown>,
  controllers: readonly string[] = DEFAULT_POD_CONTROLLERS,
): void {
  const rules = match.resourceRules as ResourceRule[] | undefined;
  if (!Array.isArray(rules)) return;
  const podRules = rules.filter((rule) => rule && typeof rule === 'object' && namesPods(rule));
  const kinds = controllers.filter(isPodController) as PodController[];
  if (podRules.length === 0 || kinds.length === 0) return;
  const added = podRules.flatMap((rule) =>
    kinds.map((kind) => ({
      apiGroups: [POD_CONTROLLERS[kind].group],
      apiVersions: ['*'],
      resources: [POD_CONTROLLERS[kind].resource],
      operations: rule.operations,
      ...(rule.scope ? { scope: rule.scope } : {}),
    })),
  );
  match.resourceRules = [...rules, ...added];
  parameters.podControllers = kinds;
}
