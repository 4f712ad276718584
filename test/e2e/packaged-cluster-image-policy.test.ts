// ClusterImagePolicies on the packaged cel function, reading a bundle as Lambda would: policy-controller's
// target of the Rego engine is a chunk loaded for such a bundle (the format asks for it before the bundle is
// read), and the decisions are worded as policy-controller's webhook words them. No registry: static
// authorities decide (the registry's tests are test/integration/sigstore-cluster-image-policy.test.ts).
import { afterAll, describe, expect, it } from 'vitest';
import { eventFor, invoke, podRunning } from '../helpers/invoke.js';
import { packagedWithRules, removeRulesFolders } from '../helpers/packaged-with-rules.js';

afterAll(removeRulesFolders);

const DIGEST = `sha256:${'a'.repeat(64)}`;
const policy = (name: string, glob: string, action: string) => `apiVersion: policy.sigstore.dev/v1beta1
kind: ClusterImagePolicy
metadata: {name: ${name}}
spec:
  images: [{glob: "${glob}"}]
  authorities: [{static: {action: ${action}, message: "not from ghcr.io/team"}}]
`;
const bundle = `${policy('team-images', 'ghcr.io/team/**', 'pass')}---\n${policy('banned', 'ghcr.io/team/banned*', 'fail')}`;

describe('ClusterImagePolicy on the packaged cel function', () => {
  it("decides as policy-controller's webhook: matching policies all pass, digests required, no match denied", async () => {
    const { handler } = await packagedWithRules('cel', bundle);
    const decide = async (...images: string[]) => (await invoke(handler, eventFor(podRunning(...images)))).body.response;
    expect(await decide(`ghcr.io/team/app@${DIGEST}`)).toMatchObject({ allowed: true });
    expect(await decide(`ghcr.io/team/banned@${DIGEST}`)).toMatchObject({
      allowed: false,
      status: { message: expect.stringContaining('disallowed by static policy: not from ghcr.io/team') },
    });
    expect((await decide('ghcr.io/team/app:v1')).status.message).toContain('must be an image digest: spec.containers[0].image');
    expect((await decide(`docker.io/library/nginx@${DIGEST}`)).status.message).toMatch(/^validation failed: no matching policies/);
  });
});
