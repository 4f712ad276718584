// Each cluster's heartbeat, as the admission functions write it for `fleet status` (against s3rver): when a
// cluster first calls, when the rules version it is served changes, else at most every 15 minutes; a failed
// write is tried again a minute on, never on every request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterHeartbeats, HEARTBEAT_SECONDS } from '../../functions/admission/observe/cluster-heartbeat.js';
import { startTestS3, type TestS3 } from '../helpers/s3-server.js';

let s3: TestS3;
beforeAll(async () => {
  s3 = await startTestS3();
});
afterAll(async () => s3?.close());

const settle = () => new Promise((resolve) => setTimeout(resolve, 150));
const putsOf = (prefix: string) => s3.seen.filter((request) => request.method === 'PUT' && request.path.includes(prefix)).length;

describe('cluster heartbeats', () => {
  it('written when a cluster first calls and when its rules version changes; otherwise at most every 15 minutes', async () => {
    let now = Date.UTC(2026, 10, 26, 12);
    const seen = clusterHeartbeats('cel', { bucket: s3.bucket, prefix: 'beats/', endpoint: s3.endpoint, now: () => now });
    seen('prod-eu', 'v1', undefined);
    seen('prod-eu', 'v1', undefined);
    await settle();
    expect(putsOf('/beats/prod-eu/cel.json')).toBe(1);
    expect(JSON.parse(await s3.read('beats/prod-eu/cel.json'))).toEqual({
      apiVersion: 'portcullis.dev/v1alpha1',
      kind: 'ClusterHeartbeat',
      cluster: 'prod-eu',
      policy: 'cel',
      lastRequestAt: '2026-11-26T12:00:00.000Z',
      rulesVersion: 'v1',
    });
    seen('prod-eu', 'v2', 'version v3 is invalid: …');
    await settle();
    expect(JSON.parse(await s3.read('beats/prod-eu/cel.json'))).toMatchObject({
      rulesVersion: 'v2',
      servingLastKnownGood: 'version v3 is invalid: …',
    });
    now += (HEARTBEAT_SECONDS - 1) * 1000;
    seen('prod-eu', 'v2', undefined);
    await settle();
    expect(putsOf('/beats/prod-eu/cel.json')).toBe(2);
    now += 1000;
    seen('prod-eu', 'v2', undefined);
    await settle();
    expect(putsOf('/beats/prod-eu/cel.json')).toBe(3);
  });

  it('a failed write is tried again a minute on, not on every request', async () => {
    let now = 0;
    const seen = clusterHeartbeats('cel', { bucket: s3.bucket, prefix: 'failing/', endpoint: s3.endpoint, now: () => now });
    s3.setMode('error-503');
    try {
      seen('staging', 'v1', undefined);
      await new Promise((resolve) => setTimeout(resolve, 1500)); // S3's 503 is retried once
      const tried = putsOf('/failing/staging/cel.json');
      expect(tried).toBeGreaterThan(0);
      for (let request = 0; request < 20; request++) seen('staging', 'v1', undefined);
      await settle();
      expect(putsOf('/failing/staging/cel.json')).toBe(tried);
    } finally {
      s3.setMode('forward');
    }
    now += 60_000;
    seen('staging', 'v1', undefined);
    await settle();
    expect(JSON.parse(await s3.read('failing/staging/cel.json'))).toMatchObject({ cluster: 'staging' });
  });
});
