// Rules from S3, against s3rver on loopback behind a counting, fault-injecting proxy: caching within the
// TTL, conditional revalidation, hot reload, last-known-good on every kind of failure, and the failure
// policy when nothing good was ever loaded.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { configFromEnv } from '../../functions/admission/config.js';
import { createAdmissionHandler } from '../../functions/admission/create-admission-handler.js';
import { logger } from '../../functions/admission/observe/logger.js';
import { trustedRegistryPolicy } from '../../functions/trusted-registry/policy.js';
import { eventFor, type Handler, invoke, podManifest } from '../helpers/invoke.js';
import { captureLogLines } from '../helpers/log-lines.js';
import { startTestS3, type TestS3 } from '../helpers/s3-server.js';

const STRICT = 'rules: [{ name: strict, parameters: { allowedRegistries: ["192.168.64.1"] } }]';
const LOOSE = 'rules: [{ name: loose, parameters: { allowedRegistries: ["192.168.64.1", "docker.io"] } }]';
const INVALID = 'rules: [{ name: broken, parameters: { allowedRegistries: docker.io } }]';
const pod = () => eventFor(podManifest({ app: 'nginx:1.21.1' })); // denied by STRICT, admitted by LOOSE
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let s3: TestS3;
let prefixCounter = 0;
beforeAll(async () => {
  s3 = await startTestS3();
});
afterAll(async () => s3?.close());
afterEach(async () => {
  s3.setMode('forward');
  await s3.up().catch(() => undefined); // a test may have taken the proxy down
});

/** A handler with its own cache and its own object key, and the rules document put there first. */
async function setUp(document: string | undefined, env: Record<string, string> = {}) {
  const prefix = `t${++prefixCounter}/`;
  const key = `${prefix}trusted-registry.yaml`;
  if (document !== undefined) await s3.put(key, document);
  const handler = createAdmissionHandler(trustedRegistryPolicy as never, {
    config: configFromEnv({ RULES_BUCKET: s3.bucket, RULES_S3_ENDPOINT: s3.endpoint, RULES_PREFIX: prefix, ...env }),
  }) as unknown as Handler & { rulesPrefetched: Promise<void> };
  return { handler, key, gets: () => s3.gets(key) };
}

const decide = async (handler: Handler) => (await invoke(handler, pod())).body.response;

describe('caching', () => {
  it('loads during init, then makes no S3 call within the TTL (default 5 s)', async () => {
    const { handler, gets } = await setUp(STRICT);
    await handler.rulesPrefetched;
    expect(gets()).toHaveLength(1); // the init-phase load, before any request
    for (let i = 0; i < 50; i++) expect((await decide(handler)).allowed).toBe(false);
    expect(gets()).toHaveLength(1);
  });

  it('makes exactly one conditional GET per TTL window under a steady stream, each answered 304', async () => {
    const ttlMs = 400;
    const { handler, gets } = await setUp(STRICT, { RULES_TTL_SECONDS: String(ttlMs / 1000) });
    await handler.rulesPrefetched;
    const started = Date.now();
    while (Date.now() - started < 2200) {
      await Promise.all([decide(handler), decide(handler), decide(handler)]); // concurrent requests share a fetch
      await sleep(15);
    }
    const [first, ...revalidations] = gets();
    expect(first!.ifNoneMatch).toBeUndefined();
    expect(revalidations.length).toBeGreaterThanOrEqual(3); // ≈ 2200 / 400, less scheduling slack
    expect(revalidations.length).toBeLessThanOrEqual(6);
    for (const [index, request] of revalidations.entries()) {
      expect(request.ifNoneMatch).toMatch(/^"[0-9a-f]+"$/);
      expect(request.status).toBe(304);
      const previous = index === 0 ? first! : revalidations[index - 1]!;
      expect(request.at - previous.at).toBeGreaterThanOrEqual(ttlMs - 5); // never two in one window
    }
  });

  it('hot-reloads a new upload on the first request after the TTL, and records the new version', async () => {
    const { handler, key } = await setUp(STRICT, { RULES_TTL_SECONDS: '0.3' });
    const before = await decide(handler);
    expect(before.allowed).toBe(false);
    const etag = await s3.put(key, LOOSE);
    expect((await decide(handler)).allowed).toBe(false); // still within the TTL
    await sleep(350);
    const after = await decide(handler);
    expect(after.allowed).toBe(true);
    expect(after.auditAnnotations['rules-version']).toBe(`etag:${etag!.replaceAll('"', '')}`);
    expect(after.auditAnnotations['rules-version']).not.toBe(before.auditAnnotations['rules-version']);
  });
});

