// Webhook tokens from an SSM SecureString, re-read with a bounded age, on the packaged function: a revoked
// token stops working, a failed re-read keeps the previous tokens and is retried (the unit tests of
// caller authentication are in test/unit/caller-auth.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importPackagedHandler } from '../../infra/packaged-function.js';
import { eventFor, type Handler, invoke, podManifest } from '../helpers/invoke.js';
import { captureLogLines } from '../helpers/log-lines.js';
import { fakeSsm } from '../helpers/ssm-server.js';
import { TEST_RULES } from '../helpers/test-rules.js';

process.env.AWS_ACCESS_KEY_ID ??= 'test';
process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
process.env.AWS_REGION ??= 'us-east-1';

const ssm = fakeSsm();
beforeAll(() => ssm.start());
afterAll(() => ssm.stop());
const withBearer = (token: string) => {
  const event = eventFor(podManifest({ app: '192.168.64.1:5000/app:1' }));
  event.headers = { ...event.headers, Authorization: `Bearer ${token}` };
  return event;
};

describe('re-read with a bounded age, on the packaged function', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const packagedWith = async (parameter: string) =>
    (
      await importPackagedHandler('trusted-registry', {
        RULES_DIR: TEST_RULES,
        WEBHOOK_TOKENS_PARAMETER: parameter,
        SSM_ENDPOINT: ssm.endpoint(),
        WEBHOOK_TOKENS_MAX_AGE_SECONDS: '0.3',
        POWERTOOLS_LOG_LEVEL: 'INFO',
      })
    ).handler as Handler;
  const reads = (parameter: string) => ssm.calls.filter((call) => call.body.Name === parameter).length;

  it('a revoked token stops working once the set is older than WEBHOOK_TOKENS_MAX_AGE_SECONDS (plus one request)', async () => {
    ssm.tokens = 'old-token-0123456789,new-token-0123456789';
    const handler = await packagedWith('/portcullis/rotating');
    expect((await invoke(handler, withBearer('old-token-0123456789'))).statusCode).toBe(200);
    ssm.tokens = 'new-token-0123456789'; // the old token is revoked
    expect((await invoke(handler, withBearer('old-token-0123456789'))).statusCode).toBe(200); // within the age
    await sleep(350);
    await invoke(handler, withBearer('new-token-0123456789')); // notices the age; re-reads in the background
    await sleep(50);
    expect((await invoke(handler, withBearer('old-token-0123456789'))).statusCode).toBe(401);
    expect((await invoke(handler, withBearer('new-token-0123456789'))).statusCode).toBe(200);
    // At init, then once at the age; never per request (that would be 5). Under load a request can take
    // longer than the 0.3 s age, so one more window may pass between the steps: a third read at most.
    expect(reads('/portcullis/rotating')).toBeGreaterThanOrEqual(2);
    expect(reads('/portcullis/rotating')).toBeLessThanOrEqual(3);
  });

  it('a failed re-read keeps the previous tokens, is logged, and is retried', async () => {
    ssm.tokens = 'kept-token-0123456789';
    const handler = await packagedWith('/portcullis/flaky');
    const logs = captureLogLines();
    try {
      expect((await invoke(handler, withBearer('kept-token-0123456789'))).statusCode).toBe(200);
      ssm.failuresLeft = 1;
      await sleep(350);
      expect((await invoke(handler, withBearer('kept-token-0123456789'))).statusCode).toBe(200); // starts the re-read
      await sleep(50);
      expect((await invoke(handler, withBearer('kept-token-0123456789'))).statusCode).toBe(200); // it failed: kept
      expect(logs.withMessage('webhook tokens refresh failed; keeping the previous tokens')).toEqual([
        expect.objectContaining({ parameter: '/portcullis/flaky', error: 'ParameterNotFound' }),
      ]);
      expect(JSON.stringify(logs.lines())).not.toContain('kept-token-0123456789');
      await sleep(350);
      await invoke(handler, withBearer('kept-token-0123456789'));
      await sleep(50);
      expect(reads('/portcullis/flaky')).toBe(3); // init, the failed re-read, the retry
    } finally {
      logs.restore();
    }
  });
});
