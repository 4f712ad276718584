// Rego on the packaged cel function is bounded as CEL and JMESPath are: Gatekeeper templates (Rego only)
// against large or hostile requests, each answered inside the deadline. Work within the budget is decided;
// work past it stops with an error that the constraint's failure policy (Gatekeeper's Ignore) resolves,
// counted and said in the `failed-open` annotation as every fail-safe path is.
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { answerInTime, packagedWithDeadline } from '../helpers/answer-in-time.js';
import { eventFor } from '../helpers/invoke.js';
import { removeRulesFolders } from '../helpers/packaged-with-rules.js';

afterAll(removeRulesFolders);

/** A Rego-only template of kind K8sTest whose violation rule is `body`, and a constraint on Pods. */
function bundle(body: string): string {
  const template = {
    apiVersion: 'templates.gatekeeper.sh/v1',
    kind: 'ConstraintTemplate',
    metadata: { name: 'k8stest' },
    spec: {
      crd: { spec: { names: { kind: 'K8sTest' } } },
      targets: [{ target: 'admission.k8s.gatekeeper.sh', rego: `package k8stest\n\nviolation[{"msg": msg}] {\n${body}\n}\n` }],
    },
  };
  const constraint = {
    apiVersion: 'constraints.gatekeeper.sh/v1beta1',
    kind: 'K8sTest',
    metadata: { name: 'test' },
    spec: { match: { kinds: [{ apiGroups: [''], kinds: ['Pod'] }] } },
  };
  return [template, constraint].map((document) => stringify(document)).join('---\n');
}

const pod = (count: number, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', ...extra },
  spec: { containers: Array.from({ length: count }, (_, index) => ({ name: `c${index}`, image: `registry.example.com/app:${index}` })) },
});

const packaged = (body: string) => packagedWithDeadline('cel', bundle(body));

