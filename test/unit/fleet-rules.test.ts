import { describe, expect, it } from 'vitest';
import { fleetOf } from '../../functions/admission/fleet/fleet-document.js';
import { mergedWithOverlay, overlayOf } from '../../functions/admission/fleet/overlay.js';
import { celPolicy } from '../../functions/cel/policy.js';
import { trustedRegistryPolicy } from '../../functions/trusted-registry/policy.js';
import { mutationsPolicy } from '../../functions/mutations/policy.js';
import { answerOf, bare, BUNDLE, FLEET, fleetFolderPerTest, NO_LATEST, TEAM, teamless, vap } from '../helpers/fleet-folder.js';
import { podManifest } from '../helpers/invoke.js';

const { folder, put, handlerFor } = fleetFolderPerTest();

describe('fleet.yaml', () => {
  it('names clusters with labels, each also labelled with its own name', () => {
    const parsed = fleetOf({ clusters: [{ name: 'prod-eu', labels: { env: 'prod' } }] });
    expect(parsed.ok && parsed.fleet.clusters.get('prod-eu')).toEqual({ env: 'prod', 'portcullis.dev/cluster': 'prod-eu' });
  });

  it.each([
    [{ clusters: [{ name: 'a' }, { name: 'a' }] }, 'clusters[1].name: cluster a is listed twice'],
    [{ clusters: [{ name: 'Prod' }] }, 'clusters[0].name: expected a cluster name'],
    [
      { clusters: [{ name: 'a', labels: { 'bad key!': 'x' } }] },
      'clusters[0].labels.bad key!: name part must consist of alphanumeric characters',
    ],
    [{ clusters: [{ name: 'a', labels: { 'portcullis.dev/cluster': 'b' } }] }, "is every cluster's own name, set by Portcullis"],
    [
      { overrides: [{ policies: ['x'], clusters: 'env=prod', action: 'Deny' }] },
      'overrides[0].action: expected Audit or Warn: an override only weakens',
    ],
    [
      { overrides: [{ policies: ['x'], clusters: 'env in (prod', action: 'Warn' }] },
      "overrides[0].clusters: not a label selector (kubectl's -l syntax)",
    ],
    [{ overrides: [{ policies: [], clusters: 'env=prod', action: 'Warn' }] }, 'overrides[0].policies: required: name at least one policy'],
    [{ cluster: [] }, 'unknown field "cluster"'],
  ])('refuses %j, naming the field', (data, message) => {
    const parsed = fleetOf(data);
    expect(parsed.ok ? [] : parsed.errors.join('\n')).toContain(message);
  });
});

describe('overlays merged with the fleet-wide document', () => {
  const isManifests = (data: unknown) => Array.isArray(data) || Boolean(celPolicy.manifests?.detect(data));
  const manifest = (kind: string, name: string, extra = {}) => ({ apiVersion: 'v1', kind, metadata: { name }, ...extra });

  it('manifests: one of the same kind and name replaces the fleet-wide one in place; others are added', () => {
    const base = { data: [manifest('A', 'one'), manifest('B', 'two')], manifests: true };
    const overlay = overlayOf([manifest('B', 'two', { spec: 'mine' }), manifest('A', 'three'), manifest('B', 'one', {})], isManifests);
    expect(overlay.ok).toBe(true);
    const merged = mergedWithOverlay(base, overlay.ok ? overlay.value : (undefined as never));
    expect(merged).toEqual({
      ok: true,
      data: [manifest('A', 'one'), manifest('B', 'two', { spec: 'mine' }), manifest('A', 'three'), manifest('B', 'one', {})],
    });
  });

  it('a native document: rules replaced by name, new ones added, its failurePolicy in place of the fleet-wide one', () => {
    const base = { data: { failurePolicy: 'Ignore', rules: [{ name: 'a', x: 1 }, { name: 'b' }] }, manifests: false };
    const overlay = overlayOf({ failurePolicy: 'Fail', rules: [{ name: 'a', x: 2 }, { name: 'c' }], switchOff: ['b'] }, isManifests);
    expect(overlay).toMatchObject({ ok: true, value: { switchOff: ['b'] } });
    expect(mergedWithOverlay(base, overlay.ok ? overlay.value : (undefined as never))).toEqual({
      ok: true,
      data: { failurePolicy: 'Fail', rules: [{ name: 'a', x: 2 }, { name: 'b' }, { name: 'c' }] },
    });
  });

  it('a ClusterOverlay manifest switches fleet-wide policies off, and is not itself a manifest to run', () => {
    const overlay = overlayOf(
      [{ apiVersion: 'portcullis.dev/v1alpha1', kind: 'ClusterOverlay', metadata: { name: 'x' }, spec: { switchOff: ['no-latest'] } }],
      isManifests,
    );
    expect(overlay).toEqual({ ok: true, value: { data: [], switchOff: ['no-latest'], manifests: true } });
  });

  it.each([
    [
      [{ apiVersion: 'portcullis.dev/v1alpha1', kind: 'ClusterOverlay', spec: { switchOff: 'no-latest' } }],
      'ClusterOverlay: spec: expected only switchOff, a list of policy names',
    ],
    [{ rules: [], switchOff: [1] }, 'switchOff: expected a list of policy names'],
  ])('refuses an overlay that is not one: %j', (data, message) => {
    const overlay = overlayOf(data, isManifests);
    expect(overlay.ok ? '' : overlay.errors.join('\n')).toContain(message);
  });

  it('an overlay written otherwise than the fleet-wide document is refused, saying how to write it', () => {
    const overlay = overlayOf({ rules: [] }, isManifests);
    const merged = mergedWithOverlay({ data: [manifest('A', 'one')], manifests: true }, overlay.ok ? overlay.value : (undefined as never));
    expect(merged).toEqual({
      ok: false,
      errors: [
        'the fleet-wide document is Kubernetes manifests, the overlay a rules document (failurePolicy, rules): write the overlay as the fleet-wide document is written',
      ],
    });
  });
});

