// CEL that reads the cluster, with a cluster view as the function hands it over: namespaceObject (a
// ValidatingAdmissionPolicy's and a Kyverno ValidatingPolicy's) and Kyverno's resource.Get and resource.List;
// what the view does not hold, or no view at all, is the rule's error; and what each expression reads.
import { describe, expect, it } from 'vitest';
import { clusterView, completeView } from '../../functions/admission/cluster/cluster-view.js';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import { celPolicy } from '../../functions/cel/policy.js';
import { mutateRules } from '../../functions/admission/decide/mutate-rules.js';
import { mutationsPolicy } from '../../functions/mutations/policy.js';
import { admissionReviewFor } from '../../infra/admission-event.js';
import { applyPatchStrictly } from '../helpers/apply-patch.js';
import { refusalOf, verdictOf } from '../helpers/cel-verdict.js';

const vap = (expression: string, failurePolicy = 'Fail') =>
  [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'p' },
      spec: {
        failurePolicy,
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods', 'namespaces'] }],
        },
        validations: [{ expression, message: 'denied' }],
      },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: 'b' },
      spec: { policyName: 'p', validationActions: ['Deny'] },
    },
  ]
    .map((document) => JSON.stringify(document))
    .join('\n---\n');
const vpol = (variable: string, expression: string) =>
  JSON.stringify({
    apiVersion: 'policies.kyverno.io/v1alpha1',
    kind: 'ValidatingPolicy',
    metadata: { name: 'p' },
    spec: {
      validationActions: ['Deny'],
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
      variables: [{ name: 'looked', expression: variable }],
      validations: [{ expression, message: 'denied' }],
    },
  });
const pod = (namespace: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1', namespace }, spec: { containers: [] } });
const namespace = (name: string, labels: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
const configMap = (ns: string, name: string, data: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns },
  data,
});
const cluster = completeView([namespace('prod', { tier: 'gold' }), namespace('dev', {}), configMap('platform', 'limits', { max: '3' })]);

