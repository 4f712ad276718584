// What the cluster must send each webhook, derived from the rules documents (never from code defaults):
// a policy is registered only when it has a document, and each webhook's rules come from its rules' match
// blocks: operations, kinds → resources (subresources only where a document names them), or resourceRules
// as written. `*` is never registered as `*/*`: "every kind" is every built-in resource but the
// high-volume ones (leases, events, endpoints), which are sent only when a document names them.
// A policy that routes each of its policies apart (cel) gets a webhook per policy, carrying that policy's
// failurePolicy, namespace and object selectors, matchPolicy, and the matchConditions the API server can
// evaluate itself, so it filters before calling; one per binding when its bindings select different
// namespaces.
import { DEFAULT_OPERATIONS } from '../admission/decide/match-rule.js';
import type { LabelSelector } from '../admission/kubernetes/label-selector.js';
import type { ResourceRule } from '../admission/kubernetes/resource-rules.js';
import { BINDING_SEPARATOR } from '../admission/decide/routed-rules.js';
import { type Policy, type PolicyDocument, policyNameOf, routeOf } from '../admission/policy.js';
import type { FailurePolicy, Rule, RulesDocument } from '../admission/rules/rules-document-schema.js';
import { EVERY_KIND_RESOURCES, HIGH_VOLUME_KINDS, KIND_RESOURCES } from '../admission/kubernetes/kubernetes-resources.js';

export interface WebhookRule {
  apiGroups: string[];
  apiVersions: string[];
  operations: string[];
  resources: string[];
  scope: string;
}

export interface Registration {
  /** The webhook's name: `<policy>.portcullis.io`, or `<manifest>.cel.portcullis.io`. */
  name: string;
  policy: Policy<never>;
  /** The route it calls, without the API's base URL. */
  path: string;
  rules: WebhookRule[];
  failurePolicy: FailurePolicy;
  /** The longest timeout its rules ask for (Kyverno's webhookTimeoutSeconds), else the policy's default. */
  timeoutSeconds?: number;
  /** IfNeeded when a rule asks for it, Never when every rule that says says Never; else the policy's default. */
  reinvocationPolicy?: 'Never' | 'IfNeeded';
  matchPolicy: 'Equivalent' | 'Exact';
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  matchConditions?: { name: string; expression: string }[];
}

export type Registrations = { ok: true; registrations: Registration[]; notes: string[] } | { ok: false; errors: string[] };

const OPERATION_ORDER = ['*', 'CREATE', 'UPDATE', 'DELETE', 'CONNECT'];
const byOperationOrder = (a: string, b: string) => OPERATION_ORDER.indexOf(a) - OPERATION_ORDER.indexOf(b);
// Lowercase RFC 1123 labels joined by dots: what a webhook's name may be.
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** What deriving finds besides the rules: errors (the document cannot be registered) and notes. */
interface Findings {
  errors: string[];
  notes: Set<string>;
}

const WILDCARD_NOTE =
  'every kind (`*`) is registered as the built-in resources, without subresources, custom resources and the high-volume kinds (Event, Lease, Endpoints, EndpointSlice); name those with resourceRules or kinds to have them sent';

// Wildcard resources in a resource rule (every resource, with or without a subresource), as the built-in
// resources of its groups.
function expandedResources(rule: ResourceRule, into: Findings, where: string): { apiGroup: string; resource: string }[] {
  const groups = rule.apiGroups;
  return rule.resources.flatMap((pattern) => {
    const [resource, subresource] = pattern.split('/', 2) as [string, string?];
    if (resource !== '*') {
      // Any group, for a resource a built-in kind has: that kind's own group (a Kyverno `Pod` is core's pods).
      const builtIn = groups.includes('*') ? EVERY_KIND_RESOURCES.filter(({ resource: name }) => name === resource) : [];
      if (builtIn.length > 0) return builtIn.map(({ apiGroup }) => ({ apiGroup, resource: pattern }));
      return groups.map((apiGroup) => ({ apiGroup, resource: pattern }));
    }
    into.notes.add(WILDCARD_NOTE);
    const known = EVERY_KIND_RESOURCES.filter(({ apiGroup }) => groups.includes('*') || groups.includes(apiGroup));
    if (known.length === 0)
      into.errors.push(
        `${where}: resources ${pattern} in apiGroups ${JSON.stringify(groups)}: no built-in resources there; name the resources`,
      );
    const suffix = subresource && subresource !== '*' ? `/${subresource}` : '';
    return known.map(({ apiGroup, resource: name }) => ({ apiGroup, resource: `${name}${suffix}` }));
  });
}

