// The callers' tokens: WEBHOOK_TOKENS (comma-separated; local runs only, packaging refuses it) or, in AWS, an
// SSM SecureString named by WEBHOOK_TOKENS_PARAMETER. Several tokens let one be rotated without downtime.
// No tokens configured: callers are not checked (local development). The SSM call is a signed POST without
// the AWS SDK (aws/signed-request.ts), sent during init.
// The parameter is read at init and re-read once the set is WEBHOOK_TOKENS_MAX_AGE_SECONDS old, in the
// background (the request that notices uses the set it has), so a revoked token stops working within that
// age plus one request. A failed re-read keeps the previous set, is logged, and is retried after
// min(max age, 30 s); with no set at all, the request waits for a read, and a failure answers 503.
// (Powertools Parameters' maxAge re-reads on the request path and throws instead of keeping the set.)
import type { Config } from '../config.js';
import { ssmParameterReader } from '../aws/ssm-get-parameter.js';
import { logger } from '../observe/logger.js';

export type TokenSet = readonly string[];

const RETRY_AFTER_MS = 30_000;

export function parseTokens(text: string | undefined): TokenSet {
  return (text ?? '')
    .split(',')
    .map((token) => token.trim())
    .filter(Boolean);
}

function parameterReader(name: string, endpoint: string | undefined): () => Promise<TokenSet> {
  const getParameter = ssmParameterReader({ endpoint });
  return async () => parseTokens(await getParameter(name));
}

export function webhookTokensFrom(config: Config, now: () => number = Date.now): () => Promise<TokenSet> {
  const fromEnv = parseTokens(config.WEBHOOK_TOKENS);
  const parameter = config.WEBHOOK_TOKENS_PARAMETER;
  if (!parameter) return async () => fromEnv;
  const maxAgeMs = config.WEBHOOK_TOKENS_MAX_AGE_SECONDS * 1000;
  const readParameter = parameterReader(parameter, config.SSM_ENDPOINT);
  let current: { tokens: TokenSet; readAt: number } | undefined;
  let reading: Promise<TokenSet> | undefined;
  let lastAttempt = Number.NEGATIVE_INFINITY;

  function read(): Promise<TokenSet> {
    lastAttempt = now();
    reading ??= readParameter()
      .then(
        (tokens) => {
          current = { tokens: [...fromEnv, ...tokens], readAt: now() };
          return current.tokens;
        },
        (error: unknown) => {
          const name = (error as Error)?.name ?? 'Error';
          if (current)
            logger.error('webhook tokens refresh failed; keeping the previous tokens', {
              parameter,
              error: name,
              tokensAgeSeconds: Math.round((now() - current.readAt) / 1000),
            });
          else logger.error('webhook tokens unavailable', { parameter, error: name });
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
