// The callers' tokens: WEBHOOK_TOKENS (comma-separated) or, in AWS, an SSM SecureString named by
// WEBHOOK_TOKENS_PARAMETER, read once at init. Several tokens let one be rotated without downtime. No
// tokens configured: callers are not checked (local development). The SSM client is imported only when used.
import type { Config } from './config.js';
import { logger } from './logger.js';

export type TokenSet = readonly string[];

export function parseTokens(text: string | undefined): TokenSet {
  return (text ?? '')
    .split(',')
    .map((token) => token.trim())
    .filter(Boolean);
}

async function tokensFromParameter(name: string, endpoint: string | undefined): Promise<TokenSet> {
  const { GetParameterCommand, SSMClient } = await import('@aws-sdk/client-ssm');
  const client = new SSMClient({ ...(endpoint ? { endpoint } : {}), maxAttempts: 2 });
  const response = await client.send(new GetParameterCommand({ Name: name, WithDecryption: true }));
  return parseTokens(response.Parameter?.Value);
}

/** Resolves the token set; a failed SSM read is retried on the next call instead of being cached. */
export function webhookTokensFrom(config: Config): () => Promise<TokenSet> {
  const fromEnv = parseTokens(config.WEBHOOK_TOKENS);
  const parameter = config.WEBHOOK_TOKENS_PARAMETER;
  if (!parameter) return async () => fromEnv;
  let loading: Promise<TokenSet> | undefined;
  const load = () =>
    (loading ??= tokensFromParameter(parameter, config.SSM_ENDPOINT).then(
      (tokens) => [...fromEnv, ...tokens],
      (error: unknown) => {
        loading = undefined;
        logger.error('webhook tokens unavailable', { parameter, error: (error as Error).name });
        throw error;
      },
    ));
  load().catch(() => undefined); // start at init; the first request joins it
  return load;
}
