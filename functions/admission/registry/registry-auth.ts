// A registry's authentication, as Docker's clients do it: a 401's WWW-Authenticate challenge says how. Bearer
// (Docker Hub, GHCR, distribution's token auth): ask the challenge's realm for a token for the scope, with the
// registry's credentials if there are any (anonymous otherwise), and keep the token for its lifetime. Basic:
// send the credentials with every call.
import { RegistryError, registryGet } from './registry-http.js';

export interface RegistryCredentials {
  username: string;
  password: string;
}

export interface Challenge {
  scheme: string;
  parameters: Record<string, string>;
}

/** The first challenge of a WWW-Authenticate header: `Bearer realm="…",service="…",scope="…"`. */
export function parseChallenge(header: string): Challenge | undefined {
  const match = /^\s*(\w+)\s*(.*)$/s.exec(header);
  if (!match) return undefined;
  const parameters: Record<string, string> = {};
  for (const [, name, quoted, bare] of match[2]!.matchAll(/(\w+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/g))
    parameters[name!.toLowerCase()] = quoted !== undefined ? quoted.replace(/\\(.)/g, '$1') : (bare ?? '');
  return { scheme: match[1]!.toLowerCase(), parameters };
}

/** The registrable part of a host name, roughly: its last two labels (an IP address is itself). */
const siteOf = (host: string) => (/^[\d.]+$|:/.test(host) ? host : host.split('.').slice(-2).join('.'));

/** Whether a token realm is the registry's own site (Docker Hub's auth.docker.io for registry-1.docker.io). */
function sameSite(realmHost: string, registry: string): boolean {
  const registryHost = (registry === 'docker.io' ? 'registry-1.docker.io' : registry).replace(/:\d+$/, '').toLowerCase();
  return realmHost.toLowerCase() === registryHost || siteOf(realmHost.toLowerCase()) === siteOf(registryHost);
}

const basic = ({ username, password }: RegistryCredentials) => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

interface Token {
  authorization: string;
  expiresAt: number;
}

const TOKEN_LIFETIME_SECONDS = 60;
const MAX_TOKEN_BYTES = 64 * 1024;
// Bounded, as scopes come from the images requests name.
const MAX_TOKENS = 1024;
const tokens = new Map<string, Token>();

/** The Authorization header a challenge asks for, fetching a bearer token when it asks for one. */
export async function authorizationFor(
  challenge: Challenge,
  scope: string,
  credentials: RegistryCredentials | undefined,
  call: { signal: AbortSignal; ca?: string; now: () => number; registry: string },
): Promise<string> {
  if (challenge.scheme === 'basic') {
    if (!credentials) throw new RegistryError('the registry asks for a username and password, and none is configured for it');
    return basic(credentials);
  }
  if (challenge.scheme !== 'bearer')
    throw new RegistryError(`the registry asks for ${challenge.scheme} authentication, which is not supported`);
  const { realm, service } = challenge.parameters;
  if (!realm) throw new RegistryError('the registry asks for a bearer token and names no realm to get it from');
  if (credentials && !sameSite(new URL(realm).hostname, call.registry))
    throw new RegistryError(
      `the registry asks for a token from ${new URL(realm).host}, which is not its own domain: its credentials are not sent there`,
    );
  const wanted = challenge.parameters.scope ?? scope;
  const key = `${realm} ${service ?? ''} ${wanted} ${credentials?.username ?? ''}`;
  const kept = tokens.get(key);
  if (kept && kept.expiresAt > call.now()) return kept.authorization;
  const url = new URL(realm);
  if (service) url.searchParams.set('service', service);
  url.searchParams.set('scope', wanted);
  const response = await registryGet(url, {
    headers: credentials ? { authorization: basic(credentials) } : {},
    signal: call.signal,
    maxBytes: MAX_TOKEN_BYTES,
    ...(call.ca ? { ca: call.ca } : {}),
  });
  if (response.status !== 200) throw new RegistryError(`the token service ${url.origin} answered ${response.status}`);
  let answer: { token?: unknown; access_token?: unknown; expires_in?: unknown };
  try {
    answer = JSON.parse(response.body.toString('utf8')) as typeof answer;
  } catch {
    throw new RegistryError(`the token service ${url.origin} answered something that is not JSON`);
  }
  const token = typeof answer.token === 'string' ? answer.token : answer.access_token;
  if (typeof token !== 'string' || token === '') throw new RegistryError(`the token service ${url.origin} answered no token`);
  const lifetime = typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in : TOKEN_LIFETIME_SECONDS;
  const authorization = `Bearer ${token}`;
  if (tokens.size >= MAX_TOKENS) tokens.clear();
  // A margin, so a token is not sent in its last seconds.
  tokens.set(key, { authorization, expiresAt: call.now() + Math.max(0, lifetime - 10) * 1000 });
  return authorization;
}
