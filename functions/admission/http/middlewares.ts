// The stack's middy middlewares. Each changes request.event or request.response in place and throws
// HttpErrors; the outermost one turns every outcome into an HTTP response with a JSON body.
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { type ApiGatewayEvent, type HttpInput, normaliseApiGatewayEvent } from './api-gateway-event.js';
import { type AdmissionReview, AdmissionReviewSchema } from '../review/admission-review-schema.js';
import type { CallerInternal } from './authenticate-caller.js';
import { HttpError } from './http-error.js';
import { logger } from '../observe/logger.js';
import { issueLines } from '../schema-issues.js';
import * as v from '../schema.js';

export type AdmissionEvent = HttpInput & { review: AdmissionReview };

const JSON_HEADERS = { 'content-type': 'application/json' };

function jsonResponse(statusCode: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return { statusCode, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

/** Outermost: a result becomes 200 JSON; an HttpError its own status; anything else a bare 500, never a stack. */
export function jsonHttpResponse(): MiddlewareObj {
  function after(request: { response: unknown }) {
    request.response = jsonResponse(200, request.response);
  }
  function onError(request: { error: unknown; response: unknown }) {
    const error = request.error;
    if (error instanceof HttpError) {
      request.response = jsonResponse(error.statusCode, { error: error.message }, error.headers);
      return request.response;
    }
    logger.error('unhandled error in the admission stack', { error: error as Error });
    request.response = jsonResponse(500, { error: 'internal error; see the function log' });
    return request.response;
  }
  return { after, onError };
}

/** The event as the stack reads it, with the caller's cluster that authentication found. */
export function normaliseEvent(): MiddlewareObj {
  function before(request: { event: unknown; internal: CallerInternal }) {
    const input = normaliseApiGatewayEvent(request.event as ApiGatewayEvent);
    const { cluster } = request.internal;
    if (cluster !== undefined) input.cluster = cluster; // the input is new: no copy per request
    request.event = input;
  }
  return { before };
}

export function parseAdmissionReview(): MiddlewareObj {
  function before(request: { event: unknown }) {
    const input = request.event as HttpInput;
    const parsed = v.safeParse(AdmissionReviewSchema, input.body);
    if (!parsed.success) {
      throw new HttpError(400, `not a valid AdmissionReview: ${issueLines(parsed.issues).join('; ')}`);
    }
    request.event = { ...input, review: parsed.output } satisfies AdmissionEvent;
  }
  return { before };
}
