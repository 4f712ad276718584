// Kyverno CEL's http.Get and http.Post in the functions, to the hosts the deployment names (HTTP_CALL_HOSTS,
// from the httpCallHosts parameter) and nowhere else. A CEL call is synchronous and a network call is not, so
// a rule runs, the calls it asked for and got no answer to are made (answer-http-calls.ts, within the
// request's deadline), and the rule runs again with their answers, until it asks for nothing new
// (lookups.ts). Which hosts: http-call-hosts.ts; without any, both stay refused at upload (program.ts).

import { ambient } from './evaluation.js';
import { PendingAnswers } from './pending-answers.js';

/** One call as the policy made it: the same call twice in an evaluation is made once. */
export interface HttpCallRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers: Record<string, string>;
  /** A POST's data, as JSON. */
  body?: string;
  /** http.Client(caBundle)'s certificate authorities, trusted instead of the system's (as Kyverno's client). */
  ca?: string;
}

/** The decoded JSON body of a 2xx answer, or why there is none (Kyverno's words, as its rule error). */
export type HttpCallAnswer = { ok: true; body: unknown } | { ok: false; error: string };

/** Distinct calls one rule evaluation makes at most. */
export const MAX_HTTP_CALLS = 16;

/** The calls of one rule evaluation: answered ones, and those asked for since the last round. */
export class HttpCalls extends PendingAnswers<HttpCallRequest, HttpCallAnswer> {
  constructor() {
    super(MAX_HTTP_CALLS);
  }

  /** The answer to `request`, or undefined after noting it as a call to make. */
  answer(request: HttpCallRequest): HttpCallAnswer | undefined {
    // A POST after a call still to be made waits for a later round: the answer it waits for may mean, as
    // in Kyverno, that the POST is never sent (a false `a && b`).
    return this.answerOf(keyOf(request), request, !(request.method === 'POST' && this.pending.size > 0));
  }
}

const keyOf = ({ method, url, headers, body, ca }: HttpCallRequest) =>
  JSON.stringify([method, url.href, headers, body ?? null, ca ?? null]);

const calls = ambient<HttpCalls>();

/** The calls of the evaluation in progress: absent where calls are not made (policy test answers from its mocks). */
export const currentHttpCalls = calls.current;
export const withHttpCalls = calls.with;