describe('each cluster enforces what is placed on it', () => {
  it('a policy placed on env=prod judges prod clusters only; unplaced ones judge every cluster', async () => {
    put('fleet.yaml', FLEET);
    put('cel.yaml', BUNDLE);
    const handler = handlerFor(celPolicy);
    const prod = await answerOf(handler, 'prod-eu', teamless);
    expect(prod.allowed).toBe(false);
    expect(prod.status.message).toContain('pods need a team label');
    expect(prod.auditAnnotations.cluster).toBe('prod-eu');
    const staging = await answerOf(handler, 'staging', teamless);
    expect(staging.allowed).toBe(false);
    expect(staging.status.message).not.toContain('team label');
    expect(staging.status.message).toContain('no latest tags');
    // Each cluster's rules version names every part it was made of.
    expect(staging.auditAnnotations['rules-version']).toMatch(/^fnv1a:[0-9a-f]{8}-\d+\+fleet:fnv1a:[0-9a-f]{8}-\d+$/);
  });

  it("a cluster's overlay replaces a fleet-wide policy of the same name, adds its own, and switches others off", async () => {
    put('fleet.yaml', FLEET);
    put('cel.yaml', BUNDLE);
    put(
      'clusters/staging/cel.yaml',
      [
        vap('require-team', "has(object.metadata.labels) && 'owner' in object.metadata.labels", 'staging pods need an owner label'),
        vap('only-small', 'size(object.spec.containers) <= 1', 'one container on staging'),
        'apiVersion: portcullis.dev/v1alpha1\nkind: ClusterOverlay\nmetadata: { name: staging }\nspec: { switchOff: [no-latest] }\n',
      ].join('---\n'),
    );
    const handler = handlerFor(celPolicy);
    const staging = await answerOf(handler, 'staging', {
      ...teamless,
      spec: {
        containers: [
          { name: 'a', image: 'x:latest' },
          { name: 'b', image: 'y:1' },
        ],
      },
    });
    expect(staging.allowed).toBe(false);
    expect(staging.status.message).toContain('staging pods need an owner label');
    expect(staging.status.message).toContain('one container on staging');
    expect(staging.status.message).not.toContain('no latest tags');
    expect(staging.auditAnnotations['rules-version']).toMatch(/\+overlay:fnv1a:/);
    // prod-eu has no overlay: the fleet-wide bundle as placed for it.
    const prod = await answerOf(handler, 'prod-eu', teamless);
    expect(prod.status.message).toContain('pods need a team label');
    expect(prod.status.message).toContain('no latest tags');
    expect(prod.auditAnnotations['rules-version']).not.toMatch(/overlay/);
  });

  it("no token reaches another cluster's overlay: the same request, the same route, each cluster's own answer", async () => {
    put('cel.yaml', vap('no-latest', NO_LATEST, 'no latest tags'));
    put('clusters/prod-us/cel.yaml', vap('no-latest', 'true', 'never'));
    const handler = handlerFor(celPolicy);
    expect((await answerOf(handler, 'prod-us', bare, 'no-latest')).allowed).toBe(true);
    expect((await answerOf(handler, 'prod-eu', bare, 'no-latest')).allowed).toBe(false);
    expect((await answerOf(handler, 'staging', bare, 'no-latest')).allowed).toBe(false);
    expect((await answerOf(handler, 'prod-us', bare, 'no-latest')).allowed).toBe(true);
  });

  it('overrides turn Deny into Warn or Audit for the clusters their selector matches, never the other way', async () => {
    put(
      'fleet.yaml',
      `${FLEET}overrides:
  - { policies: [no-latest], clusters: "env=staging", action: Warn }
  - { policies: [audited], clusters: "env=staging", action: Audit }
  - { policies: [warned-only], clusters: "env", action: Audit }
`,
    );
    put(
      'cel.yaml',
      [
        vap('no-latest', NO_LATEST, 'no latest tags'),
        vap('audited', TEAM, 'pods need a team label'),
        vap('warned-only', 'false', 'always warned', {}, ['Warn']),
      ].join('---\n'),
    );
    const handler = handlerFor(celPolicy);
    const staging = await answerOf(handler, 'staging', teamless);
    expect(staging.allowed).toBe(true);
    expect(staging.warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining('no latest tags'),
        expect.stringContaining('always warned'), // Warn stays Warn: Audit weakens only Deny
      ]),
    );
    expect(JSON.parse(staging.auditAnnotations.validation_failure)).toEqual([expect.objectContaining({ policy: 'audited' })]);
    const prod = await answerOf(handler, 'prod-eu', teamless);
    expect(prod.allowed).toBe(false);
    expect(prod.status.message).toContain('no latest tags');
  });

  it('a native document: overrides by the function name weaken its enforce rules; mutating rules report instead of patching', async () => {
    put('fleet.yaml', `${FLEET}overrides:\n  - { policies: [trusted-registry, mutations], clusters: "env=staging", action: Warn }\n`);
    put('trusted-registry.yaml', 'rules: [{ name: company, parameters: { allowedRegistries: [registry.example.com] } }]\n');
    const registry = handlerFor(trustedRegistryPolicy);
    const elsewhere = podManifest({ app: 'docker.io/app:1' });
    expect((await answerOf(registry, 'prod-eu', elsewhere)).allowed).toBe(false);
    const staging = await answerOf(registry, 'staging', elsewhere);
    expect(staging.allowed).toBe(true);
    expect(staging.warnings.join()).toContain('trusted-registry (audit, rule company)');

    put(
      'mutations.yaml',
      `rules:
  - name: add-label
    match: { kinds: [Pod] }
    parameters:
      mutations: [{ patchType: JSONPatch, jsonPatch: { expression: "[JSONPatch{op: 'add', path: '/metadata/labels/added', value: 'yes'}]" } }]
`,
    );
    const mutations = handlerFor(mutationsPolicy);
    expect((await answerOf(mutations, 'prod-eu', elsewhere)).patch).toBeDefined();
    const reported = await answerOf(mutations, 'staging', elsewhere);
    expect(reported.patch).toBeUndefined();
    expect(reported.warnings.join()).toContain('would add /metadata/labels/added');
  });

  it('a placement on a manifest no rule comes from (a param object) is refused: it would place nothing', async () => {
    put(
      'cel.yaml',
      `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: { name: max-containers }
spec:
  paramKind: { apiVersion: v1, kind: ConfigMap }
  matchConstraints:
    resourceRules: [{ apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods] }]
  validations: [{ expression: "size(object.spec.containers) <= int(params.data.max)" }]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: { name: max-containers }
spec: { policyName: max-containers, validationActions: [Deny], paramRef: { name: limits, namespace: default } }
---
apiVersion: v1
kind: ConfigMap
metadata: { name: limits, namespace: default, annotations: { portcullis.dev/clusters: env=prod } }
data: { max: "1" }
`,
    );
    const answer = await answerOf(handlerFor(celPolicy), 'prod-eu', bare);
    expect(answer.auditAnnotations['failed-open']).toMatch(
      /invalid rules: ConfigMap limits: metadata.annotations.portcullis.dev\/clusters: no rule comes from this manifest/,
    );
  });

  it('a selector that does not parse is refused with the rule, naming where the manifest wrote it', async () => {
    put('cel.yaml', vap('no-latest', NO_LATEST, 'no latest tags', { 'portcullis.dev/clusters': 'env in (prod' }));
    const answer = await answerOf(handlerFor(celPolicy), 'prod-eu', bare);
    expect(answer.status.message).toMatch(
      /ValidatingAdmissionPolicy no-latest \(binding no-latest\): metadata.annotations.portcullis.dev\/clusters: not a label selector/,
    );
  });
});