describe('namespaceObject', () => {
  const text = vap("namespaceObject == null || namespaceObject.metadata.?labels.?tier.orValue('') == 'gold'");

  it("is the request's Namespace from the view, null for a cluster-scoped object", async () => {
    expect((await verdictOf(text, pod('prod'), { namespace: 'prod' }, undefined, cluster)).allowed).toBe(true);
    expect((await verdictOf(text, pod('dev'), { namespace: 'dev' }, undefined, cluster)).allowed).toBe(false);
    expect((await verdictOf(text, namespace('new', {}), {}, undefined, cluster)).allowed).toBe(true);
  });

  it('every rule of a bundle that reads it sees it', async () => {
    const second = vap("namespaceObject.metadata.name != 'prod'")
      .replace('"name":"p"', '"name":"q"')
      .replace('"policyName":"p"', '"policyName":"q"')
      .replace('"name":"b"', '"name":"c"');
    const bundle = `${text}\n---\n${second}`;
    const dev = await verdictOf(bundle, pod('dev'), { namespace: 'dev' }, undefined, cluster);
    expect(dev.status?.message).toMatch(/Policy 'p' /);
    expect(dev.status?.message).not.toMatch(/Policy 'q' /);
    const prod = await verdictOf(bundle, pod('prod'), { namespace: 'prod' }, undefined, cluster);
    expect(prod.status?.message).toMatch(/Policy 'q' /);
    expect(prod.status?.message).not.toMatch(/Policy 'p' /);
  });

  it('without a cluster view the failure policy answers, naming what was read', async () => {
    const verdict = await verdictOf(text, pod('prod'), { namespace: 'prod' });
    expect(verdict.allowed).toBe(false);
    expect(verdict.status?.message).toMatch(/namespaceObject is the request's Namespace, and no cluster snapshot is loaded/);
  });
});

describe("Kyverno's resource.Get and resource.List", () => {
  it('Get reads one object; one the cluster does not have is an error', async () => {
    const text = vpol('resource.Get("v1", "configmaps", "platform", "limits")', "variables.looked.data.max == '3'");
    expect((await verdictOf(text, pod('prod'), { namespace: 'prod' }, undefined, cluster)).allowed).toBe(true);
    const missing = vpol('resource.Get("v1", "configmaps", "platform", "other")', 'variables.looked != null');
    const verdict = await verdictOf(missing, pod('prod'), { namespace: 'prod' }, undefined, cluster);
    expect(verdict.status?.message).toMatch(/configmaps "other" not found/);
  });

  it("List reads a namespace's objects, or every namespace's", async () => {
    const text = vpol('resource.List("v1", "configmaps", object.metadata.namespace).items', 'size(variables.looked) == 0');
    expect((await verdictOf(text, pod('prod'), { namespace: 'prod' }, undefined, cluster)).allowed).toBe(true);
    expect((await verdictOf(text, pod('platform'), { namespace: 'platform' }, undefined, cluster)).allowed).toBe(false);
  });

  it('what the snapshot does not hold is an error, never an empty list', async () => {
    const snapshot = clusterView([{ apiVersion: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespace: 'platform', items: [] }]);
    const text = vpol('resource.List("v1", "configmaps", "").items', 'size(variables.looked) == 0');
    const verdict = await verdictOf(text, pod('prod'), { namespace: 'prod' }, undefined, snapshot);
    expect(verdict.allowed).toBe(false);
    expect(verdict.status?.message).toMatch(/the cluster snapshot does not hold configmaps/);
  });

  it('each expression says what it reads: literal arguments exactly, computed ones widened', () => {
    const parsed = parseRulesDocument(celPolicy, vpol('resource.List("apps/v1", "deployments", object.metadata.namespace)', 'true'));
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    expect(celPolicy.clusterReads!(parsed.document.rules[0]!.parameters)).toEqual([{ apiVersion: 'apps/v1', resource: 'deployments' }]);
    expect(refusalOf(vpol('resource.Get("v1", object.kind, "x", "y")', 'true'))).toMatch(
      /Kyverno's resource\.Get: the resource .* is computed per request, so no snapshot can know what to read/,
    );
    expect(refusalOf(vpol('resource.Post("v1", "configmaps", "x", {})', 'true'))).toMatch(/resource\.Post calls the cluster/);
  });
});

describe("a MutatingAdmissionPolicy's namespaceObject", () => {
  it("is the request's Namespace from the view: the patch copies one of its labels", async () => {
    const bundle = [
      {
        apiVersion: 'admissionregistration.k8s.io/v1beta1',
        kind: 'MutatingAdmissionPolicy',
        metadata: { name: 'tier-label' },
        spec: {
          matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
          failurePolicy: 'Fail',
          reinvocationPolicy: 'Never',
          mutations: [
            {
              patchType: 'ApplyConfiguration',
              applyConfiguration: {
                expression: "Object{metadata: Object.metadata{labels: {'tier': namespaceObject.metadata.labels['tier']}}}",
              },
            },
          ],
        },
      },
      {
        apiVersion: 'admissionregistration.k8s.io/v1beta1',
        kind: 'MutatingAdmissionPolicyBinding',
        metadata: { name: 'tier-label' },
        spec: { policyName: 'tier-label' },
      },
    ]
      .map((document) => JSON.stringify(document))
      .join('\n---\n');
    const parsed = parseRulesDocument(mutationsPolicy, bundle);
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    expect(mutationsPolicy.clusterReads!(parsed.document.rules[0]!.parameters)).toEqual([{ apiVersion: 'v1', resource: 'namespaces' }]);
    const request = admissionReviewFor(pod('prod'), { namespace: 'prod' }).request as never;
    const outcome = await mutateRules(mutationsPolicy as never, parsed.document as never, request, { now: new Date(), cluster });
    expect(applyPatchStrictly(pod('prod'), outcome.verdict.patch!).metadata).toEqual({
      name: 'p1',
      namespace: 'prod',
      labels: { tier: 'gold' },
    });
  });
});
