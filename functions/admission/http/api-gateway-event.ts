// Turns an API Gateway event, HTTP API (payload 2.0) or REST API (1.0), into what the stack needs: the
// parsed JSON body, when the gateway received it and the apiserver's `?timeout=`. Bad requests become
// HttpErrors that say what was wrong.
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import { parseGoDuration } from '../kubernetes/go-duration.js';
import { HttpError } from './http-error.js';

export type ApiGatewayEvent = APIGatewayProxyEventV2 | APIGatewayProxyEvent;

export interface HttpInput {
  body: unknown;
  receivedAtMs?: number;
  apiserverTimeoutMs?: number;
  /** The one policy the request is for, named by the route `/validate/<function>/<policy>`. */
  routedPolicy?: string;
  /** The calling cluster, as its token names it (authenticate-caller.ts); never read from the request. */
  cluster?: string;
}

export const MAX_BODY_BYTES = 8 * 1024 * 1024;

function isV2(event: ApiGatewayEvent): event is APIGatewayProxyEventV2 {
  return (event as APIGatewayProxyEventV2).version === '2.0';
}

/** A request header by its lowercase name (API Gateway keeps the caller's casing in v1 events). */
export function header(event: ApiGatewayEvent, name: string): string | undefined {
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === name) return value ?? undefined;
  }
  return undefined;
}

function isJsonContentType(contentType: string | undefined): boolean {
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  return mediaType === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType ?? '');
}

export function normaliseApiGatewayEvent(event: ApiGatewayEvent): HttpInput {
  if (!event || typeof event !== 'object' || !('headers' in event || 'requestContext' in event)) {
    throw new HttpError(400, 'event is not an API Gateway HTTP API (2.0) or REST API (1.0) event');
  }
  const method = isV2(event) ? event.requestContext?.http?.method : event.httpMethod;
  if (method !== 'POST') {
    throw new HttpError(405, `method ${method ?? '(none)'} is not allowed; send the AdmissionReview with POST`, { Allow: 'POST' });
  }
  const contentType = header(event, 'content-type');
  if (!isJsonContentType(contentType)) {
    throw new HttpError(415, `content type ${contentType ?? '(none)'} is not supported; expected application/json`);
  }
  // A plain body is measured, not copied: decoding it to bytes and back would double the warm cost.
  const text = event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString('utf8') : (event.body ?? '');
  const size = Buffer.byteLength(text, 'utf8');
  if (size > MAX_BODY_BYTES) {
    throw new HttpError(413, `body of ${size} bytes is larger than the ${MAX_BODY_BYTES} bytes allowed`);
  }
  if (size === 0) throw new HttpError(400, 'body is empty; expected an AdmissionReview');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, `body is not valid JSON: ${(error as Error).message}`);
  }
  const timeout = event.queryStringParameters?.timeout;
  const apiserverNanos = timeout === undefined ? undefined : parseGoDuration(timeout);
  // The apiserver never writes a negative timeout: one is not a timeout, as text that is no duration is not.
  const apiserverTimeoutMs = apiserverNanos === undefined || apiserverNanos < 0n ? undefined : Number(apiserverNanos) / 1e6;
  const receivedAtMs = isV2(event) ? event.requestContext?.timeEpoch : event.requestContext?.requestTimeEpoch;
  const routedPolicy = event.pathParameters?.policy || undefined;
  return { body, receivedAtMs, apiserverTimeoutMs, ...(routedPolicy ? { routedPolicy } : {}) };
}
