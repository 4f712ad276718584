// The functions' reader of the cluster snapshot, on a source that answers, hangs or fails: a request waits
// for it at most RULES_FETCH_TIMEOUT_MS, the last good snapshot answers meanwhile, and without one the
// rules that read the cluster resolve by their failure policy, saying why; past the maximum age, the same.
import { describe, expect, it } from 'vitest';
import { snapshotText } from '../../functions/admission/cluster/cluster-snapshot.js';
import { createSnapshotLoader } from '../../functions/admission/cluster/snapshot-loader.js';
import type { RawRules, RulesSource } from '../../functions/admission/rules/rules-source.js';

const NAMESPACES = { apiVersion: 'v1', resource: 'namespaces' };
const snapshot = (takenAt: Date) =>
  new TextEncoder().encode(
    snapshotText({
      apiVersion: 'portcullis.dev/v1alpha1',
      kind: 'ClusterSnapshot',
      cluster: 'prod',
      takenAt: takenAt.toISOString(),
      collections: [{ ...NAMESPACES, kind: 'Namespace', items: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }] }],
    }),
  );

/** A source whose next answer the test decides: a version, a failure, or none (it hangs). */
function scriptedSource() {
  let next: () => Promise<RawRules> = () => new Promise(() => {});
  const source: RulesSource = { describe: () => 'clusters/prod.jsonl', load: () => next() };
  return {
    source,
    answer: (raw: RawRules) => {
      next = async () => raw;
    },
    hang: () => {
      next = () => new Promise(() => {});
    },
  };
}

describe('the cluster snapshot reader', () => {
  const now = new Date('2026-11-26T14:00:00Z');

  it('waits at most its patience: with nothing read yet, the rules that read the cluster say the snapshot did not arrive', async () => {
    const { source } = scriptedSource();
    const load = createSnapshotLoader({ source, cluster: 'prod', maxAgeSeconds: 900, patienceMs: 30, clock: () => now });
    const started = Date.now();
    const state = await load();
    expect(Date.now() - started).toBeLessThan(500);
    expect(state.unavailable).toBe('the cluster snapshot clusters/prod.jsonl did not arrive within 30 ms');
    expect(() => state.view.get(NAMESPACES, undefined, 'shop')).toThrow(/did not arrive within 30 ms/);
  });

  it('a source that hangs after a good version: the last good one answers', async () => {
    const scripted = scriptedSource();
    const load = createSnapshotLoader({ source: scripted.source, cluster: 'prod', maxAgeSeconds: 900, patienceMs: 30, clock: () => now });
    scripted.answer({ version: 'v1', bytes: snapshot(new Date(now.getTime() - 60_000)) });
    expect((await load()).ageSeconds).toBe(60);
    scripted.hang();
    const state = await load();
    expect(state).toMatchObject({ version: 'v1', ageSeconds: 60 });
    expect(state.view.get(NAMESPACES, undefined, 'shop')).toBeDefined();
  });

  it('older than the maximum age: every lookup says how old, and the version and age are still reported', async () => {
    const scripted = scriptedSource();
    scripted.answer({ version: 'v1', bytes: snapshot(new Date(now.getTime() - 3_600_000)) });
    const state = await createSnapshotLoader({ source: scripted.source, cluster: 'prod', maxAgeSeconds: 900, clock: () => now })();
    expect(state).toMatchObject({ version: 'v1', ageSeconds: 3600 });
    expect(() => state.view.list(NAMESPACES)).toThrow(
      'the rule reads the cluster, and the cluster snapshot was taken 3600 s ago, more than CLUSTER_SNAPSHOT_MAX_AGE_SECONDS (900)',
    );
  });

  it("another cluster's snapshot is an invalid version", async () => {
    const scripted = scriptedSource();
    scripted.answer({ version: 'v1', bytes: snapshot(now) });
    const state = await createSnapshotLoader({ source: scripted.source, cluster: 'staging', maxAgeSeconds: 900, clock: () => now })();
    expect(state.unavailable).toMatch(
      /the cluster snapshot is invalid: line 1: cluster: prod, expected staging \(the calling cluster\): another cluster's snapshot/,
    );
  });
});
