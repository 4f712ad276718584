// The shared stack, driven through a real handler with rules in a real directory: HTTP errors, both
// AdmissionReview versions, deadlines, failure policies, audit mode and the apiserver's limits.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../../functions/admission/config.js';
import { createAdmissionHandler } from '../../functions/admission/create-admission-handler.js';
import { trustedRegistryPolicy } from '../../functions/trusted-registry/policy.js';
import { contentVersion } from '../../functions/admission/rules/rules-source.js';
import { admissionReviewFor, httpApiEvent } from '../../infra/admission-event.js';
import { eventFor, fixture, type Handler, invoke, lambdaContext, podManifest } from '../helpers/invoke.js';
import { rulesFolderPerTest } from '../helpers/rules-folder.js';
import { testPolicy } from '../helpers/test-policy.js';

const rules = rulesFolderPerTest();
const writeRules = rules.write;

/** TTL 0 unless `env` says otherwise: the rules file is checked on every request, so an edit is seen on the next. */
function handlerFor(policy = testPolicy as never, env: Record<string, string> = {}): Handler {
  return createAdmissionHandler(policy, {
    config: configFromEnv({ RULES_DIR: rules.dir(), RULES_TTL_SECONDS: '0', ...env }),
  }) as unknown as Handler;
}

const pod = podManifest({ app: 'nginx:1.21.1' });
const SEED_RULES = 'rules: [{ name: seed, parameters: { allowedRegistries: ["192.168.64.1"], forbiddenTags: [latest] } }]';

describe('HTTP errors: JSON that names the problem, never a 5xx or a stack', () => {
  const handler = () => handlerFor(trustedRegistryPolicy as never);
  const valid = () => eventFor(pod);
  const withBody = (body: string) => httpApiEvent(body, {});

  it.each([
    [
      'GET → 405',
      () => ({ ...valid(), requestContext: { ...valid().requestContext, http: { ...valid().requestContext.http, method: 'GET' } } }),
      405,
      'method GET is not allowed',
    ],
    [
      'text/plain → 415',
      () => ({ ...valid(), headers: { 'content-type': 'text/plain' } }),
      415,
      'content type text/plain is not supported',
    ],
    ['no content type → 415', () => ({ ...valid(), headers: {} }), 415, 'content type (none)'],
    ['over 8 MiB → 413', () => withBody(`{"pad":"${'x'.repeat(8 * 1024 * 1024)}"}`), 413, 'larger than the 8388608 bytes allowed'],
    ['empty body → 400', () => withBody(''), 400, 'body is empty'],
    ['invalid JSON → 400', () => fixture('trusted-registry', 'malformed-body.json'), 400, 'body is not valid JSON'],
    ['not an object → 400', () => withBody('[1,2]'), 400, 'not a valid AdmissionReview: expected object, received array'],
    [
      'wrong apiVersion → 400',
      () => withBody(JSON.stringify({ ...admissionReviewFor(pod), apiVersion: 'admission.k8s.io/v2' })),
      400,
      'apiVersion:',
    ],
    ['wrong kind → 400', () => withBody(JSON.stringify({ ...admissionReviewFor(pod), kind: 'Pod' })), 400, 'kind:'],
    [
      'no uid → 400',
      () => withBody(JSON.stringify({ ...admissionReviewFor(pod), request: { ...admissionReviewFor(pod).request, uid: undefined } })),
      400,
      'request.uid: required field is missing',
    ],
    [
      'bad operation → 400',
      () => withBody(JSON.stringify({ ...admissionReviewFor(pod), request: { ...admissionReviewFor(pod).request, operation: 'PATCH' } })),
      400,
      'request.operation:',
    ],
    ['not an API Gateway event → 400', () => ({ hello: 'world' }), 400, 'not an API Gateway'],
  ])('%s', async (_case, makeEvent, status, message) => {
    writeRules('trusted-registry', SEED_RULES);
    const answer = await invoke(handler(), makeEvent());
    expect(answer.statusCode).toBe(status);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.body.error).toContain(message);
    expect(JSON.stringify(answer.body)).not.toMatch(/\n\s+at /);
  });

  it('405 says which method to use', async () => {
    const event = valid();
    event.requestContext.http.method = 'PUT';
    expect((await invoke(handler(), event)).headers.Allow).toBe('POST');
  });
});

