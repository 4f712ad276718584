// Credentials for Amazon ECR registries (`<account>.dkr.ecr.<region>.amazonaws.com`), when the deployment
// lets the function pull from them (REGISTRY_ECR=true, set with the `ecrRepositories` parameter, which grants
// its role GetAuthorizationToken and the pulls): a token from ECR's API with the function's own role, for
// each ECR registry a request's images name, kept until five minutes before it expires. Credentials the
// deployment's config.json gives for a registry win over a token.
import { ecrAuthorizationReader } from '../aws/ecr-authorization-token.js';
import type { RegistryCredentials } from '../registry/registry-auth.js';

// Read at import, as the functions read their configuration.
const ENABLED = process.env.REGISTRY_ECR === 'true';
const ENDPOINT = process.env.ECR_ENDPOINT || undefined;
const ECR_HOST = /^(\d{12})\.dkr\.ecr(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$/;
const RENEW_BEFORE_MS = 5 * 60 * 1000;
/** Registries kept at most: the hosts come from requests. */
const MAX_KEPT = 64;

const kept = new Map<string, { credentials: RegistryCredentials; until: number }>();

/** An ECR registry's account and region, or undefined for another registry. */
export function ecrRegistryOf(host: string): { registryId: string; region: string } | undefined {
  const match = ECR_HOST.exec(host);
  return match ? { registryId: match[1]!, region: match[2]! } : undefined;
}

/** Tokens for the ECR registries among `hosts`; none when the deployment does not pull from ECR. */
export async function ecrCredentials(hosts: Iterable<string>, signal: AbortSignal): Promise<Map<string, RegistryCredentials>> {
  const found = new Map<string, RegistryCredentials>();
  if (!ENABLED) return found;
  const read = ecrAuthorizationReader(ENDPOINT ? { endpoint: ENDPOINT } : {});
  await Promise.all(
    [...new Set(hosts)].map(async (host) => {
      const registry = ecrRegistryOf(host);
      if (!registry) return;
      const held = kept.get(host);
      if (held && held.until > Date.now()) {
        found.set(host, held.credentials);
        return;
      }
      try {
        const { username, password, expiresAt } = await read(registry.registryId, registry.region, signal);
        if (kept.size >= MAX_KEPT) kept.clear();
        kept.set(host, { credentials: { username, password }, until: expiresAt - RENEW_BEFORE_MS });
        found.set(host, { username, password });
      } catch (error) {
        throw new Error(`an ECR token for ${host} could not be read with the function's role: ${(error as Error).message}`);
      }
    }),
  );
  return found;
}
