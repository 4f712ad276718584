// GETs of an EKS cluster's API server from the scheduled writer: HTTPS to the endpoint, its certificate
// authority trusted and nothing else, a bearer token made for each request (an EKS token is valid for a
// minute, and a snapshot of a large cluster may take longer), keep-alive across the pages.
import { Agent, request } from 'node:https';
import type { KubernetesGet } from './kubernetes-list.js';

export interface ApiServer {
  endpoint: string;
  /** The certificate authority, PEM. */
  caPem: string;
  token: () => string;
  timeoutMs?: number;
}

export function apiServerGet({ endpoint, caPem, token, timeoutMs = 30_000 }: ApiServer): KubernetesGet {
  const agent = new Agent({ keepAlive: true, ca: caPem });
  return (path, accept = 'application/json') =>
    new Promise((resolve, reject) => {
      const call = request(
        new URL(path, endpoint),
        { method: 'GET', agent, headers: { accept, authorization: `Bearer ${token()}` }, timeout: timeoutMs },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            let body: unknown;
            try {
              body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            } catch {
              body = undefined;
            }
            resolve({ status: response.statusCode ?? 0, body });
          });
          response.on('error', reject);
        },
      );
      call.on('timeout', () => call.destroy(new Error(`GET ${path}: no answer from ${endpoint} in ${timeoutMs} ms`)));
      call.on('error', reject);
      call.end();
    });
}