describe('AdmissionReview versions and API Gateway payloads', () => {
  it.each([['v1'], ['v1beta1']] as const)('%s: answers with the request’s apiVersion and uid', async (version) => {
    writeRules('trusted-registry', SEED_RULES);
    const event = eventFor(pod, { admissionVersion: version });
    const uid = JSON.parse(event.body!).request.uid;
    const answer = await invoke(handlerFor(trustedRegistryPolicy as never), event);
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toMatchObject({
      apiVersion: `admission.k8s.io/${version}`,
      kind: 'AdmissionReview',
      response: { uid, allowed: false },
    });
    expect(answer.body.response.status).toMatchObject({ code: 403, reason: 'Forbidden' });
    expect(answer.body.response.status.message).toContain('container "app" image "nginx:1.21.1"');
    expect(answer.body.response).not.toHaveProperty('patch');
    expect(answer.body.response).not.toHaveProperty('patchType');
  });

  it('REST API (payload 1.0) with a base64 body', async () => {
    writeRules('trusted-registry', SEED_RULES);
    const body = JSON.stringify(admissionReviewFor(podManifest({ app: '192.168.64.1:5000/nginx:1' })));
    const event = {
      resource: '/validate/trusted-registry',
      path: '/validate/trusted-registry',
      httpMethod: 'POST',
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
      multiValueHeaders: {},
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      stageVariables: null,
      requestContext: { httpMethod: 'POST', requestTimeEpoch: Date.now() },
      body: Buffer.from(body).toString('base64'),
      isBase64Encoded: true,
    };
    const answer = await invoke(handlerFor(trustedRegistryPolicy as never), event);
    expect(answer.body.response.allowed).toBe(true);
  });

  it('HTTP API base64 body', async () => {
    writeRules('trusted-registry', SEED_RULES);
    const answer = await invoke(handlerFor(trustedRegistryPolicy as never), fixture('trusted-registry', 'pod-bad-tag-base64.json'));
    expect(answer.body.response.status.message).toContain('forbidden tag "latest"');
  });
});

describe('deadline and failure policy', () => {
  const rules = (behaviour: string, extra = '') => `${extra}rules: [{ name: r, parameters: { behaviour: ${behaviour}, delayMs: 5000 } }]`;

  it('a policy that never settles is answered by the deadline, fail-open by default', async () => {
    writeRules('test-policy', rules('never-settle'));
    const started = Date.now();
    const answer = await invoke(handlerFor(undefined, { POLICY_TIMEOUT_MS: '150' }), eventFor(pod));
    expect(Date.now() - started).toBeLessThan(1500);
    expect(answer.body.response.allowed).toBe(true);
    expect(answer.body.response.warnings).toEqual([
      'portcullis: test-policy was not evaluated (deadline of 150 ms exceeded); admitted (fail-open)',
    ]);
    expect(answer.body.response.auditAnnotations).toMatchObject({ 'failed-open': 'deadline of 150 ms exceeded', decision: 'allowed' });
  });

  it('the document’s failurePolicy Fail denies with status 500 and says why', async () => {
    writeRules('test-policy', rules('never-settle', 'failurePolicy: Fail\n'));
    const answer = await invoke(handlerFor(undefined, { POLICY_TIMEOUT_MS: '100' }), eventFor(pod));
    expect(answer.statusCode).toBe(200);
    expect(answer.body.response).toMatchObject({
      allowed: false,
      status: { code: 500, message: expect.stringContaining('deadline of 100 ms exceeded') },
    });
  });

  it('the apiserver’s ?timeout= counts from when the gateway received the request', async () => {
    writeRules('test-policy', rules('slow'));
    const event = eventFor(pod, {}, '1s');
    event.requestContext.timeEpoch = Date.now() - 600; // a cold start already spent 600 ms
    const started = Date.now();
    const answer = await invoke(handlerFor(undefined, { POLICY_TIMEOUT_MS: '5000' }), event);
    expect(Date.now() - started).toBeLessThan(1000 - 600);
    // 1000 ms timeout - 600 ms already gone - 250 ms margin, less the few ms this test itself took
    expect(answer.body.response.warnings[0]).toMatch(/deadline of (1[0-4]\d|150) ms exceeded/);
  });

  it('Lambda’s remaining time caps the budget', async () => {
    writeRules('test-policy', rules('never-settle'));
    const answer = await invoke(handlerFor(undefined, { POLICY_TIMEOUT_MS: '5000' }), eventFor(pod), lambdaContext(450));
    // 450 ms left - 250 ms margin, less the few ms this test itself took
    expect(answer.body.response.warnings[0]).toMatch(/deadline of (1[5-9]\d|200) ms exceeded/);
  });

  it('a throwing policy fails open with its message and no stack', async () => {
    writeRules('test-policy', rules('throw'));
    const answer = await invoke(handlerFor(), eventFor(pod));
    expect(answer.body.response.allowed).toBe(true);
    expect(answer.body.response.auditAnnotations['failed-open']).toBe('policy error: cannot read properties of undefined');
    expect(JSON.stringify(answer.body)).not.toContain('.ts:');
  });

  it('a throwing policy fails closed under FAILURE_POLICY=Fail when the document says nothing… but the document decides', async () => {
    writeRules('test-policy', rules('throw'));
    const answer = await invoke(handlerFor(undefined, { FAILURE_POLICY: 'Fail' }), eventFor(pod));
    expect(answer.body.response.allowed).toBe(true); // the valid document's default failurePolicy (Ignore) wins
  });

  it.each([
    ['Ignore', true],
    ['Fail', false],
  ])('missing rules follow FAILURE_POLICY=%s', async (failurePolicy, allowed) => {
    const answer = await invoke(handlerFor(undefined, { FAILURE_POLICY: failurePolicy }), eventFor(pod));
    expect(answer.body.response.allowed).toBe(allowed);
    expect(JSON.stringify(answer.body.response)).toContain('rules unavailable: rules file');
  });

  it('an invalid document follows its own failurePolicy and names the bad field', async () => {
    writeRules('test-policy', 'failurePolicy: Fail\nrules: [{ name: r, parameters: { behaviour: dance } }]');
    const answer = await invoke(handlerFor(), eventFor(pod));
    expect(answer.body.response.allowed).toBe(false);
    expect(answer.body.response.status.message).toContain('invalid rules: rules[0].parameters.behaviour');
  });

  it('an invalid document without a failurePolicy follows FAILURE_POLICY', async () => {
    writeRules('test-policy', 'rules: 3');
    const answer = await invoke(handlerFor(undefined, { FAILURE_POLICY: 'Fail' }), eventFor(pod));
    expect(answer.body.response).toMatchObject({ allowed: false, status: { code: 500 } });
  });

  it('an invalid environment is refused at init', () => {
    expect(() => configFromEnv({ FAILURE_POLICY: 'Sometimes' })).toThrow(/FAILURE_POLICY/);
    expect(() => configFromEnv({ POLICY_TIMEOUT_MS: '-5' })).toThrow(/POLICY_TIMEOUT_MS/);
  });
});

