// One deployment for a fleet, through a real handler reading a rules folder laid out as the bucket is:
// fleet.yaml, the fleet-wide documents, and clusters/<cluster>/<policy>.yaml overlays. Each cluster is known by
// its token only; it gets the fleet-wide rules placed on its labels, merged with its own overlay, acting as the
// overrides for its labels say; and no token reaches another cluster's rules.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../../functions/admission/config.js';
import { createAdmissionHandler } from '../../functions/admission/create-admission-handler.js';
import { createClusterRulesLoader } from '../../functions/admission/fleet/cluster-rules-loader.js';
import { fleetOf } from '../../functions/admission/fleet/fleet-document.js';
import { mergedWithOverlay, overlayOf } from '../../functions/admission/fleet/overlay.js';
import { directoryRulesSource } from '../../functions/admission/rules/directory-rules-source.js';
import { overlayFileName } from '../../functions/admission/rules/rules-source.js';
import { celPolicy } from '../../functions/cel/policy.js';
import { trustedRegistryPolicy } from '../../functions/trusted-registry/policy.js';
import { mutationsPolicy } from '../../functions/mutations/policy.js';
import { fleetLayoutOfFolder } from '../../infra/fleet-layout.js';
import { fleetView } from '../../infra/fleet-view.js';
import { eventFor, type Handler, invoke, podManifest } from '../helpers/invoke.js';
import { rulesFolderPerTest } from '../helpers/rules-folder.js';

const TOKENS = 'prod-eu=prod-eu-token-0123456789,prod-us=prod-us-token-0123456789,staging=staging-token-0123456789';
const FLEET = `
clusters:
  - name: prod-eu
    labels: { env: prod, region: eu-west-1 }
  - name: prod-us
    labels: { env: prod, region: us-east-1 }
  - name: staging
    labels: { env: staging }
`;

const folder = rulesFolderPerTest();
const put = (path: string, text: string) => {
  const file = join(folder.dir(), path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
};

const handlerFor = (policy: typeof celPolicy | typeof trustedRegistryPolicy, env: Record<string, string> = {}) =>
  createAdmissionHandler(policy as never, {
    config: configFromEnv({ RULES_DIR: folder.dir(), RULES_TTL_SECONDS: '0', WEBHOOK_TOKENS: TOKENS, ...env }),
  }) as unknown as Handler;

const from = (token: string, manifest: unknown, routed?: string) => {
  const event = eventFor(manifest);
  event.headers = { ...event.headers, authorization: `Bearer ${token}-token-0123456789` };
  if (routed) event.pathParameters = { policy: routed };
  return event;
};
const answerOf = async (handler: Handler, cluster: string, manifest: unknown, routed?: string) =>
  (await invoke(handler, from(cluster, manifest, routed))).body.response;

/** A Kyverno-style VAP bundle with two policies; `require-team` placed on prod only. */
const vap = (name: string, expression: string, message: string, annotations: Record<string, string> = {}, actions = ['Deny']) => `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: ${name}
  annotations: ${JSON.stringify(annotations)}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{ apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods] }]
  validations:
    - expression: ${JSON.stringify(expression)}
      message: ${JSON.stringify(message)}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: { name: ${name} }
spec:
  policyName: ${name}
  validationActions: ${JSON.stringify(actions)}
`;
const TEAM = "has(object.metadata.labels) && 'team' in object.metadata.labels";
const NO_LATEST = "object.spec.containers.all(c, !c.image.endsWith(':latest'))";
const BUNDLE = [
  vap('require-team', TEAM, 'pods need a team label', { 'portcullis.dev/clusters': 'env=prod' }),
  vap('no-latest', NO_LATEST, 'no latest tags'),
].join('---\n');

const bare = podManifest({ app: 'registry.example.com/app:latest' }, {});
const teamless = { ...bare, metadata: { name: 'p' } };

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
    const mutations = createAdmissionHandler(mutationsPolicy as never, {
      config: configFromEnv({ RULES_DIR: folder.dir(), RULES_TTL_SECONDS: '0', WEBHOOK_TOKENS: TOKENS }),
    }) as unknown as Handler;
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

describe('what a cluster sees when its overlay is broken', () => {
  it('an invalid overlay with no good version before it: that cluster alone resolves by the failure policy, loudly', async () => {
    put('cel.yaml', vap('no-latest', NO_LATEST, 'no latest tags'));
    put('clusters/staging/cel.yaml', 'not: [valid');
    const handler = handlerFor(celPolicy);
    const staging = await answerOf(handler, 'staging', bare);
    expect(staging.allowed).toBe(false); // the fleet-wide VAP's failurePolicy Fail
    expect(staging.status.message).toMatch(/invalid overlay of staging: YAML/);
    expect((await answerOf(handler, 'prod-eu', bare)).status.message).toContain('no latest tags');
  });

  it('an overlay that turns invalid keeps the cluster on its last good rules, and says why', async () => {
    put('cel.yaml', vap('no-latest', NO_LATEST, 'no latest tags'));
    put('clusters/staging/cel.yaml', vap('no-latest', 'true', 'never'));
    const handler = handlerFor(celPolicy);
    expect((await answerOf(handler, 'staging', bare)).allowed).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 15));
    put('clusters/staging/cel.yaml', vap('no-latest', 'object.spec.nope(', 'broken'));
    const answer = await answerOf(handler, 'staging', bare);
    expect(answer.allowed).toBe(true);
    expect(answer.auditAnnotations['rules-version']).toMatch(/\+overlay:/);
  });

  it('a deleted overlay is gone: the cluster is back on the fleet-wide rules', async () => {
    put('cel.yaml', vap('no-latest', NO_LATEST, 'no latest tags'));
    put('clusters/staging/cel.yaml', vap('no-latest', 'true', 'never'));
    const handler = handlerFor(celPolicy);
    expect((await answerOf(handler, 'staging', bare)).allowed).toBe(true);
    rmSync(join(folder.dir(), 'clusters'), { recursive: true });
    expect((await answerOf(handler, 'staging', bare)).allowed).toBe(false);
  });

  it('an invalid fleet.yaml with no good version: every cluster resolves by the failure policy, naming the file', async () => {
    put('cel.yaml', vap('no-latest', NO_LATEST, 'no latest tags'));
    put('fleet.yaml', 'clusters: [{ name: Not_A_Name }]');
    const answer = await answerOf(handlerFor(celPolicy), 'prod-eu', bare);
    expect(answer.allowed).toBe(false);
    expect(answer.status.message).toMatch(/invalid fleet.yaml: clusters\[0\]\.name/);
  });
});