/** One webhook rule per group and resource a rule's match names (merged later). */
function webhookRulesOf(policy: Policy<never>, rule: Rule<unknown>, where: string, into: Findings): WebhookRule[] {
  const match = rule.match ?? {};
  if (match.resourceRules) {
    return match.resourceRules.flatMap((resourceRule) => {
      const written = resourceRule.operations.includes('*')
        ? (match.operations ?? ['*'])
        : resourceRule.operations.filter((op) => !match.operations || match.operations.includes(op as never));
      if (written.length === 0) return [];
      return expandedResources(resourceRule, into, where).map(({ apiGroup, resource }) => ({
        apiGroups: [apiGroup],
        apiVersions: resourceRule.apiVersions,
        operations: [...written],
        resources: [resource],
        scope: resourceRule.scope,
      }));
    });
  }
  const operations = [...(match.operations ?? policy.defaultOperations ?? DEFAULT_OPERATIONS)];
  return (match.kinds ?? policy.defaultKinds).flatMap((kind) => {
    if (kind === '*') into.notes.add(WILDCARD_NOTE);
    const resources = kind === '*' ? EVERY_KIND_RESOURCES : Object.hasOwn(KIND_RESOURCES, kind) ? KIND_RESOURCES[kind]! : undefined;
    if (!resources) {
      into.errors.push(
        `${where}: match.kinds ${kind} is not a built-in kind; name a custom resource with resourceRules (apiGroups, apiVersions, resources)`,
      );
      return [];
    }
    if (HIGH_VOLUME_KINDS.has(kind))
      into.notes.add(`${where} names ${kind}, a high-volume kind: every one the cluster writes calls the function`);
    return resources.map(({ apiGroup, resource }) => ({
      apiGroups: [apiGroup],
      apiVersions: ['*'],
      operations,
      resources: [resource],
      scope: match.scope ?? '*',
    }));
  });
}

/** Rules that differ only in resources become one, resources sorted: short, stable output. */
function merged(rules: WebhookRule[]): WebhookRule[] {
  const byShape = new Map<string, WebhookRule>();
  for (const rule of rules) {
    const operations = [...new Set(rule.operations)].sort(byOperationOrder);
    const key = JSON.stringify([rule.apiGroups, rule.apiVersions, operations, rule.scope]);
    const into = byShape.get(key) ?? { ...rule, operations, resources: [] };
    into.resources = [...new Set([...into.resources, ...rule.resources])].sort();
    byShape.set(key, into);
  }
  return [...byShape.values()];
}

/** The value every rule has, equal in all; undefined when one lacks it or they differ. */
function common<T>(values: (T | undefined)[]): T | undefined {
  const [first] = values;
  if (first === undefined) return undefined;
  const text = JSON.stringify(first);
  return values.every((value) => value !== undefined && JSON.stringify(value) === text) ? first : undefined;
}

/** Both selectors must hold: their requirements joined in one selector. */
function bothSelectors(a: LabelSelector | undefined, b: LabelSelector | undefined): LabelSelector | undefined {
  if (!a || !b) return a ?? b;
  return {
    matchLabels: { ...a.matchLabels, ...b.matchLabels },
    matchExpressions: [...(a.matchExpressions ?? []), ...(b.matchExpressions ?? [])],
  };
}

/** The namespaces a rule selects: its own selector and its binding's, both holding. */
const namespaceSelectorOf = (rule: Rule<unknown>) =>
  bothSelectors(rule.match?.namespaceSelector, rule.match?.narrowedBy?.namespaceSelector);

function registrationOf(
  policy: Policy<never>,
  document: RulesDocument<unknown>,
  rules: Rule<unknown>[],
  name: string,
  path: string,
  into: Findings,
): Registration {
  const conditions = rules.map((rule) => policy.webhookMatchConditions?.(rule.parameters as never) ?? []);
  const shared =
    conditions[0]?.filter((condition) =>
      conditions.every((list) => list.some((other) => JSON.stringify(other) === JSON.stringify(condition))),
    ) ?? [];
  const namespaceSelector = common(rules.map(namespaceSelectorOf));
  const objectSelector = common(rules.map((rule) => bothSelectors(rule.match?.labelSelector, rule.match?.narrowedBy?.labelSelector)));
  return {
    name,
    policy,
    path,
    rules: merged(rules.flatMap((rule) => webhookRulesOf(policy, rule, `rule ${rule.name}`, into))),
    failurePolicy: rules.some((rule) => (rule.failurePolicy ?? document.failurePolicy) === 'Fail') ? 'Fail' : 'Ignore',
    ...timeoutOf(rules),
    ...reinvocationOf(rules),
    matchPolicy: rules.every((rule) => rule.match?.matchPolicy === 'Exact') ? 'Exact' : 'Equivalent',
    ...(namespaceSelector ? { namespaceSelector } : {}),
    ...(objectSelector ? { objectSelector } : {}),
    ...(shared.length > 0 ? { matchConditions: shared } : {}),
  };
}

