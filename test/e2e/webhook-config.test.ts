// `portcullis webhook-config` as a user runs it: kubectl-ready YAML derived from the rules documents (a folder,
// or the live bucket on s3rver): one webhook per policy that has a document, cel's manifests one each, the
// resources their match blocks name and never `*/*`, and clear errors for bad arguments and documents.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { routeOf } from '../../functions/admission/policy.js';
import { policyRegistry } from '../../functions/registry.js';
import { portcullisInProcess as portcullis } from '../helpers/portcullis-cli.js';
import { startTestS3, type TestS3 } from '../helpers/s3-server.js';
import { TEST_RULES, testRules } from '../helpers/test-rules.js';
import { temporaryDirectory } from '../../infra/temporary-directory.js';

const BASE = 'https://abc123.execute-api.eu-west-1.amazonaws.com';

const webhookConfig = (args: string[], env: Record<string, string> = {}) => portcullis(['webhook-config', ...args], env);

const webhooksIn = (stdout: string) =>
  parseAllDocuments(stdout).flatMap((document) =>
    document.toJS().webhooks.map((webhook: any) => ({ ...webhook, configuration: document.toJS().kind })),
  );
const resourcesOf = (webhook: any): string[] =>
  webhook.rules
    .flatMap((rule: any) => rule.resources.map((resource: string) => `${rule.apiGroups[0] ? `${rule.apiGroups[0]}/` : ''}${resource}`))
    .sort();

/** A folder of rules documents: `name.yaml` for a document, `name/` for a folder of manifests. */
function rulesFolder(documents: Record<string, string | unknown[]>): string {
  const dir = temporaryDirectory('portcullis-registration-');
  for (const [name, content] of Object.entries(documents)) {
    if (typeof content === 'string') writeFileSync(join(dir, `${name}.yaml`), content);
    else {
      mkdirSync(join(dir, name));
      for (const [index, manifest] of content.entries()) writeFileSync(join(dir, name, `${index}.yaml`), stringify(manifest));
    }
  }
  return dir;
}

const vap = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: 'pod-status-owner' },
  spec: {
    failurePolicy: 'Fail',
    matchConstraints: {
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['pods/status'] }],
      namespaceSelector: { matchLabels: { tier: 'prod' } },
      objectSelector: { matchExpressions: [{ key: 'managed', operator: 'Exists' }] },
    },
    matchConditions: [
      { name: 'not-nodes', expression: "!request.userInfo.username.startsWith('system:node:')" },
      { name: 'has-params', expression: 'params != null' },
      { name: 'not-service-accounts', expression: "parseServiceAccount(request.userInfo.username).Name == ''" },
    ],
    validations: [{ expression: "object.status.phase != 'Unknown'" }],
  },
};
const vapBinding = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: 'pod-status-owner' },
  spec: { policyName: 'pod-status-owner', validationActions: ['Deny'] },
};
const kyverno = {
  apiVersion: 'policies.kyverno.io/v1',
  kind: 'ValidatingPolicy',
  metadata: { name: 'no-latest' },
  spec: {
    validationActions: ['Audit'],
    failurePolicy: 'Ignore',
    matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
    matchConditions: [{ name: 'labelled', expression: "has(object.metadata.labels) && 'app' in object.metadata.labels" }],
    validations: [{ expression: "object.spec.containers.all(c, !c.image.endsWith(':latest'))" }],
  },
};

