// ValidatingAdmissionPolicy semantics on the packaged cel function, each of which used to turn a denial into a
// policy error and so an admission under failurePolicy Ignore: a failing messageExpression, an error in one
// validation beside a violated one, and a variable that a matchCondition makes irrelevant.
import { afterAll, describe, expect, it } from 'vitest';
import { eventFor, invoke } from '../helpers/invoke.js';
import { packagedWithRules, removeRulesFolders } from '../helpers/packaged-with-rules.js';

afterAll(removeRulesFolders);

const deployment = (replicas: number) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas, template: { spec: { containers: [{ name: 'c', image: 'nginx:1' }] } } } });
const rules = (parameters: unknown) => `rules: [{ name: r, match: { kinds: [Deployment], operations: [CREATE, UPDATE] }, parameters: ${JSON.stringify(parameters)} }]`;
const decide = async (parameters: unknown, replicas = 3) => (await invoke((await packagedWithRules('cel', rules(parameters))).handler, eventFor(deployment(replicas)))).body.response;

describe('the packaged cel function decides where it used to fail open', () => {
  it('a messageExpression that fails falls back to message: denied', async () => {
    const response = await decide({ validations: [{ expression: 'object.spec.replicas <= 2', message: 'at most 2 replicas', messageExpression: "'replicas: ' + object.spec.missing" }] });
    expect(response).toMatchObject({ allowed: false, status: { code: 403, message: 'cel: rule r: at most 2 replicas' } });
  });

  it('an error in one validation does not hide another one’s violation: denied', async () => {
    const response = await decide({ validations: [{ expression: 'object.spec.paused == false' }, { expression: 'object.spec.replicas <= 2', message: 'at most 2 replicas' }] });
    expect(response).toMatchObject({ allowed: false, status: { code: 403, message: 'cel: rule r: at most 2 replicas' } });
  });

  it('a variable only a matching request needs is not evaluated for the others: decided, not failed open', async () => {
    const response = await decide({
      variables: [{ name: 'paused', expression: 'object.spec.paused' }],
      matchConditions: [{ name: 'updates-only', expression: "request.operation == 'UPDATE'" }],
      validations: [{ expression: 'variables.paused == false' }],
    });
    expect(response).toMatchObject({ allowed: true, auditAnnotations: { decision: 'allowed' } });
    expect(response.warnings).toBeUndefined();
  });
});
