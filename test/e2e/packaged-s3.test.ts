import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importPackagedHandler } from '../../infra/packaged-function.js';
import { fixture, type Handler, invoke } from '../helpers/invoke.js';
import { startTestS3, type TestS3 } from '../helpers/s3-server.js';
import { testRules } from '../helpers/test-rules.js';

let s3: TestS3;
let handler: Handler;
let etag: string | undefined;
beforeAll(async () => {
  s3 = await startTestS3();
  etag = await s3.put('policies/trusted-registry.yaml', testRules('trusted-registry'));
  handler = (await importPackagedHandler('trusted-registry', { RULES_BUCKET: s3.bucket, RULES_S3_ENDPOINT: s3.endpoint }))
    .handler as Handler;
});
afterAll(async () => s3?.close());

describe('the packaged trusted-registry function with rules from S3', () => {
  it.each([
    ['pod-bad-repo.json', false],
    ['pod-allowed.json', true],
  ])('%s → allowed=%s, decided by the bucket’s version', async (name, allowed) => {
    const answer = await invoke(handler, fixture('trusted-registry', name));
    expect(answer.body.response.allowed).toBe(allowed);
    expect(answer.body.response.auditAnnotations['rules-version']).toBe(`etag:${etag!.replaceAll('"', '')}`);
  });

  it("loaded its rules once, at init; the calling cluster's overlay once, when it first called", () => {
    expect(s3.gets('/policies/trusted-registry.yaml')).toHaveLength(1);
    expect(s3.gets('/policies/clusters/default/trusted-registry.yaml')).toHaveLength(1);
  });
});
