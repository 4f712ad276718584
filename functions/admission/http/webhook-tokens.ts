// The callers' tokens, each belonging to one cluster: WEBHOOK_TOKENS (local runs only, packaging refuses
// it) or, in AWS, an SSM SecureString named by WEBHOOK_TOKENS_PARAMETER. Several tokens per cluster let one
// be rotated without downtime. A token names its cluster and nothing else does: the request body never.
// Written as JSON `{"<cluster>": ["<token>", …]}`, or as a comma-separated list whose entries are
// `<cluster>=<token>` or a bare token, which is the cluster of a single-cluster deployment (CLUSTER_NAME,
// else `default`), so lists written before clusters had names keep their meaning.
// No tokens configured: callers are not checked, and each is that cluster (local development). The SSM call
// is a signed POST without the AWS SDK (aws/signed-request.ts), sent during init.
// The parameter is read at init and re-read once the set is WEBHOOK_TOKENS_MAX_AGE_SECONDS old, in the
// background (the request that notices uses the set it has), so a revoked token stops working within that
// age plus one request. A failed or invalid re-read keeps the previous set, is logged, and is retried after
// min(max age, 30 s); with no set at all, the request waits for a read, and a failure answers 503.
// (Powertools Parameters' maxAge re-reads on the request path and throws instead of keeping the set.)
import { ClusterNameSchema, type Config, DEFAULT_CLUSTER, defaultClusterOf } from '../config.js';
import { ssmParameterReader } from '../aws/ssm-get-parameter.js';
import { logger } from '../observe/logger.js';
import * as v from '../schema.js';

export interface CallerToken {
  token: string;
  cluster: string;
}

export type TokenSet = readonly CallerToken[];

/** A tokens text that cannot be read: which entry or cluster, and what was expected. Never the token itself. */
export class InvalidTokensError extends Error {
  override name = 'InvalidTokensError';
}

const RETRY_AFTER_MS = 30_000;
// `<cluster>=<token>`: one `=`, both sides written. Base64 padding (`…=`, `…==`) leaves a bare token bare.
const CLUSTER_ENTRY = /^([^=]+)=([^=]+)$/;

const isClusterName = (name: string) => v.is(ClusterNameSchema, name);

/** The tokens a JSON object or a comma-separated list names, each with its cluster. */
export function parseTokens(text: string | undefined, defaultCluster: string = DEFAULT_CLUSTER): TokenSet {
  const written = (text ?? '').trim();
  return oneClusterPerToken(written.startsWith('{') ? jsonEntries(written) : listEntries(written, defaultCluster));
}

/** The entries, unless a token is listed for two clusters: a token belongs to one cluster. */
function oneClusterPerToken(entries: CallerToken[]): CallerToken[] {
  const owners = new Map<string, string>();
  for (const { token, cluster } of entries) {
    const owner = owners.get(token);
    if (owner !== undefined && owner !== cluster)
      throw new InvalidTokensError(`one token is listed for clusters ${owner} and ${cluster}: a token belongs to one cluster`);
    owners.set(token, cluster);
  }
  return entries;
}

function listEntries(text: string, defaultCluster: string): CallerToken[] {
  const entries: CallerToken[] = [];
  text.split(',').forEach((item, index) => {
    const entry = item.trim();
    if (entry === '') return;
    const named = CLUSTER_ENTRY.exec(entry);
    if (!named) {
      entries.push({ token: entry, cluster: defaultCluster });
      return;
    }
    const cluster = named[1]!.trim();
    if (!isClusterName(cluster))
      throw new InvalidTokensError(
        `entry ${index + 1}: "${cluster.slice(0, 70)}" before "=" is not a cluster name (lower-case letters, digits, - and .); write <cluster>=<token>`,
      );
    entries.push({ token: named[2]!.trim(), cluster });
  });
  return entries;
}

function jsonEntries(text: string): CallerToken[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new InvalidTokensError('starts with "{" but is not JSON: expected {"<cluster>": ["<token>", …]}');
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new InvalidTokensError('expected a JSON object {"<cluster>": ["<token>", …]}');
  const entries: CallerToken[] = [];
  for (const [cluster, tokens] of Object.entries(data)) {
    if (!isClusterName(cluster))
      throw new InvalidTokensError(`"${cluster.slice(0, 70)}" is not a cluster name (lower-case letters, digits, - and .)`);
    if (!Array.isArray(tokens) || tokens.some((token) => typeof token !== 'string' || token.trim() === ''))
      throw new InvalidTokensError(`${cluster}: expected an array of non-empty token strings`);
    for (const token of tokens as string[]) entries.push({ token: token.trim(), cluster });
  }
  return entries;
}

function parameterReader(name: string, endpoint: string | undefined, defaultCluster: string): () => Promise<TokenSet> {
  const getParameter = ssmParameterReader({ endpoint });
  return async () => parseTokens(await getParameter(name), defaultCluster);
}

export function webhookTokensFrom(config: Config, now: () => number = Date.now): () => Promise<TokenSet> {
  const defaultCluster = defaultClusterOf(config);
  let fromEnv: TokenSet;
  try {
    fromEnv = parseTokens(config.WEBHOOK_TOKENS, defaultCluster);
  } catch (error) {
    throw new Error(`invalid environment: WEBHOOK_TOKENS: ${(error as Error).message}`);
  }
  const parameter = config.WEBHOOK_TOKENS_PARAMETER;
  if (!parameter) return async () => fromEnv;
  const maxAgeMs = config.WEBHOOK_TOKENS_MAX_AGE_SECONDS * 1000;
  const readParameter = parameterReader(parameter, config.SSM_ENDPOINT, defaultCluster);
  let current: { tokens: TokenSet; readAt: number } | undefined;
  let reading: Promise<TokenSet> | undefined;
  let lastAttempt = Number.NEGATIVE_INFINITY;

  function read(): Promise<TokenSet> {
    lastAttempt = now();
    reading ??= readParameter()
      .then(
        (tokens) => {
          const joined = parseTokensJoined(fromEnv, tokens);
          current = { tokens: joined, readAt: now() };
          return current.tokens;
        },
        (error: unknown) => {
          const name = (error as Error)?.name ?? 'Error';
          // An invalid value says what is wrong with it (never a token); an SSM error only its name.
          const problem = error instanceof InvalidTokensError ? { error: name, problem: error.message } : { error: name };
          if (current)
            logger.error('webhook tokens refresh failed; keeping the previous tokens', {
              parameter,
              ...problem,
              tokensAgeSeconds: Math.round((now() - current.readAt) / 1000),
            });
          else logger.error('webhook tokens unavailable', { parameter, ...problem });
          throw error;
        },
      )
      .finally(() => {
        reading = undefined;
      });
    return reading;
  }

  read().catch(() => undefined); // start at init; the first request joins it
  return async function webhookTokens(): Promise<TokenSet> {
    if (!current) return read();
    const stale = now() - current.readAt >= maxAgeMs;
    if (stale && !reading && now() - lastAttempt >= Math.min(maxAgeMs, RETRY_AFTER_MS)) read().catch(() => undefined);
    return current.tokens;
  };
}

/** The environment's tokens and the parameter's as one set: a token in both must name one cluster. */
const parseTokensJoined = (fromEnv: TokenSet, fromParameter: TokenSet): TokenSet => oneClusterPerToken([...fromEnv, ...fromParameter]);
