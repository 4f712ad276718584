// One deployment for a fleet, as its rules change: a broken overlay or fleet.yaml keeps the last good rules or
// resolves by the failure policy, loudly; each distinct rule is compiled once for the whole fleet; and the
// sample fleet in policies/ is valid as npm start uploads it. The folder and handler: test/helpers/fleet-folder.ts.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClusterRulesLoader } from '../../functions/admission/fleet/cluster-rules-loader.js';
import { directoryRulesSource } from '../../functions/admission/rules/directory-rules-source.js';
import { overlayFileName } from '../../functions/admission/rules/rules-source.js';
import { celPolicy } from '../../functions/cel/policy.js';
import { fleetLayoutOfFolder } from '../../infra/fleet-layout.js';
import { fleetView } from '../../infra/fleet-view.js';
import { answerOf, bare, BUNDLE, FLEET, fleetFolderPerTest, NO_LATEST, vap } from '../helpers/fleet-folder.js';

const { folder, put, handlerFor } = fleetFolderPerTest();

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
