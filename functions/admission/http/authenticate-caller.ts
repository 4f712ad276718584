// Middleware: with tokens configured, a request must carry one, as the last path segment
// (`/validate/<policy>/<token>`, for managed clusters that can only put a secret in the webhook URL) or
// as `Authorization: Bearer <token>`. Otherwise 401 with a body that says nothing about policies or rules.
// The token's cluster is the request's (request.internal.cluster, which normaliseEvent hands on); without
// tokens configured, every caller is the default cluster. Tokens are compared by their digests; they are
// never logged (a rejected caller is, with the path redacted).
import type { MiddlewareObj } from '@middy/core';
import { type ApiGatewayEvent, header } from './api-gateway-event.js';
import { HttpError } from './http-error.js';
import { logger } from '../observe/logger.js';
import type { TokenSet } from './webhook-tokens.js';

// node:crypto is loaded on the first token check, not at import: a function without tokens never needs it,
// and loading it is a measurable part of a cold start.
const nodeCrypto = () => process.getBuiltinModule('node:crypto');
const digest = (text: string) => nodeCrypto().createHash('sha256').update(text).digest('base64');

// The configured tokens by their SHA-256 digests, made once per token set rather than on every request. A
// token is found by its digest: how long the lookup takes depends on the digest, never on how much of a token
// was guessed right, and a fleet's hundreds of tokens cost one lookup, not a comparison each.
const clustersByDigest = new WeakMap<TokenSet, Map<string, string>>();

/** The cluster whose token was presented, or undefined. */
export function clusterOfToken(presented: string, tokens: TokenSet): string | undefined {
  let known = clustersByDigest.get(tokens);
  if (!known) clustersByDigest.set(tokens, (known = new Map(tokens.map(({ token, cluster }) => [digest(token), cluster]))));
  return known.get(digest(presented));
}

function presentedTokens(event: ApiGatewayEvent): string[] {
  const fromPath = event.pathParameters?.token;
  const authorization = header(event, 'authorization');
  const fromHeader = authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  return [fromPath, fromHeader].filter((token): token is string => typeof token === 'string' && token !== '');
}

/**
 * The request path with every path parameter replaced, so it can be logged: a token, and a policy segment
 * too (a URL registered before policies had routes of their own carries the token there).
 */
export function redactedPath(event: ApiGatewayEvent): string {
  const path = ('rawPath' in event ? event.rawPath : event.path) ?? '';
  const parameters = Object.keys(event.pathParameters ?? {}).length;
  return parameters === 0 ? path : path.split('/').slice(0, -parameters).concat(Array(parameters).fill('<redacted>')).join('/');
}

function sourceIpOf(event: ApiGatewayEvent): string | undefined {
  const context = event.requestContext as { http?: { sourceIp?: string }; identity?: { sourceIp?: string } } | undefined;
  return context?.http?.sourceIp ?? context?.identity?.sourceIp;
}

/** What authentication leaves for the middlewares after it: the caller's cluster. */
export interface CallerInternal {
  cluster?: string;
}

export function authenticateCaller(tokens: () => Promise<TokenSet>, defaultCluster: string): MiddlewareObj {
  async function before(request: { event: unknown; internal: CallerInternal }) {
    let known: TokenSet;
    try {
      known = await tokens();
    } catch {
      throw new HttpError(503, 'authentication unavailable');
    }
    if (known.length === 0) {
      request.internal.cluster = defaultCluster;
      return;
    }
    let cluster: string | undefined;
    for (const token of presentedTokens(request.event as ApiGatewayEvent)) cluster ??= clusterOfToken(token, known);
    request.internal.cluster = cluster;
    if (cluster === undefined) {
      logger.warn('caller rejected', {
        path: redactedPath(request.event as ApiGatewayEvent),
        sourceIp: sourceIpOf(request.event as ApiGatewayEvent),
      });
      throw new HttpError(401, 'unauthorized', { 'WWW-Authenticate': 'Bearer' });
    }
  }
  return { before };
}
