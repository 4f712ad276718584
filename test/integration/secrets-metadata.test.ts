// Policies that read Secrets, answered from a snapshot that never holds their data: a ClusterPolicy whose
// apiCall reads a Secret's labels (as kyverno/policies' restrict-secrets-by-label does) makes the snapshot
// read Secrets as PartialObjectMetadata, keeps their metadata alone (no data, no last-applied annotation,
// whatever the API server answers), and the policy decides from it. A snapshot holding more is refused.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readClusterSnapshot, wholeSnapshot } from '../../functions/admission/cluster/cluster-snapshot.js';
import { admissionReviewFor, httpApiEvent } from '../../infra/admission-event.js';
import { type ListApi, kubeconfigFor, startListApi } from '../helpers/kubernetes-list-api.js';
import { portcullis } from '../helpers/portcullis-cli.js';

const folder = mkdtempSync(join(tmpdir(), 'portcullis-secrets-metadata-'));
const rules = join(folder, 'rules');
const kubeconfig = join(folder, 'kubeconfig');
const snapshotFile = join(folder, 'snapshot.jsonl');

const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: protected-secrets
spec:
  validationFailureAction: Enforce
  background: false
  rules:
    - name: no-protected-secret-in-env
      match:
        any:
          - resources:
              kinds: [Pod]
      validate:
        message: "Pods may not read Secrets labelled status=protected."
        foreach:
          - list: "request.object.spec.containers[].env[].valueFrom.secretKeyRef"
            context:
              - name: status
                apiCall:
                  urlPath: "/api/v1/namespaces/{{request.namespace}}/secrets/{{element.name}}"
                  jmesPath: "metadata.labels.status || ''"
            deny:
              conditions:
                any:
                  - key: "{{ status }}"
                    operator: Equals
                    value: protected
