// Kyverno CEL's http.Get and http.Post in the cel and mutations functions, against a real HTTPS server on
// loopback with a CA of its own (http.Client(caBundle)): made only to the hosts HTTP_CALL_HOSTS names, their
// answers read by the rule (calls that depend on earlier answers included), anything else (a host not
// named, a non-2xx answer, a body that is not a JSON object, a redirect, an answer past our limit) the
// rule's error, resolved by its failure policy. (Without HTTP_CALL_HOSTS, refused at upload:
// test/unit/kyverno-cel-lookups.test.ts.) The functions read HTTP_CALL_HOSTS when they are imported: here,
// once the server's port is known.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { admissionReviewFor } from '../../infra/admission-event.js';
import { eventFor, invoke } from '../helpers/invoke.js';
import { packagedWithRules, removeRulesFolders } from '../helpers/packaged-with-rules.js';
import { selfSignedCertificate } from '../helpers/registry-server.js';

const folder = mkdtempSync(join(tmpdir(), 'portcullis-http-calls-'));
let server: Server;
let origin: string;
let ca: string;
const seen: { method: string; url: string; headers: Record<string, unknown>; body: string }[] = [];

beforeAll(async () => {
  const { cert, key } = selfSignedCertificate(folder, 'service');
  ca = readFileSync(cert, 'utf8');
  server = createServer({ cert: readFileSync(cert), key: readFileSync(key) }, (request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      seen.push({ method: request.method!, url: request.url!, headers: request.headers, body });
      const path = new URL(request.url!, 'https://service').pathname;
      const link = /^\/chain\/(\d+)$/.exec(path);
      const json = (status: number, value: unknown) =>
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (request.url === '/registries') return json(200, { allowed: ['ghcr.io'], next: '/teams/web' });
      if (path === '/teams/web') return json(200, { owner: 'team-web' });
      if (link) return json(200, { next: `/chain/${Number(link[1]) + 1}` });
      if (request.url === '/review' && request.method === 'POST')
        return json(200, { approved: JSON.parse(body).image.startsWith('ghcr.io/') && request.headers['x-team'] === 'web' });
      if (request.url === '/list') return json(200, ['not', 'an', 'object']);
      if (request.url === '/moved') return response.writeHead(302, { location: 'https://example.com/' }).end();
      if (path === '/hang') return; // never answers
      if (path === '/text') return response.writeHead(200, { 'content-type': 'text/plain' }).end('token-0123456789abcdef');
      if (path === '/flag') return json(200, { enabled: false });
      if (request.url === '/large') return json(200, { data: 'x'.repeat(2 * 1024 * 1024) });
      return json(404, { message: 'no such thing' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env.HTTP_CALL_HOSTS = `other.example.com, ${new URL(origin).host}`;
  functions = await importFunctions();
});

const importFunctions = async () => ({
  ...(await import('../../functions/admission/decide/deadline.js')),
  ...(await import('../../functions/admission/decide/evaluate-rules.js')),
  ...(await import('../../functions/admission/decide/mutate-rules.js')),
  ...(await import('../../functions/admission/rules/parse-rules-document.js')),
  ...(await import('../../functions/cel/policy.js')),
  ...(await import('../../functions/mutations/policy.js')),
  ...(await import('../helpers/cel-verdict.js')),
});
let functions: Awaited<ReturnType<typeof importFunctions>>;
const verdictOf = (...args: Parameters<typeof functions.verdictOf>) => functions.verdictOf(...args);
const evaluationOf = (...args: Parameters<typeof functions.evaluationOf>) => functions.evaluationOf(...args);
afterAll(() => {
  removeRulesFolders();
  server.closeAllConnections();
  server.close();
  rmSync(folder, { recursive: true, force: true });
});
afterEach(() => {
  seen.length = 0;
});

const client = () => `http.Client(${JSON.stringify(ca)})`;
const vpol = (expression: string, failurePolicy = 'Fail', variables: { name: string; expression: string }[] = []) =>
  JSON.stringify({
    apiVersion: 'policies.kyverno.io/v1',
    kind: 'ValidatingPolicy',
    metadata: { name: 'calls' },
    spec: {
      validationActions: ['Deny'],
      failurePolicy,
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
      variables,
      validations: [{ expression, message: 'refused by the service' }],
    },
  });
const pod = (image: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default' },
  spec: { containers: [{ name: 'c', image }] },
});

describe("Kyverno CEL's http calls, to the hosts the deployment names", () => {
  it("http.Get's JSON answer decides; a call that depends on another's answer is made in a second round", async () => {
    const text = vpol(
      `object.spec.containers.all(c, variables.registries.allowed.exists(r, c.image.startsWith(r + "/"))) && ${client()}.Get("${origin}" + variables.registries.next).owner == "team-web"`,
      'Fail',
      [{ name: 'registries', expression: `${client()}.Get("${origin}/registries")` }],
    );
    expect(functions.refusalOf(text)).toBeUndefined();
    expect((await verdictOf(text, pod('ghcr.io/web:1'))).allowed).toBe(true);
    expect(seen.map(({ method, url }) => `${method} ${url}`)).toEqual(['GET /registries', 'GET /teams/web']);
    const denied = await verdictOf(text, pod('docker.io/web:1'));
    expect(denied.allowed).toBe(false);
    expect(denied.status?.message).toContain('refused by the service');
  });

  it('http.Post sends the data as JSON with the headers given', async () => {
    const text = vpol(`${client()}.Post("${origin}/review", {"image": object.spec.containers[0].image}, {"X-Team": "web"}).approved`);
    expect((await verdictOf(text, pod('ghcr.io/web:1'))).allowed).toBe(true);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/review', headers: { 'content-type': 'application/json', 'x-team': 'web' } });
    expect(JSON.parse(seen[0]!.body)).toEqual({ image: 'ghcr.io/web:1' });
    expect((await verdictOf(text, pod('docker.io/web:1'))).allowed).toBe(false);
  });

  it.each([
    ['/nothing', 'request failed: HTTP 404 Not Found'],
    ['/list', 'request failed: Unable to decode JSON body'],
    ['/moved', 'request failed: HTTP 302 Found'],
    ['/text', 'request failed: Unable to decode JSON body: not JSON'],
    ['/large', 'more than the 1048576 bytes read at most (a limit of Portcullis)'],
  ])('%s is the rule error (%s): denied under Fail, failed open under Ignore with it as the reason', async (path, error) => {
    const denied = await verdictOf(vpol(`${client()}.Get("${origin}${path}").size() > 0`), pod('ghcr.io/web:1'));
    expect(denied.allowed).toBe(false);
    expect(denied.status?.message).toContain(error);
    const admitted = await evaluationOf(vpol(`${client()}.Get("${origin}${path}").size() > 0`, 'Ignore'), pod('ghcr.io/web:1'));
    expect(admitted.verdict.allowed).toBe(true);
    expect(admitted.failedOpen).toEqual([{ rule: expect.any(String), reason: expect.stringContaining(error) }]);
  });

  it('calls past our limits (16 in one evaluation, 4 rounds that wait on each other) are the rule error, named as a limit', async () => {
    const many = await verdictOf(
      vpol(
        `[${Array.from({ length: 17 }, (_, i) => i).join(', ')}].all(i, ${client()}.Get("${origin}/teams/web?i=" + string(i)).owner == "team-web")`,
      ),
      pod('ghcr.io/web:1'),
    );
    expect(many.allowed).toBe(false);
    expect(many.status?.message).toContain(
      "more than 16 HTTP calls in one evaluation (a limit of Portcullis: the rule's failure policy decides)",
    );
    expect(seen).toHaveLength(16);
    const chain = (depth: number) =>
      Array.from({ length: depth }, (_, i) => ({
        name: `link${i}`,
        expression: `${client()}.Get("${origin}" + ${i === 0 ? '"/chain/0"' : `variables.link${i - 1}.next`})`,
      }));
    const within = await verdictOf(vpol(`variables.link3.next == "/chain/4"`, 'Fail', chain(4)), pod('ghcr.io/web:1'));
    expect(within.allowed).toBe(true);
    const beyond = await verdictOf(vpol(`variables.link4.next == "/chain/5"`, 'Fail', chain(5)), pod('ghcr.io/web:1'));
    expect(beyond.allowed).toBe(false);
    expect(beyond.status?.message).toContain(
      'the rule asked for calls in more than 4 rounds, each waiting for the last (a limit of Portcullis',
    );
  });

  it("a service that does not answer: the rule error once the request's deadline passes, the failure policy deciding", async () => {
    const { parseRulesDocument, celPolicy, evaluateRules, WorkDeadline } = functions;
    const parsed = parseRulesDocument(celPolicy, vpol(`${client()}.Get("${origin}/hang").size() > 0`));
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    const started = performance.now();
    const outcome = await evaluateRules(celPolicy, parsed.document, admissionReviewFor(pod('ghcr.io/web:1')).request as never, {
      now: new Date(),
      deadline: new WorkDeadline(300),
    });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(outcome.verdict.allowed).toBe(false);
    expect(outcome.verdict.status?.message).toContain("/hang: the request's deadline passed");
  });

  it("a POST behind a call whose answer makes it unneeded is never sent, as in Kyverno's evaluation", async () => {
    const text = vpol(`!${client()}.Get("${origin}/flag").enabled || ${client()}.Post("${origin}/review", {"image": "x"}).approved`);
    expect((await verdictOf(text, pod('ghcr.io/web:1'))).allowed).toBe(true);
    expect(seen.map(({ method, url }) => `${method} ${url}`)).toEqual(['GET /flag']);
  });

  it('the library reached other than as http.Get(…) still calls out, and its answer is not kept as the first run left it', async () => {
    const text = vpol(`dyn(${client()}).Get("${origin}/teams/web").owner == "team-web"`);
    expect(functions.refusalOf(text)).toBeUndefined();
    expect((await verdictOf(text, pod('ghcr.io/web:1'))).allowed).toBe(true);
    expect(seen.map(({ url }) => url)).toEqual(['/teams/web']);
  });

  it('a header that would steer the call (Host) is the rule error, and nothing is sent', async () => {
    const verdict = await verdictOf(
      vpol(`${client()}.Get("${origin}/registries", {"Host": "admin.internal"}).allowed.size() > 0`),
      pod('ghcr.io/web:1'),
    );
    expect(verdict.allowed).toBe(false);
    expect(verdict.status?.message).toContain("the Host header is not a policy's to set");
    expect(seen).toEqual([]);
  });

  it('a host the deployment does not name is never called: the rule error says so', async () => {
    const verdict = await verdictOf(vpol(`${client()}.Get("https://127.0.0.1:1/registries").allowed.size() > 0`), pod('ghcr.io/web:1'));
    expect(verdict.allowed).toBe(false);
    expect(verdict.status?.message).toContain('127.0.0.1:1 is not a host the deployment allows calls to (HTTP_CALL_HOSTS)');
    const credentials = await verdictOf(
      vpol(`${client()}.Get("https://user:pw@${new URL(origin).host}/registries").allowed.size() > 0`),
      pod('ghcr.io/web:1'),
    );
    expect(credentials.status?.message).toContain('a URL may not carry credentials');
    const plain = await verdictOf(
      vpol(`${client()}.Get("http://${new URL(origin).host}/registries").allowed.size() > 0`),
      pod('ghcr.io/web:1'),
    );
    expect(plain.status?.message).toContain('calls are made over HTTPS only');
    expect(seen).toEqual([]);
  });

  it('without the service CA, the call is not trusted: the rule error, no answer read', async () => {
    const verdict = await verdictOf(vpol(`http.Get("${origin}/registries").allowed.size() > 0`), pod('ghcr.io/web:1'));
    expect(verdict.allowed).toBe(false);
    expect(verdict.status?.message).toContain('/registries: no answer');
  });

  it('on the packaged cel function (the zip, imported as Lambda would), the calls are made and their answers decide', async () => {
    const text = vpol(
      `object.spec.containers.all(c, ${client()}.Get("${origin}/registries").allowed.exists(r, c.image.startsWith(r + "/")))`,
    );
    const { handler } = await packagedWithRules('cel', text, { HTTP_CALL_HOSTS: new URL(origin).host });
    const admitted = (await invoke(handler, eventFor(pod('ghcr.io/web:1')))).body.response;
    expect(admitted.allowed, JSON.stringify(admitted)).toBe(true);
    const denied = (await invoke(handler, eventFor(pod('docker.io/web:1')))).body.response;
    expect(denied.allowed).toBe(false);
    expect(denied.status.message).toContain('refused by the service');
    expect(seen.map(({ url }) => url)).toEqual(['/registries', '/registries']);
  });

  it('a deployment setting with an entry that is not a host or host:port: no call is made, every rule that calls says why', async () => {
    const text = vpol(`${client()}.Get("${origin}/registries").allowed.size() > 0`);
    const { handler } = await packagedWithRules('cel', text, { HTTP_CALL_HOSTS: `${new URL(origin).host},https://typo.example.com/` });
    const denied = (await invoke(handler, eventFor(pod('ghcr.io/web:1')))).body.response;
    expect(denied.allowed).toBe(false);
    expect(denied.status.message).toContain(
      `the deployment's HTTP_CALL_HOSTS has "https://typo.example.com/", which is not a host or host:port: no call is made until it is fixed`,
    );
    expect(seen).toEqual([]);
  });

  it('a MutatingPolicy in the mutations function reads an answer into its patch', async () => {
    const text = JSON.stringify({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'MutatingPolicy',
      metadata: { name: 'owner-label' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
        mutations: [
          {
            patchType: 'ApplyConfiguration',
            applyConfiguration: {
              expression: `Object{metadata: Object.metadata{labels: {"owner": ${client()}.Get("${origin}/teams/web").owner}}}`,
            },
          },
        ],
      },
    });
    const { parseRulesDocument, mutationsPolicy, mutateRules } = functions;
    const parsed = parseRulesDocument(mutationsPolicy, text);
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    const request = admissionReviewFor(pod('ghcr.io/web:1')).request as never;
    const outcome = await mutateRules(mutationsPolicy, parsed.document, request, { now: new Date() });
    expect(JSON.parse(Buffer.from(outcome.verdict.patch!, 'base64').toString('utf8'))).toEqual([
      { op: 'add', path: '/metadata/labels', value: { owner: 'team-web' } },
    ]);
  });
});