describe('rules: match, modes, reload', () => {
  it('enforce denies listing every violation; audit admits with a warning and an annotation per violation', async () => {
    writeRules(
      'test-policy',
      `rules:
  - { name: hard, parameters: { behaviour: deny, violations: [one, two] } }
  - { name: soft, mode: audit, parameters: { behaviour: deny, violations: [three] } }`,
    );
    const answer = await invoke(handlerFor(), eventFor(pod));
    expect(answer.body.response).toMatchObject({
      allowed: false,
      status: { message: 'test-policy: rule hard: one; two' },
      warnings: ['test-policy (audit, rule soft): three'],
      auditAnnotations: {
        'audit-soft-1': 'three',
        decision: 'denied',
        rule: 'hard',
        'rules-version': expect.stringMatching(/^fnv1a:[0-9a-f]{8}-\d+$/),
      },
    });
  });

  it.each([
    ['excludedNamespaces', { excludedNamespaces: ['kube-*'] }, { namespace: 'kube-system' }, true],
    ['namespaces', { namespaces: ['prod-*'] }, { namespace: 'dev' }, true],
    ['namespaces match', { namespaces: ['prod-*'] }, { namespace: 'prod-eu' }, false],
    [
      'excludedUsers',
      { excludedUsers: ['system:serviceaccount:kube-system:*'] },
      { username: 'system:serviceaccount:kube-system:rs-controller' },
      true,
    ],
    ['excludedGroups', { excludedGroups: ['system:masters'] }, { groups: ['system:masters'] }, true],
    ['kinds', { kinds: ['Deployment'] }, {}, true],
    ['operations default skips DELETE', {}, { operation: 'DELETE' as const }, true],
    ['labelSelector', { labelSelector: { matchLabels: { app: 'other' } } }, {}, true],
    ['labelSelector match', { labelSelector: { matchLabels: { app: 'test' } } }, {}, false],
  ])('match %s', async (_case, match, options, allowed) => {
    writeRules('test-policy', `rules: [{ name: r, match: ${JSON.stringify(match)}, parameters: { behaviour: deny } }]`);
    const answer = await invoke(handlerFor(), eventFor(pod, options));
    expect(answer.body.response.allowed).toBe(allowed);
  });

  it('an edited rules file is picked up on the next request', async () => {
    writeRules('test-policy', 'rules: [{ name: r, parameters: { behaviour: deny } }]');
    const handler = handlerFor();
    expect((await invoke(handler, eventFor(pod))).body.response.allowed).toBe(false);
    writeRules('test-policy', 'rules: [{ name: r, parameters: { behaviour: allow } }] # edited');
    expect((await invoke(handler, eventFor(pod))).body.response.allowed).toBe(true);
  });

  it('within RULES_TTL_SECONDS the file is not checked; after it, an edit is picked up', async () => {
    writeRules('test-policy', 'rules: [{ name: r, parameters: { behaviour: deny } }]');
    const handler = handlerFor(undefined, { RULES_TTL_SECONDS: '0.3' });
    expect((await invoke(handler, eventFor(pod))).body.response.allowed).toBe(false);
    rmSync(join(rules.dir(), 'test-policy.yaml')); // not even its absence is noticed within the TTL
    expect((await invoke(handler, eventFor(pod))).body.response.allowed).toBe(false);
    writeRules('test-policy', 'rules: [{ name: r, parameters: { behaviour: allow } }] # edited');
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect((await invoke(handler, eventFor(pod))).body.response.allowed).toBe(true);
  });

  it('the version of a file is its FNV-1a hash and length: the same for the same bytes, new for any change', async () => {
    expect(contentVersion(new TextEncoder().encode('hello'))).toBe('fnv1a:4f9f2cab-5'); // FNV-1a's published value for "hello"
    expect(contentVersion(new Uint8Array())).toBe('fnv1a:811c9dc5-0');
    expect(contentVersion(new TextEncoder().encode('foobar'))).toBe('fnv1a:bf9cf968-6'); // and for "foobar"
    expect(contentVersion(new TextEncoder().encode('foob'))).toBe('fnv1a:3f5076ef-4');
    writeRules('test-policy', 'rules: [{ name: r, parameters: { behaviour: deny } }]');
    const first = (await invoke(handlerFor(), eventFor(pod))).body.response.auditAnnotations['rules-version'];
    expect((await invoke(handlerFor(), eventFor(pod))).body.response.auditAnnotations['rules-version']).toBe(first);
    writeRules('test-policy', 'rules: [{ name: s, parameters: { behaviour: deny } }]'); // one byte, same length
    expect((await invoke(handlerFor(), eventFor(pod))).body.response.auditAnnotations['rules-version']).not.toBe(first);
  });

  it('an edit that breaks the document keeps the last good rules in force', async () => {
    writeRules('test-policy', 'rules: [{ name: r, parameters: { behaviour: deny } }]');
    const handler = handlerFor();
    const good = (await invoke(handler, eventFor(pod))).body.response;
    writeRules('test-policy', 'rules: [{ name: r, parameters: { behaviour: allow, extra: 1 } }]');
    const after = (await invoke(handler, eventFor(pod))).body.response;
    expect(after.allowed).toBe(false);
    expect(after.auditAnnotations['rules-version']).toBe(good.auditAnnotations['rules-version']);
  });

  it('rules: [] admits everything (a policy switched off on purpose)', async () => {
    writeRules('test-policy', 'rules: []');
    const answer = await invoke(handlerFor(), eventFor(pod));
    expect(answer.body.response).toMatchObject({ allowed: true, auditAnnotations: { decision: 'allowed' } });
    expect(answer.body.response.warnings).toBeUndefined();
  });
});

describe('the apiserver’s limits on warnings and audit annotations', () => {
  it('warnings are one printable line under 120 characters', async () => {
    writeRules(
      'test-policy',
      `rules: [{ name: r, mode: audit, parameters: { behaviour: deny, violations: ["line one\\nline\\ttwo ${'x'.repeat(200)}"] } }]`,
    );
    const { warnings } = (await invoke(handlerFor(), eventFor(pod))).body.response;
    expect(warnings).toHaveLength(1);
    expect(warnings[0].length).toBeLessThan(120);
    expect(warnings[0]).not.toMatch(/[\u0000-\u001f]/);
  });

  it('audit annotation keys have no slash, at most 63 characters, alphanumeric at both ends', async () => {
    writeRules('test-policy', `rules: [{ name: "team/${'very-long-'.repeat(10)}-", mode: audit, parameters: { behaviour: deny } }]`);
    const { auditAnnotations } = (await invoke(handlerFor(), eventFor(pod))).body.response;
    for (const key of Object.keys(auditAnnotations)) {
      expect(key).toMatch(/^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/);
    }
  });
});
