// The deployment's Sigstore trust root as the verification asks for it: the public-good root when the rules'
// place holds none (this checkout's policies/ has no sigstore/trusted_root.json), and never past the request's
// deadline. Reading a root beside the rules: test/integration/sigstore-deployment-trust-root.test.ts.
import { describe, expect, it } from 'vitest';
import { deploymentTrustRoot } from '../../functions/admission/image-verification/deployment-trust-root.js';
import { publicGoodRoot } from '../../functions/admission/image-verification/public-good-root.js';

describe('deploymentTrustRoot', () => {
  it('is the public-good root when there is no trusted_root.json beside the rules', async () => {
    expect(await deploymentTrustRoot(new AbortController().signal)).toEqual({ root: publicGoodRoot(), version: 'public-good' });
  });

  it("answers with the error once the request's deadline has passed, naming the file", async () => {
    expect(await deploymentTrustRoot(AbortSignal.abort())).toEqual({
      error: expect.stringMatching(/trust root \(.*sigstore\/trusted_root\.json\) was not read within the request's deadline$/),
    });
  });
});
