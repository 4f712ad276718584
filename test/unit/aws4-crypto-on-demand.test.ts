// functions/admission/aws/aws4-crypto-on-demand.ts stands in for node:crypto in aws4's bundle
// (infra/esbuild-plugins.cjs): what aws4 calls of it must give what node:crypto gives.
import { createHash as realCreateHash, createHmac as realCreateHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createHash, createHmac } from '../../functions/admission/aws/aws4-crypto-on-demand.js';

describe('node:crypto for aws4, loaded on first use', () => {
  it('createHmac chains as aws4 chains it, string and Buffer keys alike', () => {
    const key = createHmac('sha256', 'AWS4secret').update('20261122', 'utf8').digest();
    expect(key).toEqual(realCreateHmac('sha256', 'AWS4secret').update('20261122', 'utf8').digest());
    expect(createHmac('sha256', key).update('us-east-1', 'utf8').digest('hex')).toBe(
      realCreateHmac('sha256', key).update('us-east-1', 'utf8').digest('hex'),
    );
  });

  it('createHash gives the SHA-256 of the canonical request', () => {
    expect(createHash('sha256').update('GET\n/\n\nhost:s3\n', 'utf8').digest('hex')).toBe(
      realCreateHash('sha256').update('GET\n/\n\nhost:s3\n', 'utf8').digest('hex'),
    );
  });
});