`;

const secret = (name: string, labels: Record<string, string>) => ({
  metadata: {
    name,
    namespace: 'shop',
    labels,
    annotations: { 'kubectl.kubernetes.io/last-applied-configuration': `{"data":{"token":"c2VjcmV0"}}`, team: 'shop' },
    managedFields: [{ manager: 'kubectl' }],
  },
  type: 'Opaque',
  data: { token: 'c2VjcmV0' },
});

let api: ListApi;
beforeAll(async () => {
  api = await startListApi(folder, {
    objects: { '/api/v1/secrets': { kind: 'Secret', items: [secret('vault', { status: 'protected' }), secret('plain', {})] } },
  });
  writeFileSync(kubeconfig, kubeconfigFor(api, 't').replace('current-context: elsewhere', 'current-context: loopback'));
  mkdirSync(rules);
  writeFileSync(join(rules, 'cel.yaml'), policy);
});
afterAll(async () => {
  await api?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('a policy reading Secrets', () => {
  it('reads: Secrets, metadata only', async () => {
    const result = await portcullis(['cluster', 'reads', '--rules', rules]);
    expect(result.stdout.trim()).toBe('v1 secrets (metadata only)');
  });

  it('snapshot: asks for PartialObjectMetadata and keeps metadata alone, without the last-applied annotation', async () => {
    const result = await portcullis(['cluster', 'snapshot', '--cluster', 'prod', '--rules', rules, '--kubeconfig', kubeconfig]);
    expect(result.code, result.stderr).toBe(0);
    expect(api.requests.map(({ path, accept }) => [path, accept])).toEqual([
      ['/api/v1/secrets', 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json'],
    ]);
    expect(result.stdout).not.toMatch(/c2VjcmV0|last-applied|Opaque/);
    writeFileSync(snapshotFile, result.stdout);
    const parsed = wholeSnapshot(result.stdout);
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    const [secrets] = parsed.snapshot.collections;
    expect(secrets).toMatchObject({ apiVersion: 'v1', resource: 'secrets', kind: 'Secret', metadataOnly: true });
    expect(secrets!.items[0]).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'vault', namespace: 'shop', labels: { status: 'protected' }, annotations: { team: 'shop' } },
    });
  });

  it('the policy decides from the snapshot: a Pod reading the protected Secret is denied, another is not', async () => {
    const verdict = async (secretName: string) => {
      const pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'web', namespace: 'shop' },
        spec: {
          containers: [
            { name: 'c', image: 'nginx', env: [{ name: 'T', valueFrom: { secretKeyRef: { name: secretName, key: 'token' } } }] },
          ],
        },
      };
      const file = join(folder, `event-${secretName}.json`);
      const event = httpApiEvent(JSON.stringify(admissionReviewFor(pod, { namespace: 'shop' })), {
        path: '/validate/cel/protected-secrets',
        timeEpoch: Date.now(),
      });
      writeFileSync(file, JSON.stringify({ ...event, pathParameters: { policy: 'protected-secrets' } }));
      return portcullis(['invoke', 'cel', file, '--cluster-snapshot', snapshotFile], { RULES_DIR: rules });
    };
    const denied = await verdict('vault');
    expect(denied.stdout, denied.stderr).toMatch(/^denied/);
    expect(denied.stdout).toMatch(/no-protected-secret-in-env: 'validation failure: Pods may not read Secrets labelled\s+status=protected/);
    expect((await verdict('plain')).stdout.split('\n')[0]).toBe('allowed');
  });

  it('a live audit reads them for the rules as the snapshot does: metadata only', async () => {
    api.requests.length = 0;
    const result = await portcullis(['audit', '--rules', rules, '--kubeconfig', kubeconfig]);
    expect(result.code, result.stderr).toBe(0);
    expect(api.requests.filter(({ path }) => path === '/api/v1/secrets').map(({ accept }) => accept)).toEqual([
      'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
    ]);
  });

  it('rbac: says the grant on secrets could read their data', async () => {
    const result = await portcullis(['cluster', 'rbac', '--rules', rules]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/resources:\n\s+- secrets\n\s+verbs:\n\s+- list/);
    expect(result.stderr).toContain('RBAC cannot narrow get or list to metadata');
  });

  it('a policy reading more of Secrets than their metadata is refused, saying why', async () => {
    const reading = policy.replace("metadata.labels.status || ''", 'data.token');
    writeFileSync(join(folder, 'reading.yaml'), reading);
    const result = await portcullis(['policy', 'validate', join(folder, 'reading.yaml'), '--policy', 'cel']);
    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toMatch(
      /context status: apiCall.urlPath reads Secrets: a cluster snapshot holds their metadata only/,
    );
  });
});

describe('a snapshot holding more of Secrets than their metadata is refused', () => {
  const header = (collection: object) =>
    JSON.stringify({
      apiVersion: 'portcullis.dev/v1alpha1',
      kind: 'ClusterSnapshot',
      cluster: 'prod',
      takenAt: '2026-11-26T13:00:00Z',
      collections: [{ apiVersion: 'v1', resource: 'secrets', kind: 'Secret', ...collection }],
    });
  const line = (item: object) => JSON.stringify({ collection: 0, namespace: 'shop', items: [item] });
  const lookup = (text: string) => {
    const read = readClusterSnapshot(text);
    if (!read.ok) return read.errors.join('\n');
    try {
      read.snapshot.view.get({ apiVersion: 'v1', resource: 'secrets' }, 'shop', 'vault');
      return 'read';
    } catch (error) {
      return (error as Error).message;
    }
  };
  const metadata = { name: 'vault', namespace: 'shop' };

  it('a Secrets collection that is not metadataOnly', () =>
    expect(lookup(`${header({})}\n`)).toMatch(/a collection of Secrets must be metadataOnly/));
  it('an object with data', () =>
    expect(lookup(`${header({ metadataOnly: true })}\n${line({ metadata, data: { token: 'x' } })}\n`)).toMatch(
      /line 2: items\[0\]: data: a metadata-only collection holds apiVersion, kind and metadata alone/,
    ));
  it('an object with the last-applied annotation', () =>
    expect(
      lookup(
        `${header({ metadataOnly: true })}\n${line({ metadata: { ...metadata, annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } } })}\n`,
      ),
    ).toMatch(/last-applied-configuration holds the applied object/));
  it('metadata alone is read', () => expect(lookup(`${header({ metadataOnly: true })}\n${line({ metadata })}\n`)).toBe('read'));
});
