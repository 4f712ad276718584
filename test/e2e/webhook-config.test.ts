// `npm run webhook-config` as a user runs it: kubectl-ready YAML with one webhook per policy in the
// registry, built from what each policy declares, and clear errors for bad arguments.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { routeOf } from '../../functions/admission/policy.js';
import { policyRegistry } from '../../functions/registry.js';

const execute = promisify(execFile);
const BASE = 'https://abc123.execute-api.eu-west-1.amazonaws.com';

async function webhookConfig(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    return { code: 0, ...(await execute('npx', ['tsx', 'infra/webhook-config-cli.ts', ...args])) };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

describe('npm run webhook-config', () => {
  it('prints one validating and one mutating configuration, a webhook per policy, with safe defaults', async () => {
    const { code, stdout } = await webhookConfig('--url', `${BASE}/`, '--token', 'tok_0123456789abcdef');
    expect(code).toBe(0);
    const documents = parseAllDocuments(stdout).map((document) => document.toJS());
    expect(documents.map((document) => [document.apiVersion, document.kind])).toEqual([
      ['admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration'],
      ['admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration'],
    ]);
    const webhooks = documents.flatMap((document) => document.webhooks.map((webhook: any) => ({ ...webhook, configuration: document.kind })));
    expect(webhooks.map((webhook) => webhook.name).sort()).toEqual(policyRegistry.map((policy) => `${policy.name}.portcullis.io`).sort());
    for (const policy of policyRegistry) {
      const webhook = webhooks.find((candidate) => candidate.name === `${policy.name}.portcullis.io`);
      const mutating = policy.kind === 'mutating';
      expect(webhook).toMatchObject({
        configuration: mutating ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
        clientConfig: { url: `${BASE}${routeOf(policy)}/tok_0123456789abcdef` },
        failurePolicy: 'Ignore',
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
    expect(stdout).not.toMatch(/[&*]a\d/); // no YAML anchors: plain for kubectl and for reading
  });

  it('builds each webhook’s rules from what the policy declares', async () => {
    const documents = parseAllDocuments((await webhookConfig('--url', BASE)).stdout).map((document) => document.toJS());
    const rulesOf = (name: string) => documents.flatMap((document) => document.webhooks).find((webhook: any) => webhook.name === `${name}.portcullis.io`).rules;
    expect(rulesOf('replica-limits')).toEqual([
      { apiGroups: ['apps'], apiVersions: ['*'], operations: ['CREATE', 'UPDATE'], resources: ['deployments', 'statefulsets', 'replicasets', 'deployments/scale', 'statefulsets/scale', 'replicasets/scale'], scope: '*' },
    ]);
    expect(rulesOf('audit-log')).toEqual([{ apiGroups: ['*'], apiVersions: ['*'], operations: ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'], resources: ['*/*'], scope: '*' }]);
    expect(rulesOf('required-labels').flatMap((rule: any) => rule.resources).sort()).toEqual(['daemonsets', 'deployments', 'namespaces', 'pods', 'services', 'statefulsets']);
  });

  it('--ca-bundle, --timeout and --failure-policy apply to every webhook', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-ca-'));
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    writeFileSync(join(dir, 'ca.pem'), pem);
    const { stdout } = await webhookConfig('--url', BASE, '--ca-bundle', join(dir, 'ca.pem'), '--timeout', '5', '--failure-policy', 'Fail');
    for (const webhook of parseAllDocuments(stdout).flatMap((document) => document.toJS().webhooks)) {
      expect(webhook).toMatchObject({ clientConfig: { caBundle: Buffer.from(pem).toString('base64') }, timeoutSeconds: 5, failurePolicy: 'Fail' });
    }
  });

  it.each([
    [['--url', 'http://insecure.example.com'], 'expected an https:// URL'],
    [['--url', BASE, '--timeout', '45'], 'expected whole seconds from 1 to 30'],
    [['--url', BASE, '--failure-policy', 'Sometimes'], 'expected Ignore or Fail'],
    [['--url', BASE, '--token', 'short'], 'at least 16 URL-safe characters'],
    [['--url', BASE, '--ca-bundle', 'package.json'], 'no PEM certificate in it'],
    [['--url', BASE, '--frobnicate'], "Unknown option '--frobnicate'"],
  ])('refuses %j with a clear message and exit code 2', async (args, message) => {
    const result = await webhookConfig(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('without --url and without AWS access, says it could not read the deployed stack', async () => {
    const result = await execute('npx', ['tsx', 'infra/webhook-config-cli.ts'], { env: { ...process.env, AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '', AWS_PROFILE: 'portcullis-no-such-profile', ESBUILD_WORK_FOLDER: '.esbuild-info' } }).catch((error) => error);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("the deployed stack's URL could not be read with `sls info`");
  }, 60_000);
});
