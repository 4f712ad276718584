// Registry credentials as Docker's config.json holds them (`docker login` writes it; so do CI systems):
// `auths` by registry, each an `auth` (base64 of `user:password`) or a `username` and `password`. A key may be
// a URL (`https://index.docker.io/v1/`): its host names the registry, Docker Hub's as `docker.io`. Identity
// tokens (an OAuth refresh token) are refused by name, as the registry client does not exchange them.
import type { RegistryCredentials } from '../registry/registry-auth.js';

const DOCKER_HUB_NAMES = new Set(['index.docker.io', 'registry-1.docker.io', 'docker.io']);

function hostOf(key: string): string {
  const host = /^[a-z]+:\/\//i.test(key) ? new URL(key).host : key.split('/')[0]!;
  const lower = host.toLowerCase();
  return DOCKER_HUB_NAMES.has(lower) ? 'docker.io' : lower;
}

/** Credentials by registry host, or what is wrong with the document (never echoing a secret). */
export function credentialsFromDockerConfig(text: string): Map<string, RegistryCredentials> | string {
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch {
    return 'not JSON (expected a Docker config.json)';
  }
  const auths = (config as { auths?: unknown } | null)?.auths;
  if (typeof auths !== 'object' || auths === null || Array.isArray(auths)) return 'auths: expected an object of registries';
  const credentials = new Map<string, RegistryCredentials>();
  for (const [key, entry] of Object.entries(auths)) {
    const { auth, username, password, identitytoken } = (entry ?? {}) as Record<string, unknown>;
    let pair: RegistryCredentials | undefined;
    if (typeof auth === 'string' && auth !== '') {
      const decoded = Buffer.from(auth, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon > 0) pair = { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
    } else if (typeof username === 'string' && typeof password === 'string') pair = { username, password };
    if (!pair) {
      return typeof identitytoken === 'string'
        ? `auths.${key}: an identity token, which is not exchanged here (give a username and password or token)`
        : `auths.${key}: expected auth (base64 of user:password), or username and password`;
    }
    credentials.set(hostOf(key), pair);
  }
  return credentials;
}
