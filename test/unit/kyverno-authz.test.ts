// ValidatingPolicies in Kyverno's authorization modes, as `policy test` judges a suite's envoyPayloads and
// httpPayloads with kyverno-authz's semantics: the first validation giving a response decides (allowed is
// pass, denied fail), no response or a false matchCondition is skip, an error is error under Fail and skip
// under Ignore; Envoy's CheckRequest reads as the proto message (defaults, proto names, unknown fields
// refused); jwt.Decode verifies HMAC tokens and says whether their time claims hold.
import '../helpers/engines.js';
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runKyvernoTest } from '../../infra/policy-tests/kyverno-test.js';
import { SUITE_LIMITS as LIMITS, writeSuite } from '../helpers/kyverno-suite.js';

const policy = (mode: string, spec: string) => `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: p}
spec:
  evaluation: {mode: ${mode}}
${spec}`;

async function judge(mode: 'Envoy' | 'HTTP', spec: string, request: unknown, expected: string) {
  const field = mode === 'Envoy' ? 'envoyPayloads' : 'httpPayloads';
  const file = writeSuite('kyverno-authz-', {
    'policy.yaml': policy(mode, spec),
    'request.json': JSON.stringify(request),
    'kyverno-test.yaml': `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
${field}: [request.json]
results: [{kind: "", policy: p, result: ${expected}}]
`,
  });
  const [outcome] = await runKyvernoTest(file, LIMITS);
  return outcome!;
}

const envoyRequest = (headers: Record<string, string>) => ({ attributes: { request: { http: { method: 'GET', path: '/a', headers } } } });

const token = (claims: Record<string, unknown>, key = 'secret', alg = 'HS256') => {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signed = `${encode({ alg, typ: 'JWT' })}.${encode(claims)}`;
  const hash = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' }[alg] ?? 'sha256';
  return `${signed}.${createHmac(hash, key).update(signed).digest('base64url')}`;
};

const JWT_POLICY = `  variables:
    - name: parts
      expression: object.attributes.request.http.headers[?"authorization"].orValue("").split(" ")
    - name: token
      expression: 'size(variables.parts) == 2 ? jwt.Decode(variables.parts[1], "secret") : null'
  validations:
    - expression: 'variables.token == null || !variables.token.Valid ? envoy.Denied(401).Response() : null'
    - expression: 'variables.token.Claims.?role.orValue("") == "admin" ? envoy.Allowed().Response() : envoy.Denied(403).WithBody("no").Response()'
`;

describe('Envoy mode', () => {
  const inAnHour = LIMITS.now.getTime() / 1000 + 3600;

  it('the first validation giving a response decides: allowed is pass, denied fail', async () => {
    const admin = envoyRequest({ authorization: `Bearer ${token({ role: 'admin', exp: inAnHour })}` });
    expect(await judge('Envoy', JWT_POLICY, admin, 'pass')).toMatchObject({ status: 'passed' });
    const guest = envoyRequest({ authorization: `Bearer ${token({ role: 'guest', exp: inAnHour })}` });
    const denied = await judge('Envoy', JWT_POLICY, guest, 'pass');
    expect(denied.detail).toMatch(/got: +fail[\s\S]*status code 403/);
  });

  it('an expired token is not Valid; a token signed with another key is an error', async () => {
    const expired = envoyRequest({ authorization: `Bearer ${token({ role: 'admin', exp: inAnHour - 7200 })}` });
    expect((await judge('Envoy', JWT_POLICY, expired, 'pass')).detail).toMatch(/got: +fail[\s\S]*status code 401/);
    const forged = envoyRequest({ authorization: `Bearer ${token({ role: 'admin' }, 'other')}` });
    expect((await judge('Envoy', JWT_POLICY, forged, 'pass')).detail).toMatch(/got: +error[\s\S]*signature does not verify/);
  });

  it('no response, or a matchCondition that does not hold, is skip; an error under Ignore is skip too', async () => {
    expect(await judge('Envoy', '  validations: [{expression: "null"}]\n', envoyRequest({}), 'skip')).toMatchObject({ status: 'passed' });
    const unmatched =
      '  matchConditions: [{name: post, expression: object.attributes.request.http.method == "POST"}]\n  validations: [{expression: envoy.Allowed().Response()}]\n';
    expect(await judge('Envoy', unmatched, envoyRequest({}), 'skip')).toMatchObject({ status: 'passed' });
    const failing =
      "  failurePolicy: Ignore\n  validations: [{expression: \"object.attributes.request.http.headers['x'] == 'y' ? null : null\"}]\n";
    expect(await judge('Envoy', failing, envoyRequest({}), 'skip')).toMatchObject({ status: 'passed' });
    expect(await judge('Envoy', failing.replace('Ignore', 'Fail'), envoyRequest({}), 'error')).toMatchObject({ status: 'passed' });
  });

  it("reads the request as Envoy's proto message: unset fields have defaults, fields answer under proto names", async () => {
    const spec =
      '  validations: [{expression: \'object.attributes.request.http.body == "" && object.attributes.context_extensions["zone"] == "eu" ? envoy.Allowed().Response().WithMessage("ok") : envoy.Denied(403).Response()\'}]\n';
    expect(await judge('Envoy', spec, { attributes: { contextExtensions: { zone: 'eu' } } }, 'pass')).toMatchObject({ status: 'passed' });
    const unknown = await judge('Envoy', spec, { attributes: { requests: {} } }, 'pass');
    expect(unknown.detail).toMatch(/envoyPayloads request\.json: attributes\.requests: not a field of Envoy's CheckRequest/);
  });

  it('a validation giving anything but a response or null is an error', async () => {
    expect((await judge('Envoy', '  validations: [{expression: "true"}]\n', envoyRequest({}), 'pass')).detail).toMatch(
      /got: +error[\s\S]*must give envoy's Response\(\) or null/,
    );
  });
});

describe('HTTP mode', () => {
  const spec = `  validations:
    - expression: 'object.attributes.Header("x-team") == ["platform"] ? http.Allowed().Response() : http.Denied("not the platform team").Response()'
`;

  it("reads headers by name, as Go's MIME headers, and answers allowed or denied with the reason", async () => {
    const request = (team: string) => ({ attributes: { method: 'GET', path: '/', header: { 'X-Team': [team] } } });
    expect(await judge('HTTP', spec, request('platform'), 'pass')).toMatchObject({ status: 'passed' });
    expect((await judge('HTTP', spec, request('web'), 'pass')).detail).toMatch(/got: +fail[\s\S]*reason: not the platform team/);
  });
});
