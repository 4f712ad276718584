// A Gatekeeper constraint's match on the packaged cel function, read as Gatekeeper reads it: name, scope,
// namespaces that cannot disqualify a cluster-scoped object, and a match field it does not know refused.
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import '../helpers/engines.js';
import { celPolicy } from '../../functions/cel/policy.js';
import { eventFor, invoke } from '../helpers/invoke.js';
import { packagedWithRules, removeRulesFolders } from '../helpers/packaged-with-rules.js';

afterAll(removeRulesFolders);

const template = {
  apiVersion: 'templates.gatekeeper.sh/v1',
  kind: 'ConstraintTemplate',
  metadata: { name: 'k8sowner' },
  spec: {
    crd: { spec: { names: { kind: 'K8sOwner' } } },
    targets: [
      {
        target: 'admission.k8s.gatekeeper.sh',
        code: [
          {
            engine: 'K8sNativeValidation',
            source: {
              validations: [
                {
                  expression: "has(variables.anyObject.metadata.labels) && 'owner' in variables.anyObject.metadata.labels",
                  message: 'an owner label is required',
                },
              ],
            },
          },
        ],
      },
    ],
  },
};
const constraint = (match: Record<string, unknown>) => ({
  apiVersion: 'constraints.gatekeeper.sh/v1beta1',
  kind: 'K8sOwner',
  metadata: { name: 'owner' },
  spec: { match },
});
const pod = (name: string, namespace: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace },
  spec: { containers: [{ name: 'c', image: 'nginx:1' }] },
});
const clusterRole = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'reader' }, rules: [] };
const bundle = (match: Record<string, unknown>) => [template, constraint(match)].map((manifest) => stringify(manifest)).join('---\n');

async function allowed(match: Record<string, unknown>, object: unknown) {
  const { handler } = await packagedWithRules('cel', bundle(match));
  return (await invoke(handler, eventFor(object))).body.response.allowed as boolean;
}

describe("a Gatekeeper constraint's match, as Gatekeeper reads it", () => {
  it('namespaces: a Pod elsewhere is not judged, a cluster-scoped object is (no namespace cannot disqualify it)', async () => {
    const match = { kinds: [{ apiGroups: ['*'], kinds: ['*'] }], namespaces: ['prod'] };
    expect(await allowed(match, pod('web', 'prod'))).toBe(false);
    expect(await allowed(match, pod('web', 'dev'))).toBe(true);
    expect(await allowed(match, clusterRole)).toBe(false);
  });

  it('name: a glob on the object name', async () => {
    const match = { kinds: [{ apiGroups: [''], kinds: ['Pod'] }], name: 'web-*' };
    expect(await allowed(match, pod('web-1', 'prod'))).toBe(false);
    expect(await allowed(match, pod('api-1', 'prod'))).toBe(true);
  });

  it('scope: Cluster judges cluster-scoped objects only', async () => {
    const match = { kinds: [{ apiGroups: ['*'], kinds: ['*'] }], scope: 'Cluster' };
    expect(await allowed(match, clusterRole)).toBe(false);
    expect(await allowed(match, pod('web', 'prod'))).toBe(true);
  });

  it('a match field Gatekeeper does not have is an error naming it, not a match that ignores it', () => {
    const parsed = parseRulesDocument(celPolicy, bundle({ kinds: [{ apiGroups: [''], kinds: ['Pod'] }], namespace: ['prod'] }));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.errors.join('\n')).toMatch(/K8sOwner owner: spec\.match\.namespace is not a Gatekeeper match field/);
  });
});
