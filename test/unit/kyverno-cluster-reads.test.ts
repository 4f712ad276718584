// ClusterPolicy rules that read the cluster, judged with a cluster view as the function hands it over:
// apiCall (GET, jmesPath, default), configMap, namespaceSelector and roles, as Kyverno's engine reads them;
// what the view does not hold is the rule's error (its failure policy), never an empty answer; and what each
// rule reads, which the function loads a snapshot for.
import '../helpers/engines.js';
import { describe, expect, it } from 'vitest';
import { clusterView, completeView } from '../../functions/admission/cluster/cluster-view.js';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import { celPolicy } from '../../functions/cel/policy.js';
import { admissionReviewFor } from '../../infra/admission-event.js';
import { evaluateRules } from '../../functions/admission/decide/evaluate-rules.js';
import { apiCallValue, globalReferenceValue } from '../../functions/engines/kyverno/context/cluster-lookups.js';
import { CostBudget, CostLimitExceededError } from '../../functions/engines/runtime/cost-budget.js';
import { verdictOf } from '../helpers/cel-verdict.js';
import { kyvernoFailuresIn } from '../helpers/kyverno-blocked.js';

/** Rule r's message in Kyverno's denial, unfolded. */
const failureOf = (verdict: { status?: { message?: string } }) => kyvernoFailuresIn(verdict.status?.message ?? '').p?.r ?? '';

const policy = (rule: Record<string, unknown>, failurePolicy = 'Fail') =>
  JSON.stringify({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'p' },
    spec: {
      validationFailureAction: 'Enforce',
      failurePolicy,
      rules: [{ name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] }, ...rule }],
    },
  });
const pod = (namespace: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p1', namespace, labels },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
});
const namespace = (name: string, labels: Record<string, string> = {}, annotations: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels, annotations },
});
const configMap = (ns: string, name: string, data: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns },
  data,
});
const denyUnless = (key: string, value: unknown) => ({
  validate: { message: 'denied', deny: { conditions: { any: [{ key, operator: 'NotEquals', value }] } } },
});

describe('apiCall', () => {
  const rule = (apiCall: Record<string, unknown>) =>
    policy({ context: [{ name: 'owner', apiCall }], ...denyUnless('{{ owner }}', 'team-a') });
  const cluster = completeView([namespace('prod', {}, { owner: 'team-a' }), namespace('dev', {}, { owner: 'team-b' })]);
  const byNamespace = { urlPath: '/api/v1/namespaces/{{request.namespace}}', jmesPath: 'metadata.annotations.owner' };

  it("reads the request's Namespace through the jmesPath", async () => {
    expect((await verdictOf(rule(byNamespace), pod('prod'), { namespace: 'prod' }, undefined, cluster)).allowed).toBe(true);
    expect((await verdictOf(rule(byNamespace), pod('dev'), { namespace: 'dev' }, undefined, cluster)).allowed).toBe(false);
  });

  it('an object the cluster does not have takes the default, else is the rule error', async () => {
    const missing = { urlPath: '/api/v1/namespaces/{{request.namespace}}', jmesPath: 'metadata.annotations.owner' };
    const failed = await verdictOf(rule(missing), pod('gone'), { namespace: 'gone' }, undefined, cluster);
    expect(failed.allowed).toBe(false);
    expect(failureOf(failed)).toMatch(/failed to GET resource with raw url: \/api\/v1\/namespaces\/gone: namespaces "gone" not found/);
    const withDefault = { ...missing, default: 'team-a' };
    expect((await verdictOf(rule(withDefault), pod('gone'), { namespace: 'gone' }, undefined, cluster)).allowed).toBe(true);
  });

  it("a list's items, counted with a jmesPath", async () => {
    const text = policy({
      context: [{ name: 'count', apiCall: { urlPath: '/api/v1/namespaces/{{request.namespace}}/configmaps', jmesPath: 'length(items)' } }],
      ...denyUnless('{{ count }}', 1),
    });
    const view = completeView([configMap('prod', 'a', {})]);
    expect((await verdictOf(text, pod('prod'), { namespace: 'prod' }, undefined, view)).allowed).toBe(true);
    expect((await verdictOf(text, pod('dev'), { namespace: 'dev' }, undefined, view)).allowed).toBe(false);
  });

  it('what the snapshot does not hold is an error resolved by the failure policy, even with a default', async () => {
    const snapshot = clusterView([{ apiVersion: 'v1', resource: 'configmaps', kind: 'ConfigMap', items: [] }]);
    const ignoring = policy(
      { context: [{ name: 'owner', apiCall: { ...byNamespace, default: 'team-a' } }], ...denyUnless('{{ owner }}', 'team-a') },
      'Ignore',
    );
    const parsed = parseRulesDocument(celPolicy, ignoring);
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    const request = admissionReviewFor(pod('prod'), { namespace: 'prod' }).request as never;
    const outcome = await evaluateRules(celPolicy, parsed.document, request, { now: new Date(), cluster: snapshot });
    expect(outcome.verdict.allowed).toBe(true);
    expect(outcome.failedOpen).toEqual([
      { rule: 'p/r', reason: expect.stringMatching(/the cluster snapshot does not hold namespaces prod/) },
    ]);
  });

  it('no cluster snapshot at all: the failure policy answers, naming the lookup', async () => {
    const verdict = await verdictOf(rule(byNamespace), pod('prod'), { namespace: 'prod' });
    expect(verdict.allowed).toBe(false);
    expect(failureOf(verdict)).toMatch(/context owner: the rule reads the cluster, and no cluster snapshot is loaded/);
  });
});

