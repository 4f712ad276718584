// One HTTPS request, its body read up to a limit: a longer answer stops the read (never buffered whole), and
// the caller's signal (the request's deadline) aborts the call wherever it is. Redirects are returned, not
// followed: the caller decides where a request may go. node:https loads on the first call, so a function
// that calls out to nothing never loads it.
import type { Agent, IncomingHttpHeaders, IncomingMessage } from 'node:http';

export interface HttpsResponse {
  status: number;
  statusMessage: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface HttpsRequest {
  method: string;
  headers?: Record<string, string>;
  body?: string;
  /** The request's deadline: aborting ends the call and the read of its body. */
  signal: AbortSignal;
  /** Bytes of body read at most; a longer body is the caller's `tooLarge` error. */
  maxBytes: number;
  /** Certificate authorities (PEM) trusted beside the system's, for a service with a private CA. */
  ca?: string;
  /** Trust `ca` alone, not the system's authorities beside it. */
  caOnly?: boolean;
}

/** The caller's errors, in its own words: an answer past `maxBytes`, and a call that got no answer. */
export interface HttpsFailures {
  tooLarge(message: string): Error;
  unreachable(described: string): Error;
}

// A connection pool per set of trusted authorities; a policy's CA may come from a request, so at most a few
// are kept, the oldest closed first.
const agents = new Map<string, Agent>();
const MAX_AGENTS = 8;

function agentFor(ca: string | undefined, caOnly: boolean): Agent {
  const key = `${caOnly ? 'only' : 'added'}:${ca ?? ''}`;
  let agent = agents.get(key);
  if (!agent) {
    const https = process.getBuiltinModule('node:https') as typeof import('node:https');
    const tls = process.getBuiltinModule('node:tls') as typeof import('node:tls');
    agent = new https.Agent({ keepAlive: true, ...(ca ? { ca: caOnly ? [ca] : [...tls.rootCertificates, ca] } : {}) });
    const oldest = agents.size >= MAX_AGENTS ? agents.keys().next().value : undefined;
    if (oldest !== undefined) {
      agents.get(oldest)!.destroy();
      agents.delete(oldest);
    }
    agents.set(key, agent);
  }
  return agent;
}

/** Sends the request; resolves with the status, headers and body (redirects included, unfollowed). */
export function boundedHttps(
  url: URL,
  { method, headers = {}, body, signal, maxBytes, ca, caOnly = false }: HttpsRequest,
  failures: HttpsFailures,
): Promise<HttpsResponse> {
  const https = process.getBuiltinModule('node:https') as typeof import('node:https');
  return new Promise((resolve, reject) => {
    const described = `${method} ${url.origin}${url.pathname}`;
    const call = https.request(url, { method, headers, agent: agentFor(ca, caOnly), signal }, (response: IncomingMessage) => {
      const declared = Number(response.headers['content-length'] ?? 0);
      if (declared > maxBytes) {
        response.destroy();
        reject(failures.tooLarge(`${described}: the answer is ${declared} bytes, more than the ${maxBytes} read at most`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          response.destroy();
          reject(failures.tooLarge(`${described}: the answer is more than the ${maxBytes} bytes read at most`));
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          statusMessage: response.statusMessage ?? '',
          headers: response.headers,
          body: Buffer.concat(chunks),
        }),
      );
      response.on('error', () => reject(failure(described, signal, failures)));
    });
    // The transport's own words (refused, reset, a certificate's name) stay out of the message: it reaches
    // the requester, and must not tell them how hosts of the network answer.
    call.on('error', () => reject(failure(described, signal, failures)));
    call.end(body);
  });
}

function failure(described: string, signal: AbortSignal, failures: HttpsFailures): Error {
  return signal.aborted && signal.reason instanceof Error ? signal.reason : failures.unreachable(described);
}