describe('last known good', () => {
  it('an invalid upload keeps the last good rules, logged once with the bad field and the version', async () => {
    const { handler, key } = await setUp(STRICT, { RULES_TTL_SECONDS: '0.2' });
    const good = await decide(handler);
    await s3.put(key, INVALID);
    const errors = vi.spyOn(logger, 'error');
    try {
      for (let i = 0; i < 3; i++) {
        await sleep(250);
        const answer = await decide(handler);
        expect(answer.allowed).toBe(false);
        expect(answer.auditAnnotations['rules-version']).toBe(good.auditAnnotations['rules-version']);
      }
      const invalid = errors.mock.calls.filter(([message]) => message === 'invalid rules document');
      expect(invalid).toHaveLength(1);
      expect(JSON.stringify(invalid[0])).toContain('rules[0].parameters.allowedRegistries: expected array');
      expect(JSON.stringify(invalid[0])).toContain(good.auditAnnotations['rules-version']);
    } finally {
      errors.mockRestore();
    }
  });

  it.each([
    ['S3 answering 503', async () => s3.setMode('error-503')],
    ['S3 refusing connections', async () => s3.down()],
  ])('%s: cached rules keep being served, and S3 is retried only after the TTL', async (_case, breakS3) => {
    const { handler, gets } = await setUp(STRICT, { RULES_TTL_SECONDS: '0.3' });
    expect((await decide(handler)).allowed).toBe(false);
    await breakS3();
    await sleep(350);
    const countBefore = gets().length;
    // The tests run with logs off.
    const savedLevel = logger.getLevelName();
    logger.setLogLevel('INFO');
    const logs = captureLogLines();
    try {
      for (let i = 0; i < 5; i++) expect((await decide(handler)).allowed).toBe(false);
      // Decided by the cached rules, and said so: the decision line names why they are not the newest.
      expect(logs.withMessage('admission decision').at(-1)).toMatchObject({
        outcome: 'denied',
        failedOpen: false,
        servingLastKnownGood: expect.stringMatching(/trusted-registry\.yaml: /),
      });
    } finally {
      logs.restore();
      logger.setLogLevel(savedLevel);
    }
    expect(gets().length - countBefore).toBeLessThanOrEqual(2); // one revalidation (two tries at most), then the TTL
  });

  it('S3 accepting and never answering: answered from cache within RULES_FETCH_TIMEOUT_MS, far inside POLICY_TIMEOUT_MS', async () => {
    const { handler } = await setUp(STRICT, { RULES_TTL_SECONDS: '0.2', RULES_FETCH_TIMEOUT_MS: '300', POLICY_TIMEOUT_MS: '2000' });
    expect((await decide(handler)).allowed).toBe(false);
    s3.setMode('hang');
    await sleep(250);
    const started = Date.now();
    const answer = await decide(handler);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(answer.allowed).toBe(false);
    expect(answer.warnings).toBeUndefined(); // decided by the cached rules, not failed open
  });
});

describe('nothing cached: the failure policy decides', () => {
  it.each([
    ['Ignore', true],
    ['Fail', false],
  ])('cold start with S3 hanging, FAILURE_POLICY=%s: answered within POLICY_TIMEOUT_MS', async (failurePolicy, allowed) => {
    s3.setMode('hang');
    const { handler } = await setUp(undefined, { POLICY_TIMEOUT_MS: '600', FAILURE_POLICY: failurePolicy });
    const started = Date.now();
    const answer = await decide(handler);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(answer.allowed).toBe(allowed);
    expect(JSON.stringify(answer)).toContain('deadline of 600 ms exceeded');
  });

  it('cold start with S3 refusing connections fails open with the reason, and the log says nothing was kept', async () => {
    await s3.down();
    const savedLevel = logger.getLevelName();
    logger.setLogLevel('INFO');
    const logs = captureLogLines();
    try {
      const { handler } = await setUp(undefined);
      const answer = await decide(handler);
      expect(answer.allowed).toBe(true);
      expect(answer.auditAnnotations['failed-open']).toMatch(
        /^rules unavailable: s3:\/\/rules\/t\d+\/trusted-registry.yaml: .*ECONNREFUSED/,
      );
      const failure = logs
        .withMessage('rules fetch failed; no rules loaded yet, the failure policy applies')
        .find((line) => String(line.source).endsWith('/trusted-registry.yaml') && !String(line.source).includes('/clusters/'));
      expect(failure).toMatchObject({
        level: 'ERROR',
        source: expect.stringMatching(/^s3:\/\/rules\/t\d+\/trusted-registry.yaml$/),
        error: expect.stringMatching(/ECONNREFUSED/),
      });
      // (Handlers of earlier tests may log their own fetches meanwhile, with their own sources.)
      expect(logs.withMessage('rules fetch failed; keeping the last good rules').filter((line) => line.source === failure!.source)).toEqual(
        [],
      );
    } finally {
      logs.restore();
      logger.setLogLevel(savedLevel);
    }
  });

  it.each([
    ['Ignore', true],
    ['Fail', false],
  ])('a missing object is "rules unavailable", never "no rules" (FAILURE_POLICY=%s)', async (failurePolicy, allowed) => {
    const { handler } = await setUp(undefined, { FAILURE_POLICY: failurePolicy });
    const answer = await decide(handler);
    expect(answer.allowed).toBe(allowed);
    expect(JSON.stringify(answer)).toMatch(/rules unavailable: s3:\/\/rules\/t\d+\/trusted-registry.yaml not found/);
  });

  it('a first document that is invalid follows its own failurePolicy', async () => {
    const { handler } = await setUp(`failurePolicy: Fail\n${INVALID}`);
    const answer = await decide(handler);
    expect(answer).toMatchObject({
      allowed: false,
      status: { code: 500, message: expect.stringContaining('invalid rules: rules[0].parameters.allowedRegistries') },
    });
  });

  it('rules: [] switches the policy off on purpose', async () => {
    const { handler } = await setUp('rules: []');
    expect(await decide(handler)).toMatchObject({ allowed: true, auditAnnotations: { decision: 'allowed' } });
  });
});