describe('configMap', () => {
  const text = policy({
    context: [{ name: 'settings', configMap: { name: 'settings', namespace: 'platform' } }],
    ...denyUnless('{{ settings.data.mode }}', 'open'),
  });

  it('reads the ConfigMap; one that is not there is the rule error', async () => {
    const present = completeView([configMap('platform', 'settings', { mode: 'open' })]);
    expect((await verdictOf(text, pod('prod'), { namespace: 'prod' }, undefined, present)).allowed).toBe(true);
    const verdict = await verdictOf(text, pod('prod'), { namespace: 'prod' }, undefined, completeView([]));
    expect(failureOf(verdict)).toMatch(/failed to get configmap platform\/settings/);
  });
});

describe('namespaceSelector and roles', () => {
  it("a namespaceSelector reads the request's Namespace labels; a Namespace itself is not judged by it", async () => {
    const text = policy({
      match: { any: [{ resources: { kinds: ['Pod', 'Namespace'], namespaceSelector: { matchLabels: { env: 'prod' } } } }] },
      validate: { message: 'denied', deny: {} },
    });
    const cluster = completeView([namespace('prod', { env: 'prod' }), namespace('dev', { env: 'dev' })]);
    expect((await verdictOf(text, pod('prod'), { namespace: 'prod' }, undefined, cluster)).allowed).toBe(false);
    expect((await verdictOf(text, pod('dev'), { namespace: 'dev' }, undefined, cluster)).allowed).toBe(true);
    expect((await verdictOf(text, namespace('dev', { env: 'dev' }), {}, undefined, cluster)).allowed).toBe(false);
  });

  it("roles and clusterRoles are those the snapshot's bindings give the user, a Group's and a ServiceAccount's too", async () => {
    const binding = (kind: string, ns: string | undefined, roleKind: string, role: string, subject: Record<string, string>) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind,
      metadata: { name: `${role}-binding`, ...(ns ? { namespace: ns } : {}) },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: role },
      subjects: [subject],
    });
    const cluster = completeView([
      binding('RoleBinding', 'prod', 'Role', 'deployer', { kind: 'User', name: 'alice' }),
      binding('ClusterRoleBinding', undefined, 'ClusterRole', 'auditor', { kind: 'Group', name: 'auditors' }),
      binding('RoleBinding', 'prod', 'ClusterRole', 'edit', { kind: 'ServiceAccount', name: 'ci', namespace: 'build' }),
    ]);
    const byRole = (filter: Record<string, unknown>) =>
      policy({ match: { any: [{ resources: { kinds: ['Pod'] }, ...filter }] }, validate: { message: 'denied', deny: {} } });
    const denied = async (text: string, username: string, groups: string[] = []) =>
      !(await verdictOf(text, pod('prod'), { namespace: 'prod', username, groups }, undefined, cluster)).allowed;
    expect(await denied(byRole({ roles: ['prod:deployer'] }), 'alice')).toBe(true);
    expect(await denied(byRole({ roles: ['prod:deployer'] }), 'bob')).toBe(false);
    expect(await denied(byRole({ clusterRoles: ['auditor'] }), 'bob', ['auditors'])).toBe(true);
    expect(await denied(byRole({ clusterRoles: ['edit'] }), 'system:serviceaccount:build:ci')).toBe(true);
  });
});

