// The calls a rule evaluation asked for (http-calls.ts) in one round, made all at once within the request's
// deadline; the rule then runs again with their answers (lookups.ts). A call that cannot be made, or one
// past our limits, is answered with its error, which the rule's next run meets as Kyverno's rule error (its
// failure policy decides): a limit never stands in for an answer. Loaded the first time a rule makes a call.
import { boundedHttps } from '../../admission/network/bounded-https.js';
import { type HttpCallAnswer, type HttpCallRequest, type HttpCalls, MAX_HTTP_CALLS } from './http-calls.js';

/** Bytes of an answer read at most: a policy reads a small JSON document, never a download. */
export const MAX_HTTP_ANSWER_BYTES = 1024 * 1024;

const limit = (what: string): HttpCallAnswer => ({
  ok: false,
  error: `${what} (a limit of Portcullis: the rule's failure policy decides)`,
});

/** Answers the calls asked for since the last round; past the last round (`maxRounds`), each with its error. */
export async function answerHttpRound(calls: HttpCalls, round: number, maxRounds: number, signal: AbortSignal): Promise<void> {
  const asked = [...calls.pending];
  const room = Math.max(0, MAX_HTTP_CALLS - calls.made);
  const answers = await Promise.all(
    asked.map(([, request], index) =>
      round > maxRounds
        ? limit(`the rule asked for calls in more than ${maxRounds} rounds, each waiting for the last`)
        : index >= room
          ? limit(`more than ${MAX_HTTP_CALLS} HTTP calls in one evaluation`)
          : call(request, signal),
    ),
  );
  for (const [index, [key]] of asked.entries()) calls.settle(key, answers[index]!);
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