describe('each distinct rule is validated and compiled once for the whole fleet', () => {
  it("a cluster's merged document shares the fleet-wide rules its overlay does not change; a cluster with no changes shares the whole document", async () => {
    put('fleet.yaml', FLEET);
    put('cel.yaml', BUNDLE);
    put('clusters/staging/cel.yaml', vap('only-small', 'size(object.spec.containers) <= 1', 'one container'));
    const source = (fileName?: (name: string) => string) =>
      directoryRulesSource({ directory: folder.dir(), maxBytes: 1 << 20, ttlMs: 0, ...(fileName ? { fileName } : {}) });
    const load = createClusterRulesLoader(
      celPolicy,
      { rules: source(), fleet: source(() => 'fleet.yaml'), overlays: source(overlayFileName) },
      { maxBytes: 1 << 20, patienceMs: 100 },
    );
    const [prodEu, prodUs, staging] = await Promise.all([load('prod-eu'), load('prod-us'), load('staging')]);
    if (!prodEu.ok || !prodUs.ok || !staging.ok) throw new Error('expected usable rules');
    expect(prodUs.document).toBe(prodEu.document);
    const byName = (rules: readonly { name: string }[], name: string) => rules.find((rule) => rule.name === name);
    expect(byName(staging.document.rules, 'no-latest/no-latest')).toBe(byName(prodEu.document.rules, 'no-latest/no-latest'));
    expect(byName(staging.document.rules, 'only-small/only-small')).toBeDefined();
    expect(byName(staging.document.rules, 'require-team/require-team')).toBeUndefined(); // placed on env=prod
  });

  it("within the TTL a warm request gets the last request's rules at once, as loading would give them; after it, every change is seen", async () => {
    put('fleet.yaml', FLEET);
    put('cel.yaml', BUNDLE);
    put('clusters/staging/cel.yaml', vap('only-small', 'size(object.spec.containers) <= 1', 'one container'));
    let now = 0;
    const source = (fileName?: (name: string) => string) =>
      directoryRulesSource({ directory: folder.dir(), maxBytes: 1 << 20, ttlMs: 1000, now: () => now, ...(fileName ? { fileName } : {}) });
    const load = createClusterRulesLoader(
      celPolicy,
      { rules: source(), fleet: source(() => 'fleet.yaml'), overlays: source(overlayFileName) },
      { maxBytes: 1 << 20, patienceMs: 100 },
    );
    const names = (rules: ReturnType<typeof load.now>) => (rules?.ok ? rules.document.rules.map((rule) => rule.name) : rules);
    expect(load.now('prod-eu')).toBeUndefined(); // nothing loaded yet
    const [prodEu, staging] = [await load('prod-eu'), await load('staging')];
    expect(load.now('prod-eu')).toBe(prodEu); // prod-eu has no overlay: its absence is known too
    expect(load.now('staging')).toBe(staging);
    put('cel.yaml', vap('only-small', 'size(object.spec.containers) <= 1', 'one container'));
    now = 999; // within the TTL the sources do not look, so loading gives the same rules
    expect(load.now('prod-eu')).toBe(prodEu);
    expect(await load('prod-eu')).toBe(prodEu);

    now = 1000;
    expect(load.now('prod-eu')).toBeUndefined();
    expect(names(await load('prod-eu'))).toEqual(['only-small/only-small']);
    expect(names(load.now('prod-eu'))).toEqual(['only-small/only-small']);

    put('clusters/prod-eu/cel.yaml', vap('no-latest', NO_LATEST, 'no latest'));
    now = 2000;
    expect(load.now('prod-eu')).toBeUndefined(); // a new overlay is read, parsed and merged
    expect(names(await load('prod-eu'))).toEqual(['only-small/only-small', 'no-latest/no-latest']);

    put('cel.yaml', 'rules: [{ name: broken');
    now = 3000;
    expect(load.now('prod-eu')).toBeUndefined();
    const lastGood = await load('prod-eu');
    expect(lastGood).toMatchObject({ ok: true, lastKnownGood: expect.stringContaining('invalid') });
    expect(load.now('prod-eu')).toBeUndefined(); // last good rules are served the long way, saying why each time
  });
});

describe('the sample fleet', () => {
  it('policies/ (fleet.yaml, the samples, clusters/dev) is valid as a whole, as npm start uploads it', async () => {
    const view = fleetView(await fleetLayoutOfFolder('policies'), 1 << 21);
    expect(view.ok ? view.clusters.map(({ cluster }) => cluster) : view.errors).toEqual(['dev', 'prod']);
  });
});