describe('what each rule reads, for the snapshot the function loads', () => {
  it('is derived from the rule, its foreach loops and its match', () => {
    const text = policy({
      match: { any: [{ resources: { kinds: ['Pod'], namespaceSelector: { matchLabels: { a: 'b' } } } }] },
      context: [{ name: 'netpols', apiCall: { urlPath: '/apis/networking.k8s.io/v1/namespaces/{{request.namespace}}/networkpolicies' } }],
      validate: {
        foreach: [
          {
            list: 'request.object.spec.containers',
            context: [{ name: 'cm', configMap: { name: 'registries', namespace: 'platform' } }],
            deny: {},
          },
        ],
      },
    });
    const parsed = parseRulesDocument(celPolicy, text);
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    expect(celPolicy.clusterReads!(parsed.document.rules[0]!.parameters)).toEqual([
      { apiVersion: 'networking.k8s.io/v1', resource: 'networkpolicies' },
      { apiVersion: 'v1', resource: 'configmaps', namespace: 'platform', name: 'registries' },
      { apiVersion: 'v1', resource: 'namespaces' },
    ]);
  });

  it("includes the user's bindings when a rule reads request.roles or request.clusterRoles", () => {
    const parsed = parseRulesDocument(celPolicy, policy({ validate: { message: 'roles {{ request.clusterRoles }}', deny: {} } }));
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    expect(celPolicy.clusterReads!(parsed.document.rules[0]!.parameters).map(({ resource }) => resource)).toEqual([
      'rolebindings',
      'clusterrolebindings',
    ]);
  });
});

describe('globalReference: a GlobalContextEntry in the bundle, read from the cluster view', () => {
  const entry = (spec: Record<string, unknown>) =>
    JSON.stringify({ apiVersion: 'kyverno.io/v2alpha1', kind: 'GlobalContextEntry', metadata: { name: 'deployments' }, spec });
  const counting = policy({
    context: [{ name: 'count', globalReference: { name: 'deployments', jmesPath: 'length(@)' } }],
    ...denyUnless('{{ count }}', 0),
  });
  const deployment = (namespace: string) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace } });

  it('kubernetesResource: its value is every object of the resource (of its namespace, when it names one)', async () => {
    const text = `${counting}\n---\n${entry({ kubernetesResource: { group: 'apps', version: 'v1', resource: 'deployments', namespace: 'prod' } })}`;
    const parsed = parseRulesDocument(celPolicy, text);
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    expect(celPolicy.clusterReads!(parsed.document.rules[0]!.parameters)).toEqual([
      { apiVersion: 'apps/v1', resource: 'deployments', namespace: 'prod' },
    ]);
    expect((await verdictOf(text, pod('prod'), { namespace: 'prod' }, undefined, completeView([]))).allowed).toBe(true);
    const busy = completeView([deployment('prod'), deployment('dev')]);
    expect((await verdictOf(text, pod('prod'), { namespace: 'prod' }, undefined, busy)).allowed).toBe(false);
  });

  it("apiCall: its value is the GET's answer", async () => {
    const text = `${counting.replace('length(@)', 'length(items)')}\n---\n${entry({ apiCall: { urlPath: '/apis/apps/v1/deployments', refreshInterval: '10s' } })}`;
    expect((await verdictOf(text, pod('prod'), { namespace: 'prod' }, undefined, completeView([deployment('dev')]))).allowed).toBe(false);
  });

  it("every lookup's list is charged to the budget as it is handed over", () => {
    const cluster = completeView([deployment('a'), deployment('b'), deployment('c')]);
    const urlPath = '/apis/apps/v1/deployments';
    const lookups: Array<(context: Parameters<typeof apiCallValue>[2]) => unknown> = [
      (context) => apiCallValue('e', { urlPath }, context),
      (context) => globalReferenceValue('e', { name: 'g', entry: { apiCall: { urlPath } } }, context),
      (context) =>
        globalReferenceValue(
          'e',
          { name: 'g', entry: { kubernetesResource: { apiVersion: 'apps/v1', resource: 'deployments' } } },
          context,
        ),
    ];
    for (const lookup of lookups) {
      const within = { data: {}, scope: { budget: new CostBudget(3), now: new Date() }, cluster };
      expect(lookup(within)).toBeTruthy();
      const over = { data: {}, scope: { budget: new CostBudget(2), now: new Date() }, cluster };
      expect(() => lookup(over)).toThrow(CostLimitExceededError);
    }
  });

  it.each([
    ['an entry not in the bundle', '', /globalReference names GlobalContextEntry deployments, which is not in the bundle/],
    [
      'projections',
      entry({ kubernetesResource: { version: 'v1', resource: 'pods' }, projections: [] }),
      /spec\.projections: not implemented here/,
    ],
    ['a service call', entry({ apiCall: { service: { url: 'https://x' } } }), /spec\.apiCall\.service calls a service/],
    [
      'Secrets',
      entry({ kubernetesResource: { version: 'v1', resource: 'secrets' } }),
      /reads Secrets: a cluster snapshot holds their metadata only/,
    ],
  ])('refused with the reason: %s', (_name, extra, reason) => {
    const parsed = parseRulesDocument(celPolicy, extra ? `${counting}\n---\n${extra}` : counting);
    expect(parsed.ok ? '' : parsed.errors.join('\n')).toMatch(reason);
  });
});
