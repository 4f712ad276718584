// Lists objects from a live cluster for `audit`, as kubectl does: the kubeconfig's cluster, credentials and
// TLS settings through @kubernetes/client-node (tokens, client certificates, exec plugins), every
// namespace at once, in pages (`limit`, `continue`). An expired continue token (410 Gone) restarts that
// resource's list from the start; a resource the credentials may not list (403) is skipped with a note.
import { request } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { apiVersionOf, type ListedResource, pathOf } from '../../functions/audit/listed-resources.js';
import type { KubernetesGet } from '../../functions/cluster-snapshot/kubernetes-list.js';

export interface ClusterOptions {
  kubeconfig?: string;
  context?: string;
  /** Objects per page (`limit`). */
  pageSize?: number;
}

class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const MAX_RESTARTS = 3;

export function loadKubeConfig({ kubeconfig, context }: ClusterOptions): KubeConfig {
  const config = new KubeConfig();
  if (kubeconfig) config.loadFromFile(kubeconfig);
  else config.loadFromDefault();
  if (context) config.setCurrentContext(context);
  if (!config.getCurrentCluster()) throw new Error(`no cluster in the kubeconfig${context ? ` for context ${context}` : ''}`);
  return config;
}

/** A list's JSON body, as far as the audit reads it. */
interface ListBody {
  kind?: unknown;
  items?: Record<string, unknown>[];
  metadata?: { continue?: string };
  message?: string;
}

/** The API server of the kubeconfig's current context, as the snapshot reads it (with the Accept header it asks for). */
export const kubeconfigKubernetesGet =
  (config: KubeConfig): KubernetesGet =>
  (path, accept) =>
    kubeconfigGet(config, path, accept);

/** One GET against the API server: its status and JSON body (undefined when it is not JSON). */
export async function kubeconfigGet(
  config: KubeConfig,
  path: string,
  accept = 'application/json',
): Promise<{ status: number; body: unknown; text: string }> {
  const url = new URL(path, config.getCurrentCluster()!.server);
  const options: Parameters<typeof request>[1] = { method: 'GET', headers: { accept } };
  await config.applyToHTTPSOptions(options);
  return new Promise((resolve, reject) => {
    const call = request(url, options, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: response.statusCode ?? 0, body, text });
      });
    });
    call.on('error', reject);
    call.end();
  });
}

/** One GET against the API server, its JSON body; a status other than 200 throws with the server's message. */
async function getJson(config: KubeConfig, path: string): Promise<ListBody> {
  const { status, body, text } = await kubeconfigGet(config, path);
  if (status === 200 && body) return body as ListBody;
  throw new HttpStatusError(status, (body as ListBody | undefined)?.message ?? (text.slice(0, 200) || `HTTP ${status}`));
}

/** Every object of the resources, with apiVersion and kind set (list items carry neither); notes for what was skipped. */
export async function listClusterObjects(
  config: KubeConfig,
  resources: ListedResource[],
  pageSize = 500,
): Promise<{ objects: unknown[]; notes: string[] }> {
  const objects: unknown[] = [];
  const notes: string[] = [];
  for (const resource of resources) {
    const path = pathOf(resource);
    let items: unknown[] = [];
    let next: string | undefined;
    let restarts = 0;
    for (;;) {
      const query = new URLSearchParams({ limit: String(pageSize), ...(next ? { continue: next } : {}) });
      let page: ListBody;
      try {
        page = await getJson(config, `${path}?${query}`);
      } catch (error) {
        if (error instanceof HttpStatusError && error.status === 410 && restarts < MAX_RESTARTS) {
          // The continue token expired (the list took longer than etcd keeps it): start over, consistent again.
          notes.push(`${path}: the list expired midway (410 Gone); listed again from the start`);
          restarts += 1;
          items = [];
          next = undefined;
          continue;
        }
        if (error instanceof HttpStatusError && error.status === 403) {
          notes.push(`${path}: skipped, not allowed to list it (403: ${error.message})`);
          items = [];
          break;
        }
        throw new Error(`listing ${path}: ${error instanceof HttpStatusError ? `HTTP ${error.status}: ` : ''}${(error as Error).message}`);
      }
      const apiVersion = apiVersionOf(resource);
      const kind = typeof page.kind === 'string' ? page.kind.replace(/List$/, '') : '';
      for (const item of page.items ?? []) items.push({ apiVersion, kind, ...item });
      next = page.metadata?.continue || undefined;
      if (!next) break;
    }
    objects.push(...items);
  }
  return { objects, notes };
}