describe('portcullis webhook-config', () => {
  it('reads policies/ by default', async () => {
    const [byDefault, named] = await Promise.all([webhookConfig(['--url', BASE]), webhookConfig(['--url', BASE, '--rules', 'policies'])]);
    expect(byDefault.code).toBe(0);
    expect(byDefault.stdout).toBe(named.stdout);
  });

  it('from a folder of documents: a webhook per policy with a document, cel one per rule, with safe defaults', async () => {
    const { code, stdout } = await webhookConfig(['--url', `${BASE}/`, '--token', 'tok_0123456789abcdef', '--rules', TEST_RULES]);
    expect(code).toBe(0);
    const documents = parseAllDocuments(stdout).map((document) => document.toJS());
    expect(documents.map((document) => [document.apiVersion, document.kind])).toEqual([
      ['admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration'],
      ['admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration'],
    ]);
    const webhooks = webhooksIn(stdout);
    // A policy that serves each of its policies apart gets a webhook per rule of its test document.
    const perRule: Record<string, string[]> = { cel: ['small-deployments', 'no-latest'], mutations: ['environment-label'] };
    const expected = policyRegistry.flatMap((policy) =>
      policy.routesEachPolicy
        ? perRule[policy.name]!.map((rule) => `${rule}.${policy.name}.portcullis.io`)
        : [`${policy.name}.portcullis.io`],
    );
    expect(webhooks.map((webhook) => webhook.name).sort()).toEqual(expected.sort());
    for (const policy of policyRegistry) {
      const mutating = policy.kind === 'mutating';
      for (const webhook of webhooks.filter((candidate) => candidate.name.endsWith(`${policy.name}.portcullis.io`))) {
        const path = policy.routesEachPolicy ? `${routeOf(policy)}/${webhook.name.split('.')[0]}` : routeOf(policy);
        expect(webhook).toMatchObject({
          configuration: mutating ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
          clientConfig: { url: `${BASE}${path}/tok_0123456789abcdef` },
          failurePolicy: 'Ignore', // what every test document says
          sideEffects: 'None',
          admissionReviewVersions: ['v1', 'v1beta1'],
          matchPolicy: 'Equivalent',
          timeoutSeconds: mutating ? 2 : 3,
          namespaceSelector: {
            matchExpressions: [
              { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] },
              { key: 'portcullis.io/ignore', operator: 'DoesNotExist' },
            ],
          },
        });
        expect(webhook.reinvocationPolicy).toBe(mutating ? 'IfNeeded' : undefined);
        expect(webhook.clientConfig.caBundle).toBeUndefined(); // API Gateway's certificate is publicly trusted
      }
    }
    expect(stdout).not.toMatch(/[&*]a\d/); // no YAML anchors: plain for kubectl and for reading
  });

  it('derives each webhook’s rules from the documents: kinds → resources, never */*, subresources only where named', async () => {
    const { stdout, stderr } = await webhookConfig(['--url', BASE]);
    const webhooks = webhooksIn(stdout);
    const named = (name: string) => webhooks.find((webhook) => webhook.name === name);
    expect(named('replica-limits.portcullis.io').rules).toEqual([
      {
        apiGroups: ['apps'],
        apiVersions: ['*'],
        operations: ['CREATE', 'UPDATE'],
        resources: ['deployments', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale'],
        scope: '*',
      },
    ]);
    expect(resourcesOf(named('required-labels.portcullis.io'))).toEqual([
      'apps/daemonsets',
      'apps/deployments',
      'apps/statefulsets',
      'namespaces',
      'pods',
      'services',
    ]);
    expect(resourcesOf(named('small-deployments.cel.portcullis.io'))).toEqual(['apps/deployments']);
    // audit-log says every kind: the built-in resources, not the control plane's chatter; exec because a rule names it.
    const audit = named('audit-log.portcullis.io');
    const resources = resourcesOf(audit);
    expect(resources).toEqual(
      expect.arrayContaining([
        'pods',
        'secrets',
        'apps/deployments',
        'rbac.authorization.k8s.io/clusterroles',
        'pods/exec',
        'pods/attach',
        'pods/portforward',
      ]),
    );
    for (const chatter of ['coordination.k8s.io/leases', 'events', 'events.k8s.io/events', 'endpoints', 'discovery.k8s.io/endpointslices'])
      expect(resources).not.toContain(chatter);
    expect(
      resources.filter((resource) => resource.includes('/') && !resource.split('/').at(-2)!.includes('.') && resource.startsWith('pods/')),
    ).toEqual(['pods/attach', 'pods/exec', 'pods/portforward']);
    expect(JSON.stringify(webhooks.map((webhook) => webhook.rules))).not.toContain('"*/*"');
    expect(audit.rules.find((rule: any) => rule.resources.includes('pods/exec')).operations).toEqual(['CONNECT']);
    expect(audit.rules.find((rule: any) => rule.resources.includes('secrets')).operations).toEqual(['CREATE', 'UPDATE', 'DELETE']);
    expect(stderr).toContain('note: audit-log: every kind (`*`) is registered as the built-in resources');
  });

  it('--rules DIR: only policies with a document; operations and kinds as the document names them; high-volume kinds only when named', async () => {
    const dir = rulesFolder({
      'required-labels':
        'rules:\n  - name: config\n    match: { kinds: [ConfigMap, Lease], operations: [DELETE] }\n    parameters: { labels: [{ key: owner }] }\n',
      'trusted-registry': testRules('trusted-registry'),
    });
    const { code, stdout, stderr } = await webhookConfig(['--url', BASE, '--rules', dir]);
    expect(code).toBe(0);
    const webhooks = webhooksIn(stdout);
    expect(webhooks.map((webhook) => webhook.name).sort()).toEqual(['required-labels.portcullis.io', 'trusted-registry.portcullis.io']);
    const labels = webhooks.find((webhook) => webhook.name === 'required-labels.portcullis.io');
    expect(labels.rules).toEqual([
      { apiGroups: [''], apiVersions: ['*'], operations: ['DELETE'], resources: ['configmaps'], scope: '*' },
      { apiGroups: ['coordination.k8s.io'], apiVersions: ['*'], operations: ['DELETE'], resources: ['leases'], scope: '*' },
    ]);
    expect(stdout).not.toContain('MutatingWebhookConfiguration'); // no mutating policy has a document here
    expect(stderr).toContain('note: cel: no rules document, so not registered');
    expect(stderr).toContain('note: required-labels: rule config names Lease, a high-volume kind');
  });

  it('cel manifests: one webhook each at /validate/cel/<name>, with their resourceRules, selectors, failurePolicy and the matchConditions the API server can evaluate', async () => {
    const dir = rulesFolder({ cel: [vap, vapBinding, kyverno] });
    const { code, stdout, stderr } = await webhookConfig(['--url', BASE, '--rules', dir]);
    expect({ code, stderr }).toMatchObject({ code: 0 });
    const webhooks = webhooksIn(stdout);
    const status = webhooks.find((webhook) => webhook.name === 'pod-status-owner.cel.portcullis.io');
    expect(status).toMatchObject({
      clientConfig: { url: `${BASE}/validate/cel/pod-status-owner` },
      rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['pods/status'], scope: '*' }],
      failurePolicy: 'Fail',
      namespaceSelector: {
        matchLabels: { tier: 'prod' },
        matchExpressions: [
          { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] },
          { key: 'portcullis.io/ignore', operator: 'DoesNotExist' },
        ],
      },
      objectSelector: { matchExpressions: [{ key: 'managed', operator: 'Exists' }] },
      // params and Kyverno's functions are not the API server's to evaluate: those stay with the function.
      matchConditions: [{ name: 'not-nodes', expression: "!request.userInfo.username.startsWith('system:node:')" }],
    });
    const latest = webhooks.find((webhook) => webhook.name === 'no-latest.cel.portcullis.io');
    expect(latest).toMatchObject({ clientConfig: { url: `${BASE}/validate/cel/no-latest` }, failurePolicy: 'Ignore' });
    // Autogen: the pod controllers are sent too, and the Pod-written condition is left to the function.
    expect(resourcesOf(latest)).toEqual([
      'apps/daemonsets',
      'apps/deployments',
      'apps/replicasets',
      'apps/statefulsets',
      'batch/cronjobs',
      'batch/jobs',
      'pods',
    ]);
    expect(latest.rules.every((rule: any) => rule.operations.join() === 'CREATE')).toBe(true);
    expect(latest.matchConditions).toBeUndefined();
  });

  it('a Kyverno ClusterPolicy: one webhook at /validate/cel/<policy>, its kinds as resources with autogen, its operations, failurePolicy and webhookTimeoutSeconds', async () => {
    const clusterPolicy = {
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'require-team' },
      spec: {
        failurePolicy: 'Ignore',
        webhookTimeoutSeconds: 7,
        rules: [
          {
            name: 'team-label',
            match: {
              any: [
                { resources: { kinds: ['Pod'], operations: ['CREATE'] } },
                { resources: { kinds: ['apps/v1/Deployment'], operations: ['UPDATE'] } },
              ],
            },
            validate: { message: 'a team is required', pattern: { metadata: { labels: { team: '?*' } } } },
          },
        ],
      },
    };
    const dir = rulesFolder({ cel: [clusterPolicy] });
    const { code, stdout, stderr } = await webhookConfig(['--url', BASE, '--rules', dir]);
    expect({ code, stderr }).toMatchObject({ code: 0 });
    const webhook = webhooksIn(stdout).find((candidate) => candidate.name === 'require-team.cel.portcullis.io');
    expect(webhook).toMatchObject({
      clientConfig: { url: `${BASE}/validate/cel/require-team` },
      failurePolicy: 'Ignore',
      timeoutSeconds: 7,
    });
    // Kyverno's match names Pods (so autogen adds the controllers) and Deployments; operations as written.
    expect([...new Set(resourcesOf(webhook))]).toEqual([
      'apps/daemonsets',
      'apps/deployments',
      'apps/replicasets',
      'apps/statefulsets',
      'batch/cronjobs',
      'batch/jobs',
      'pods',
      'replicationcontrollers',
    ]);
    expect(new Set(webhook.rules.flatMap((rule: any) => rule.operations))).toEqual(new Set(['CREATE', 'UPDATE']));
  });

  it('a policy whose bindings select different namespaces: one webhook per binding, each with its selector, at /validate/cel/<policy>~<binding>', async () => {
    const teamBinding = (team: string) => ({
      ...vapBinding,
      metadata: { name: `team-${team}` },
      spec: { ...vapBinding.spec, matchResources: { namespaceSelector: { matchLabels: { team } } } },
    });
    const dir = rulesFolder({ cel: [vap, teamBinding('a'), teamBinding('b')] });
    const { code, stdout, stderr } = await webhookConfig(['--url', BASE, '--rules', dir]);
    expect({ code, stderr }).toMatchObject({ code: 0 });
    const webhooks = webhooksIn(stdout).filter((webhook) => webhook.name.endsWith('pod-status-owner.cel.portcullis.io'));
    expect(webhooks.map((webhook) => [webhook.name, webhook.clientConfig.url, webhook.namespaceSelector.matchLabels])).toEqual([
      ['team-a.pod-status-owner.cel.portcullis.io', `${BASE}/validate/cel/pod-status-owner~team-a`, { tier: 'prod', team: 'a' }],
      ['team-b.pod-status-owner.cel.portcullis.io', `${BASE}/validate/cel/pod-status-owner~team-b`, { tier: 'prod', team: 'b' }],
    ]);
  });

  it('--bucket: the live documents, read from S3 (s3rver)', async () => {
    const s3: TestS3 = await startTestS3();
    try {
      await s3.put('live/replica-limits.yaml', testRules('replica-limits'));
      const { code, stdout, stderr } = await webhookConfig(['--url', BASE, '--bucket', s3.bucket, '--prefix', 'live/'], {
        RULES_S3_ENDPOINT: s3.endpoint,
        AWS_ACCESS_KEY_ID: 'S3RVER',
        AWS_SECRET_ACCESS_KEY: 'S3RVER',
        AWS_REGION: 'us-east-1',
      });
      expect(code).toBe(0);
      expect(webhooksIn(stdout).map((webhook) => webhook.name)).toEqual(['replica-limits.portcullis.io']);
      expect(stderr).toContain('note: trusted-registry: no rules document, so not registered');
    } finally {
      await s3.close();
    }
  });

  it.each([
    [
      'a kind that is not built in',
      { 'required-labels': 'rules:\n  - name: certs\n    match: { kinds: [Certificate] }\n    parameters: { labels: [{ key: owner }] }\n' },
      'required-labels: rule certs: match.kinds Certificate is not a built-in kind; name a custom resource with resourceRules',
    ],
    [
      'a kind named like an Object property',
      { 'required-labels': 'rules:\n  - name: odd\n    match: { kinds: [constructor] }\n    parameters: { labels: [{ key: owner }] }\n' },
      'required-labels: rule odd: match.kinds constructor is not a built-in kind',
    ],
    [
      'an invalid document',
      { 'trusted-registry': 'failurePolicy: Sometimes\nrules: []\n' },
      'is not a valid trusted-registry rules document',
    ],
    [
      'a native cel rule whose name cannot name a webhook',
      { cel: 'rules:\n  - name: No_Latest\n    match: { kinds: [Pod] }\n    parameters: { validations: [{ expression: "true" }] }\n' },
      'cel: No_Latest: cannot name a webhook or a route',
    ],
  ])('refuses %s: the errors, exit code 1 and no configuration (never a partial registration)', async (_case, documents, message) => {
    const result = await webhookConfig(['--url', BASE, '--rules', rulesFolder(documents)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe('');
  });

  it('--ca-bundle, --timeout and --failure-policy apply to every webhook', async () => {
    const dir = temporaryDirectory('portcullis-ca-');
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    writeFileSync(join(dir, 'ca.pem'), pem);
    const { stdout } = await webhookConfig([
      '--url',
      BASE,
      '--ca-bundle',
      join(dir, 'ca.pem'),
      '--timeout',
      '5',
      '--failure-policy',
      'Fail',
    ]);
    for (const webhook of parseAllDocuments(stdout).flatMap((document) => document.toJS().webhooks)) {
      expect(webhook).toMatchObject({
        clientConfig: { caBundle: Buffer.from(pem).toString('base64') },
        timeoutSeconds: 5,
        failurePolicy: 'Fail',
      });
    }
  });

  it.each([
    [['--url', 'http://insecure.example.com'], 'expected an https:// URL'],
    [['--url', BASE, '--timeout', '45'], 'expected whole seconds from 1 to 30'],
    [['--url', BASE, '--failure-policy', 'Sometimes'], "argument 'Sometimes' is invalid. Allowed choices are Ignore, Fail"],
    [['--url', BASE, '--token', 'short'], 'at least 16 URL-safe characters'],
    [['--url', BASE, '--ca-bundle', 'package.json'], 'no PEM certificate in it'],
    [['--url', BASE, '--frobnicate'], "unknown option '--frobnicate'"],
    [['--url', BASE, '--rules', 'policies', '--local'], 'give one of --rules, --bucket and --local'],
    [['--url', BASE, '--prefix', 'p/'], '--prefix needs --bucket or --local'],
  ])('refuses %j with a clear message and exit code 2', async (args, message) => {
    const result = await webhookConfig(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('without --url and without AWS access, says it could not read the deployed stack', async () => {
    const result = await webhookConfig([], {
      AWS_ACCESS_KEY_ID: '',
      AWS_SECRET_ACCESS_KEY: '',
      AWS_PROFILE: 'portcullis-no-such-profile',
      ESBUILD_WORK_FOLDER: '.esbuild-info',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("the deployed stack's URL could not be read with `sls info`");
  }, 60_000);
});
