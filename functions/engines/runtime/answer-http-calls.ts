// The calls a rule evaluation asked for (http-calls.ts) in one round, made all at once within the request's
// deadline; the rule then runs again with their answers (lookups.ts). A call that cannot be made is answered
// with its error, which the rule's next run meets as Kyverno's rule error (its failure policy decides), and
// so is one past our limits (pending-answers.ts). Loaded the first time a rule makes a call.
import { boundedHttps } from '../../admission/network/bounded-https.js';
import type { HttpCallAnswer, HttpCallRequest, HttpCalls } from './http-calls.js';

/** Bytes of an answer read at most: a policy reads a small JSON document, never a download. */
export const MAX_HTTP_ANSWER_BYTES = 1024 * 1024;

/** Answers the calls asked for since the last round (pending-answers.ts). */
export function answerHttpRound(calls: HttpCalls, round: number, maxRounds: number, signal: AbortSignal): Promise<void> {
  return calls.answerRound(
    round,
    maxRounds,
    (request) => call(request, signal),
    (reached, most) =>
      reached === 'rounds'
        ? `the rule asked for calls in more than ${most} rounds, each waiting for the last`
        : `more than ${most} HTTP calls in one evaluation`,
  );
}

const FAILURES = {
  tooLarge: (message: string) => new Error(`${message} (a limit of Portcullis)`),
  unreachable: (described: string) => new Error(`${described}: no answer`),
};

/** One call, as Kyverno's HttpProvider makes it: a 2xx answer's JSON object, anything else an error. */
async function call({ method, url, headers, body, ca }: HttpCallRequest, signal: AbortSignal): Promise<HttpCallAnswer> {
  try {
    const response = await boundedHttps(
      url,
      {
        method,
        headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        ...(body !== undefined ? { body } : {}),
        signal,
        maxBytes: MAX_HTTP_ANSWER_BYTES,
        // As Kyverno's http.Client(caBundle): the bundle's authorities only.
        ...(ca ? { ca, caOnly: true } : {}),
      },
      FAILURES,
    );
    // Redirects are not followed: the place they point to is not one the deployment named.
    if (response.status < 200 || response.status >= 300)
      return { ok: false, error: `HTTP ${response.status} ${response.statusMessage}`.trim() };
    const decoded: unknown = JSON.parse(response.body.toString('utf8'));
    if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded))
      return { ok: false, error: 'Unable to decode JSON body: not a JSON object' };
    return { ok: true, body: decoded };
  } catch (error) {
    // Not the parser's words: they quote the body, which may be anything the service answers.
    if (error instanceof SyntaxError) return { ok: false, error: 'Unable to decode JSON body: not JSON' };
    return {
      ok: false,
      error: signal.aborted ? `${method} ${url.origin}${url.pathname}: the request's deadline passed` : (error as Error).message,
    };
  }
}
