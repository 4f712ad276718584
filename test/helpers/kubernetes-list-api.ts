// A loopback HTTPS server that speaks the Kubernetes list and get API, for `audit` and the snapshot writers
// against "a cluster": GET /api/v1/<resource> and /apis/<group>/<version>/<resource> across namespaces,
// `/namespaces/<ns>/<resource>` in one, paged by `limit` and `continue`, and `…/<resource>/<name>` one
// object (404 when there is none); a path can answer 403 (not allowed), or 410 Gone for its first continue
// token (the token expired, as etcd compaction does). Asked for PartialObjectMetadata (an Accept header's
// `as=`), it answers the objects' metadata alone, as the API server does. Every request is recorded with its
// bearer token and Accept header.
import { createServer, type Server } from 'node:https';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { ensureLocalTls } from '../../infra/local-tls.js';

export interface ListApiOptions {
  /** Objects per path (`/api/v1/pods`); any other list path answers an empty list. */
  objects: Record<string, { kind: string; items: unknown[] }>;
  forbidden?: string[];
  /** Paths whose first continue token has expired (410 once). */
  expiring?: string[];
}

export interface ListApi {
  server: Server;
  url: string;
  caPem: string;
  requests: { path: string; query: URLSearchParams; authorization?: string; accept?: string }[];
  close(): Promise<void>;
}

/** A path's collection across namespaces (`/api/v1/pods`), and the namespace and name it narrows to. */
function partsOf(path: string): { base: string; namespace?: string; name?: string } {
  const segments = path.split('/').filter(Boolean);
  const root = segments[0] === 'apis' ? segments.slice(0, 3) : segments.slice(0, 2);
  let rest = segments.slice(root.length);
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) [namespace, rest] = [rest[1], rest.slice(2)];
  return { base: `/${[...root, rest[0]].join('/')}`, namespace, ...(rest[1] ? { name: rest[1] } : {}) };
}

export async function startListApi(directory: string, options: ListApiOptions): Promise<ListApi> {
  const tls = await ensureLocalTls(directory);
  const requests: ListApi['requests'] = [];
  const expired = new Set<string>();
  const server = createServer(
    { cert: readFileSync(join(tls.directory, 'cert.pem')), key: readFileSync(join(tls.directory, 'key.pem')) },
    (req, res) => {
      const url = new URL(req.url ?? '/', 'https://127.0.0.1');
      requests.push({ path: url.pathname, query: url.searchParams, authorization: req.headers.authorization, accept: req.headers.accept });
      const partial = /;as=PartialObjectMetadata/.test(req.headers.accept ?? '');
      const shown = (item: unknown) =>
        partial
          ? { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: (item as { metadata?: unknown }).metadata }
          : item;
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const status = (code: number, reason: string, message: string) =>
        send(code, { apiVersion: 'v1', kind: 'Status', status: 'Failure', code, reason, message });
      if (options.forbidden?.includes(url.pathname))
        return status(403, 'Forbidden', `${url.pathname} is forbidden: User "auditor" cannot list resource`);
      const { base, namespace, name } = partsOf(url.pathname);
      const resource = base.split('/').pop()!;
      const all = options.objects[base] ?? { kind: `${resource[0]!.toUpperCase()}${resource.slice(1, -1)}`, items: [] };
      const metadataOf = (item: unknown) => (item as { metadata?: { name?: string; namespace?: string } }).metadata ?? {};
      const inScope = namespace === undefined ? all.items : all.items.filter((item) => metadataOf(item).namespace === namespace);
      if (name !== undefined) {
        const found = inScope.find((item) => metadataOf(item).name === name);
        if (!found) return status(404, 'NotFound', `${resource} "${name}" not found`);
        if (partial) return send(200, shown(found));
        return send(200, {
          apiVersion: base.startsWith('/apis/') ? base.split('/').slice(2, 4).join('/') : 'v1',
          kind: all.kind,
          ...(found as object),
        });
      }
      const listed = { kind: all.kind, items: inScope };
      const token = url.searchParams.get('continue');
      if (token && options.expiring?.includes(url.pathname) && !expired.has(url.pathname)) {
        expired.add(url.pathname);
        return status(410, 'Expired', 'The provided continue parameter is too old to display a consistent list result.');
      }
      const start = token ? Number(token) : 0;
      const limit = Number(url.searchParams.get('limit') ?? listed.items.length) || listed.items.length;
      const end = Math.min(start + limit, listed.items.length);
      send(200, {
        apiVersion: partial ? 'meta.k8s.io/v1' : 'v1',
        kind: partial ? 'PartialObjectMetadataList' : `${listed.kind}List`,
        metadata: { resourceVersion: '1', ...(end < listed.items.length ? { continue: String(end) } : {}) },
        items: listed.items.slice(start, end).map(shown),
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, url, caPem: tls.caPem, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A kubeconfig for the server, with a bearer token, as `kubectl config view --raw` writes one. */
export function kubeconfigFor(api: ListApi, token: string): string {
  const ca = Buffer.from(api.caPem).toString('base64');
  return `apiVersion: v1
kind: Config
clusters:
  - name: loopback
    cluster: { server: "${api.url}", certificate-authority-data: ${ca} }
  - name: elsewhere
    cluster: { server: "https://127.0.0.1:1", certificate-authority-data: ${ca} }
users:
  - name: auditor
    user: { token: ${token} }
contexts:
  - name: loopback
    context: { cluster: loopback, user: auditor }
  - name: elsewhere
    context: { cluster: elsewhere, user: auditor }
current-context: elsewhere
`;
}
