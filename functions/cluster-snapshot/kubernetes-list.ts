// Reading the Kubernetes API as the snapshot writer and the background audit do: a GET the caller supplies
// (a kubeconfig's credentials, an EKS token), and a list read in pages (`limit`, `continue`), as the API
// server pages a large list. A continue token that expired (410 Gone: the list took longer than etcd keeps
// it) starts the list over, consistent again, a few times at most; the caller is told, to drop what it took
// from the pages before. Any other answer but 200 is the caller's error to make, naming what it read.
import { isJsonObject } from '../admission/kubernetes/json-object.js';

/**
 * One GET of the API server: its status and JSON body (undefined when the body is not JSON). With `accept`, the
 * Accept header to send (a metadata-only read asks for PartialObjectMetadata).
 */
export type KubernetesGet = (path: string, accept?: string) => Promise<{ status: number; body: unknown }>;

/** A page of a list and the continue token of the next, if there is one; or word that the list starts over. */
export type ListPage = { restarted: false; body: Record<string, unknown>; next?: string } | { restarted: true };

const MAX_RESTARTS = 3;

/** The API server's message in an error's body (a Status), for errors that quote it. */
export const messageOf = (body: unknown) => (isJsonObject(body) && typeof body.message === 'string' ? body.message : 'no message');

/** The pages of the list at `path`, from the page `from` names (a continue token) or the first. */
export async function* listPages(
  get: KubernetesGet,
  path: string,
  options: { pageSize: number; accept?: string; from?: string; failed: (status: number, body: unknown) => Error },
): AsyncGenerator<ListPage> {
  let next = options.from;
  for (let restarts = 0; ; ) {
    const query = new URLSearchParams({ limit: String(options.pageSize), ...(next ? { continue: next } : {}) });
    const { status, body } = await get(`${path}?${query}`, options.accept);
    if (status === 410 && next && restarts < MAX_RESTARTS) {
      restarts++;
      next = undefined;
      yield { restarted: true };
      continue;
    }
    if (status !== 200 || !isJsonObject(body)) throw options.failed(status, body);
    const metadata = isJsonObject(body.metadata) ? body.metadata : {};
    next = typeof metadata.continue === 'string' && metadata.continue !== '' ? metadata.continue : undefined;
    yield { restarted: false, body, next };
    if (!next) return;
  }
}
