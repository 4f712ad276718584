// One HTTPS GET or HEAD to a registry, its body read up to a limit: a manifest or blob larger than the limit
// stops the read (never buffered whole), and the caller's signal (the request's deadline) aborts the call
// wherever it is. Redirects are returned, not followed: the client decides what a redirect may carry.
// node:https loads on the first call, so a function that reads no registry never loads it.
import type { Agent, IncomingHttpHeaders, IncomingMessage } from 'node:http';

export interface RegistryResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface RegistryGet {
  method?: 'GET' | 'HEAD';
  headers?: Record<string, string>;
  /** The request's deadline: aborting ends the call and the read of its body. */
  signal: AbortSignal;
  /** Bytes of body read at most; a longer body is a RegistryLimitError. */
  maxBytes: number;
  /** Certificate authorities (PEM) trusted beside the system's, for a registry with a private CA. */
  ca?: string;
}

/** What a registry answered or did that stops the lookup: the rule's failure policy decides. */
export class RegistryError extends Error {
  constructor(
    message: string,
    /** The registry's answer, when it gave one: 4xx is a definite no, 5xx a registry in trouble. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'RegistryError';
  }
}

/** A registry's answer beyond a limit of ours: an error, never a truncated answer. */
export class RegistryLimitError extends RegistryError {
  constructor(message: string) {
    super(`${message} (a limit of Portcullis: the rule's failure policy decides)`);
    this.name = 'RegistryLimitError';
  }
}

const agents = new Map<string, Agent>();

function agentFor(ca: string | undefined): Agent {
  const key = ca ?? '';
  let agent = agents.get(key);
  if (!agent) {
    const https = process.getBuiltinModule('node:https') as typeof import('node:https');
    const tls = process.getBuiltinModule('node:tls') as typeof import('node:tls');
    agent = new https.Agent({ keepAlive: true, ...(ca ? { ca: [...tls.rootCertificates, ca] } : {}) });
    agents.set(key, agent);
  }
  return agent;
}

/** Sends the request; resolves with the status, headers and body (redirects included, unfollowed). */
export function registryGet(url: URL, { method = 'GET', headers = {}, signal, maxBytes, ca }: RegistryGet): Promise<RegistryResponse> {
  if (url.protocol !== 'https:') return Promise.reject(new RegistryError(`${url.origin}: registries are reached over HTTPS only`));
  const https = process.getBuiltinModule('node:https') as typeof import('node:https');
  return new Promise((resolve, reject) => {
    const described = `${method} ${url.origin}${url.pathname}`;
    const call = https.request(url, { method, headers, agent: agentFor(ca), signal }, (response: IncomingMessage) => {
      const declared = Number(response.headers['content-length'] ?? 0);
      if (declared > maxBytes) {
        response.destroy();
        reject(new RegistryLimitError(`${described}: the answer is ${declared} bytes, more than the ${maxBytes} read at most`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          response.destroy();
          reject(new RegistryLimitError(`${described}: the answer is more than the ${maxBytes} bytes read at most`));
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', (error) => reject(failure(described, error, signal)));
    });
    call.on('error', (error) => reject(failure(described, error, signal)));
    call.end();
  });
}

// The transport's own words (refused, reset, a certificate's name) stay out of the message: it reaches the
// requester, and must not tell them how hosts of the network answer.
function failure(described: string, _error: Error, signal: AbortSignal): Error {
  if (signal.aborted) return signal.reason instanceof Error ? signal.reason : new RegistryError(`${described}: aborted`);
  return new RegistryError(`${described}: the registry could not be reached`);
}
