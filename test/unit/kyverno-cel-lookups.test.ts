// Kyverno CEL's http and globalContext libraries: refused at upload (nothing on the request path may reach a
// service or a global context cache), and answered in `policy test` by the suite's apiCallResponses and
// globalContextEntries as Kyverno's CLI answers them: the mock's whole response by method and URL (a mock
// naming no method answers any), an unknown entry null, a missing projection an error, no mock an error.
import '../helpers/engines.js';
import { describe, expect, it } from 'vitest';
import { runKyvernoTest } from '../../infra/policy-tests/kyverno-test.js';
import { refusalOf } from '../helpers/cel-verdict.js';
import { SUITE_LIMITS as LIMITS, writeSuite } from '../helpers/kyverno-suite.js';

const vpol = (expression: string) => `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: p}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations:
    - expression: ${JSON.stringify(expression)}
      message: denied
`;

const POD = 'apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: default}\nspec: {containers: [{name: c, image: nginx}]}\n';

async function outcome(expression: string, mocks: string, expected = 'pass') {
  const file = writeSuite('kyverno-cel-lookups-', {
    'policy.yaml': vpol(expression),
    'pod.yaml': POD,
    'kyverno-test.yaml': `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
resources: [pod.yaml]
${mocks}
results:
  - {isValidatingPolicy: true, policy: p, kind: Pod, resources: [web], result: ${expected}}
`,
  });
  const [judged] = await runKyvernoTest(file, LIMITS);
  return judged!;
}

const HTTP_MOCKS = `apiCallResponses:
  - {url: "https://authz.example.com/check", method: POST, response: {statusCode: 200, body: {allowed: false}}}
  - {url: "https://authz.example.com/check", response: {statusCode: 200, body: {allowed: true}}}
  - {url: "https://authz.example.com/down", method: GET, response: {statusCode: 503, body: {allowed: true}}}`;

const GLOBAL_MOCKS = `globalContextEntries:
  - name: deployments
    data: [{name: a}, {name: b}]
  - name: teams
    data: {owners: [x], size: 3}
    projections: [{name: owners, path: owners}]`;

describe("Kyverno CEL's http and globalContext", () => {
  it('are refused at upload, with the reason', () => {
    expect(refusalOf(vpol('http.Get("https://svc.example.com/a").allowed'))).toMatch(
      /http\.Get calls the network \(a deployment allows it to the hosts its httpCallHosts parameter names\)/,
    );
    expect(refusalOf(vpol('http.Post("https://svc.example.com/a", {}).allowed'))).toMatch(/http\.Post calls the network/);
    expect(refusalOf(vpol('dyn(http).Get("https://svc.example.com/a").allowed'))).toMatch(/Kyverno's http library calls the network/);
    expect(refusalOf(vpol('size(globalContext.Get("deployments", "")) > 0'))).toMatch(/globalContext\.Get reads cached cluster data/);
    expect(refusalOf(vpol('size(globalContext.get("deployments", "")) > 0'))).toMatch(/globalContext\.get reads cached cluster data/);
  });

  it("answer http.Post by method and URL first, and http.Get from a mock naming no method, with the mock's whole response", async () => {
    expect(
      await outcome('http.Post("https://authz.example.com/check", {"name": object.metadata.name}).body.allowed', HTTP_MOCKS, 'fail'),
    ).toMatchObject({ status: 'passed' });
    expect(await outcome('http.Get("https://authz.example.com/check").body.allowed', HTTP_MOCKS)).toMatchObject({ status: 'passed' });
    // The status is handed over with the body, not judged, as Kyverno's CLI hands a mock over.
    expect(await outcome('http.Get("https://authz.example.com/down").statusCode == 503', HTTP_MOCKS)).toMatchObject({ status: 'passed' });
  });

  it('make a call no mock answers the rule error, naming the call', async () => {
    const judged = await outcome('http.Get("https://other.example.com/").body.allowed', HTTP_MOCKS);
    expect(judged.status).toBe('failed');
    expect(judged.detail).toMatch(/got: +error[\s\S]*no apiCallResponses entry answers GET https:\/\/other\.example\.com\//);
  });

  it('answer globalContext.Get with the whole entry, one projection, or null for an entry the suite does not name', async () => {
    expect(await outcome('size(globalContext.Get("deployments", "")) == 2', GLOBAL_MOCKS)).toMatchObject({ status: 'passed' });
    expect(await outcome('globalContext.Get("teams", "owners") == ["x"]', GLOBAL_MOCKS)).toMatchObject({ status: 'passed' });
    expect(await outcome('globalContext.Get("unknown", "") == null', GLOBAL_MOCKS)).toMatchObject({ status: 'passed' });
    const missing = await outcome('globalContext.Get("teams", "size") == 3', GLOBAL_MOCKS);
    expect(missing.detail).toMatch(/got: +error[\s\S]*projection "size" not found in global context entry "teams"/);
  });
});
