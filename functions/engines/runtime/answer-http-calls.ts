// The calls a rule evaluation asked for (http-calls.ts), made all at once within the request's deadline, and
// the evaluation run again with their answers, round after round while it asks for new ones. A call that
// cannot be made, or one past our limits, is answered with its error, which the rule's next run meets as
// Kyverno's rule error (its failure policy decides): a limit never stands in for an answer. Loaded the first
// time a rule makes a call.
import { boundedHttps } from '../../admission/network/bounded-https.js';
import { type HttpCallAnswer, type HttpCallRequest, type HttpCalls, MAX_HTTP_CALLS, MAX_HTTP_ROUNDS, type Outcome } from './http-calls.js';

/** Bytes of an answer read at most: a policy reads a small JSON document, never a download. */
export const MAX_HTTP_ANSWER_BYTES = 1024 * 1024;

const limit = (what: string): HttpCallAnswer => ({
  ok: false,
  error: `${what} (a limit of Portcullis: the rule's failure policy decides)`,
});

export async function answerHttpCalls<T>(calls: HttpCalls, again: () => Outcome<T>, signal: AbortSignal): Promise<Outcome<T>> {
  for (let round = 1; ; round++) {
    const asked = [...calls.pending];
    const room = Math.max(0, MAX_HTTP_CALLS - calls.made);
    const pastTheLast = round > MAX_HTTP_ROUNDS;
    const answers = await Promise.all(
      asked.map(([, request], index) =>
        pastTheLast
          ? limit(`the rule asked for calls in more than ${MAX_HTTP_ROUNDS} rounds, each waiting for the last`)
          : index >= room
            ? limit(`more than ${MAX_HTTP_CALLS} HTTP calls in one evaluation`)
            : call(request, signal),
      ),
    );
    for (const [index, [key]] of asked.entries()) calls.settle(key, answers[index]!);
    const result = again();
    if (calls.pending.size === 0) return result;
    // Past the last round every call asked for is answered with its error, so none should be left; if one
    // is, the evaluation ends here as an error rather than run on.
    if (pastTheLast) return { error: new Error(`the rule asked for calls in more than ${MAX_HTTP_ROUNDS} rounds (a limit of Portcullis)`) };
  }
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
