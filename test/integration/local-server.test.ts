// The HTTP path as a cluster would use it: real requests to the local server serverless-offline runs
// (the same one `npm start` serves), built by serverless-esbuild from serverless.yml.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture } from '../helpers/invoke.js';
import { type LocalServer, startLocalServer } from '../helpers/local-server.js';

let server: LocalServer;
beforeAll(async () => {
  server = await startLocalServer();
});
afterAll(async () => server?.stop());

const post = (body: string, contentType = 'application/json') =>
  fetch(`${server.baseUrl}/validate/trusted-registry?timeout=10s`, { method: 'POST', headers: { 'content-type': contentType }, body });

const reviewBody = (name: string) => fixture('trusted-registry', name).body!;

describe('POST /validate/trusted-registry on the local server', () => {
  it.each([
    ['pod-bad-repo.json', false],
    ['pod-bad-tag.json', false],
    ['pod-allowed.json', true],
    ['deployment-bad-repo.json', false],
    ['pod-v1beta1-bad-repo.json', false],
  ])('%s → allowed=%s', async (name, allowed) => {
    const response = await post(reviewBody(name));
    expect(response.status).toBe(200);
    const review = await response.json();
    expect(review.response.uid).toBe(JSON.parse(reviewBody(name)).request.uid);
    expect(review.response.allowed).toBe(allowed);
  });

  it('answers bad input with a JSON error that names the problem', async () => {
    const cases = [
      [await post('{"apiVersion": '), 400, 'body is not valid JSON'],
      [await post(reviewBody('pod-allowed.json'), 'text/plain'), 415, 'content type text/plain is not supported'],
      [await post(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: {} })), 400, 'request.uid'],
    ] as const;
    for (const [response, status, message] of cases) {
      expect(response.status).toBe(status);
      expect((await response.json()).error).toContain(message);
    }
  });

  it('only POST is routed', async () => {
    const response = await fetch(`${server.baseUrl}/validate/trusted-registry`);
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
  });
});

describe('POST /mutate/<policy> on the local server', () => {
  it.each([
    ['registry-mirror', 'pod-tekton.json', '/spec/containers/0/image'],
    ['disable-service-links', 'pod-no-field.json', '/spec/enableServiceLinks'],
  ])('%s patches %s', async (policy, name, path) => {
    const response = await fetch(`${server.baseUrl}/mutate/${policy}?timeout=10s`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: fixture(policy, name).body!,
    });
    expect(response.status).toBe(200);
    const { response: answer } = await response.json();
    expect(answer).toMatchObject({ allowed: true, patchType: 'JSONPatch' });
    expect(JSON.parse(Buffer.from(answer.patch, 'base64').toString()).map((operation: { path: string }) => operation.path)).toContain(path);
  });
});
