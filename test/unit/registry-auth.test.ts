// A registry's authentication challenge read as Docker's clients read it, and the one thing they do not
// guard: a registry's credentials go only to a token service of the registry's own site, never to a realm
// on another host the challenge names.
import { describe, expect, it } from 'vitest';
import { authorizationFor, parseChallenge } from '../../functions/admission/registry/registry-auth.js';

describe('registry authentication', () => {
  it('reads a bearer challenge', () => {
    expect(
      parseChallenge('Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/nginx:pull"'),
    ).toEqual({
      scheme: 'bearer',
      parameters: { realm: 'https://auth.docker.io/token', service: 'registry.docker.io', scope: 'repository:library/nginx:pull' },
    });
  });

  it("never sends a registry's credentials to a realm on another site", async () => {
    const challenge = parseChallenge('Bearer realm="https://collector.example.net/token",service="x"')!;
    const call = { signal: AbortSignal.timeout(1_000), now: () => 0, registry: 'registry.example.com' };
    await expect(authorizationFor(challenge, 'repository:a:pull', { username: 'u', password: 'p' }, call)).rejects.toThrow(
      /asks for a token from collector\.example\.net, which is not its own domain: its credentials are not sent there/,
    );
  });
});