describe('Rego under the cost budget and the deadline', () => {
  it('a comprehension over a Pod of 5,000 containers is decided', async () => {
    const handler = await packaged(
      '  bad := {c.name | c := input.review.object.spec.containers[_]; not startswith(c.image, "registry.example.com/")}\n  count(bad) == 0\n  msg := sprintf("%v containers", [count(input.review.object.spec.containers)])',
    );
    const response = await answerInTime(handler, eventFor(pod(5000)));
    expect(response).toMatchObject({ allowed: false, status: { message: '[test] 5000 containers' } });
    expect(response.auditAnnotations['failed-open']).toBeUndefined();
  });

  // A million cheap iterations come near the 1 s deadline on a loaded machine: with 3 s the budget is what
  // stops them, whatever the load.
  it('a cross product of two large arrays stops at the cost limit and fails open, saying so', async () => {
    const handler = await packagedWithDeadline(
      'cel',
      bundle(
        '  pairs := [[a, b] | a := input.review.object.spec.containers[_]; b := input.review.object.spec.containers[_]]\n  count(pairs) > 0\n  msg := "pairs"',
      ),
      3000,
    );
    const response = await answerInTime(handler, eventFor(pod(3000)), 3000);
    expect(response.allowed).toBe(true);
    expect(response.auditAnnotations['failed-open'], response.auditAnnotations['failed-open']).toMatch(
      /cost limit of 1000000 units exceeded/,
    );
  });

  it('a backtracking pattern on a long name is decided at once (RE2)', async () => {
    const handler = await packaged('  regex.match("^(a+)+$", input.review.object.metadata.name)\n  msg := "all a"');
    const response = await answerInTime(handler, eventFor({ ...pod(1), metadata: { name: `${'a'.repeat(5000)}!` } }));
    expect(response).toMatchObject({ allowed: true });
    expect(response.auditAnnotations['failed-open']).toBeUndefined();
  });

  it('a 1 MB string: matching is charged by its size, and repeated work over it stops at the cost limit', async () => {
    const big = 'x'.repeat(1_000_000);
    const once = await packaged('  regex.match("y", input.review.object.metadata.annotations.big)\n  msg := "y"');
    const decided = await answerInTime(once, eventFor(pod(1, { annotations: { big } })));
    expect(decided).toMatchObject({ allowed: true });
    expect(decided.auditAnnotations['failed-open']).toBeUndefined();
    const repeated = await packaged(
      '  n := count([i | some i in numbers.range(1, 200); regex.match(sprintf("y%d", [i]), input.review.object.metadata.annotations.big)])\n  n >= 0\n  msg := "y"',
    );
    const stopped = await answerInTime(repeated, eventFor(pod(1, { annotations: { big } })));
    expect(stopped.allowed).toBe(true);
    expect(stopped.auditAnnotations['failed-open'], stopped.auditAnnotations['failed-open']).toMatch(/cost limit/);
  });

  it('a request string doubled by concat, step after step, stops at the cost limit before it is built', async () => {
    const doublings = Array.from({ length: 14 }, (_, step) => `  s${step + 1} := concat("", [s${step}, s${step}])`);
    const handler = await packaged(
      ['  s0 := input.review.object.metadata.annotations.seed', ...doublings, '  count(s14) > 0', '  msg := "built"'].join('\n'),
    );
    const response = await answerInTime(handler, eventFor(pod(1, { annotations: { seed: 'x'.repeat(100_000) } })));
    expect(response.allowed).toBe(true);
    expect(response.auditAnnotations['failed-open'], response.auditAnnotations['failed-open']).toMatch(
      /cost limit of 1000000 units exceeded/,
    );
  });

  it('indexof_n over a 200,000-character annotation is decided in time (one pass)', async () => {
    const handler = await packaged(
      '  found := indexof_n(input.review.object.metadata.annotations.big, "ab")\n  count(found) > 3\n  msg := sprintf("%d found", [count(found)])',
    );
    const response = await answerInTime(handler, eventFor(pod(1, { annotations: { big: 'ab'.repeat(100_000) } })));
    expect(response).toMatchObject({ allowed: false, status: { message: '[test] 100000 found' } });
    expect(response.auditAnnotations['failed-open']).toBeUndefined();
  });

  // OPA has no limit on numbers.range: a limit of ours must stop the evaluation, never make the call undefined
  // (which `not` would read as true, turning a violation into none).
  it.each([
    ['a range past the budget', '  not numbers.range(1, 1000000000)', /cost limit of 1000000 units exceeded/],
    [
      'YAML with more aliases than the engine reads',
      `  not yaml.unmarshal(input.review.object.metadata.annotations.aliases)`,
      /engine limit/,
    ],
  ])("%s stops the evaluation, failing open by the constraint's policy, instead of flipping `not`", async (_, body, reason) => {
    const handler = await packaged(`${body}\n  msg := "limit"`);
    const aliases = ['a: &a [1]', ...Array.from({ length: 150 }, (_, index) => `b${index}: *a`)].join('\n');
    const response = await answerInTime(handler, eventFor(pod(1, { annotations: { aliases } })));
    expect(response.allowed).toBe(true);
    expect(response.auditAnnotations['failed-open'], response.auditAnnotations['failed-open']).toMatch(reason);
  });

  // graphql-js loads with the first rule that calls a GraphQL built-in (the cel function's cold path has none).
  it('a GraphQL query in an annotation is validated; one nested past the engine limit stops, instead of flipping `not`', async () => {
    const handler = await packaged(
      '  not graphql.is_valid(input.review.object.metadata.annotations.query, "type Query { pods(name: String!): Int }")\n  msg := "invalid query"',
    );
    const valid = await answerInTime(handler, eventFor(pod(1, { annotations: { query: '{ pods(name: "p") }' } })));
    expect(valid).toMatchObject({ allowed: true });
    expect(valid.auditAnnotations['failed-open']).toBeUndefined();
    const invalid = await answerInTime(handler, eventFor(pod(1, { annotations: { query: '{ pods }' } })));
    expect(invalid).toMatchObject({ allowed: false, status: { message: '[test] invalid query' } });
    const deep = `${'{ pods '.repeat(300)}${'}'.repeat(300)}`;
    const stopped = await answerInTime(handler, eventFor(pod(1, { annotations: { query: deep } })));
    expect(stopped.allowed).toBe(true);
    expect(stopped.auditAnnotations['failed-open'], stopped.auditAnnotations['failed-open']).toMatch(/nested more than 200 deep/);
  });
});