function reinvocationOf(rules: Rule<unknown>[]): { reinvocationPolicy?: 'Never' | 'IfNeeded' } {
  const asked = rules.flatMap((rule) => (rule.reinvocationPolicy === undefined ? [] : [rule.reinvocationPolicy]));
  if (asked.length === 0) return {};
  return { reinvocationPolicy: asked.includes('IfNeeded') ? 'IfNeeded' : 'Never' };
}

function timeoutOf(rules: Rule<unknown>[]): { timeoutSeconds?: number } {
  const asked = rules.flatMap((rule) => (rule.timeoutSeconds === undefined ? [] : [rule.timeoutSeconds]));
  return asked.length > 0 ? { timeoutSeconds: Math.max(...asked) } : {};
}

/**
 * One policy's rules as webhooks serve them: all on one, or, when its bindings select different
 * namespaces (which one webhook's namespaceSelector cannot say, and the function cannot check without
 * the cluster), one webhook per binding, `<binding>.<policy>` on the route `<policy>~<binding>`.
 */
function servedApart(name: string, rules: Rule<unknown>[]): { webhook: string; route: string; rules: Rule<unknown>[] }[] {
  if (new Set(rules.map((rule) => JSON.stringify(namespaceSelectorOf(rule) ?? null))).size <= 1)
    return [{ webhook: name, route: name, rules }];
  const byBinding = new Map<string, Rule<unknown>[]>();
  for (const rule of rules) {
    const binding = rule.origin?.binding ?? '';
    byBinding.set(binding, [...(byBinding.get(binding) ?? []), rule]);
  }
  return [...byBinding].map(([binding, bound]) => ({
    webhook: `${binding}.${name}`,
    route: `${name}${BINDING_SEPARATOR}${binding}`,
    rules: bound,
  }));
}

/** The webhooks one policy's valid rules document needs: none for `rules: []`. */
export function registrationsOf(policy: Policy<never>, document: RulesDocument<unknown>): Registrations {
  const into: Findings = { errors: [], notes: new Set() };
  const registrations: Registration[] = [];
  if (!policy.routesEachPolicy) {
    if (document.rules.length > 0)
      registrations.push(registrationOf(policy, document, document.rules, `${policy.name}.portcullis.io`, routeOf(policy), into));
  } else {
    const groups = new Map<string, Rule<unknown>[]>();
    for (const rule of document.rules) {
      const name = policyNameOf(rule);
      groups.set(name, [...(groups.get(name) ?? []), rule]);
    }
    for (const [name, rules] of groups) {
      if (!DNS_SUBDOMAIN.test(name) || name.length > 200) {
        into.errors.push(`${name}: cannot name a webhook or a route; use lowercase letters, digits, '-' and '.' (at most 200)`);
        continue;
      }
      for (const served of servedApart(name, rules)) {
        if (served.webhook.length > 200) into.errors.push(`${served.webhook}: too long to name a webhook (at most 200)`);
        else
          registrations.push(
            registrationOf(
              policy,
              document,
              served.rules,
              `${served.webhook}.${policy.name}.portcullis.io`,
              `${routeOf(policy)}/${served.route}`,
              into,
            ),
          );
      }
    }
  }
  if (into.errors.length > 0) return { ok: false, errors: into.errors.map((error) => `${policy.name}: ${error}`) };
  return { ok: true, registrations, notes: [...into.notes].map((note) => `${policy.name}: ${note}`) };
}

/** The registrations documents call for, with the notes to show; or every unregistrable document's errors. */
export function registrationsOfDocuments(documents: readonly PolicyDocument[], missing: readonly string[]): Registrations {
  const registrations: Registration[] = [];
  const notes = missing.map((name) => `${name}: no rules document, so not registered`);
  const errors: string[] = [];
  for (const { policy, document } of documents) {
    const derived = registrationsOf(policy, document);
    if (!derived.ok) errors.push(...derived.errors);
    else {
      registrations.push(...derived.registrations);
      notes.push(...derived.notes, ...(derived.registrations.length === 0 ? [`${policy.name}: no rules, so not registered`] : []));
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, registrations, notes };
}
