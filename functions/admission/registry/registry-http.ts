// One HTTPS GET or HEAD to a registry (bounded-https.ts: a manifest or blob larger than the limit stops the
// read, the request's deadline aborts it, redirects are returned for the client to decide), in a registry's words.
import type { IncomingHttpHeaders } from 'node:http';
import { boundedHttps } from '../network/bounded-https.js';

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

const REGISTRY_FAILURES = {
  tooLarge: (message: string) => new RegistryLimitError(message),
  unreachable: (described: string) => new RegistryError(`${described}: the registry could not be reached`),
};

/** Sends the request; resolves with the status, headers and body (redirects included, unfollowed). */
export function registryGet(url: URL, { method = 'GET', headers = {}, signal, maxBytes, ca }: RegistryGet): Promise<RegistryResponse> {
  if (url.protocol !== 'https:') return Promise.reject(new RegistryError(`${url.origin}: registries are reached over HTTPS only`));
  return boundedHttps(url, { method, headers, signal, maxBytes, ...(ca ? { ca } : {}) }, REGISTRY_FAILURES);
}
