// ValidatingAdmissionPolicy semantics on the packaged cel function, each of which used to turn a denial into a
// policy error and so an admission under failurePolicy Ignore: a failing messageExpression, an error in one
// validation beside a violated one, and a variable that a matchCondition makes irrelevant.
import { afterAll, describe, expect, it } from 'vitest';
import { eventFor, invoke } from '../helpers/invoke.js';
import { packagedWithRules, removeRulesFolders } from '../helpers/packaged-with-rules.js';

afterAll(removeRulesFolders);

const deployment = (replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: { replicas, template: { spec: { containers: [{ name: 'c', image: 'nginx:1' }] } } },
});
const rules = (parameters: unknown) =>
  `rules: [{ name: r, match: { kinds: [Deployment], operations: [CREATE, UPDATE] }, parameters: ${JSON.stringify(parameters)} }]`;
const decide = async (parameters: unknown, replicas = 3) =>
  (await invoke((await packagedWithRules('cel', rules(parameters))).handler, eventFor(deployment(replicas)))).body.response;

describe('the packaged cel function decides where it used to fail open', () => {
  it('a messageExpression that fails falls back to message: denied', async () => {
    const response = await decide({
      validations: [
        { expression: 'object.spec.replicas <= 2', message: 'at most 2 replicas', messageExpression: "'replicas: ' + object.spec.missing" },
      ],
    });
    expect(response).toMatchObject({ allowed: false, status: { code: 403, message: 'cel: rule r: at most 2 replicas' } });
  });

  it('an error in one validation does not hide another one’s violation: denied', async () => {
    const response = await decide({
      validations: [
        { expression: 'object.spec.paused == false' },
        { expression: 'object.spec.replicas <= 2', message: 'at most 2 replicas' },
      ],
    });
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

describe('autogen: rules written for Pods judge the pod templates of controllers', () => {
  const podSpec = { containers: [{ name: 'c', image: 'nginx:latest' }] };
  const controllers = {
    Deployment: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { template: { spec: podSpec } } },
    CronJob: {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'nightly' },
      spec: { schedule: '@daily', jobTemplate: { spec: { template: { spec: podSpec } } } },
    },
  };
  const noLatest = { validations: [{ expression: "object.spec.containers.all(c, !c.image.endsWith(':latest'))", message: 'no :latest' }] };

  it.each(Object.entries(controllers))('native rules with kinds [Pod]: a %s with a :latest image is denied', async (_kind, object) => {
    const { handler } = await packagedWithRules(
      'cel',
      `rules: [{ name: r, match: { kinds: [Pod] }, parameters: ${JSON.stringify(noLatest)} }]`,
    );
    expect((await invoke(handler, eventFor(object))).body.response).toMatchObject({
      allowed: false,
      status: { message: 'cel: rule r: no :latest' },
    });
  });

  it("a ValidatingPolicy's spec.autogen.podControllers.controllers narrows the controllers judged", async () => {
    const policy = {
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'ValidatingPolicy',
      metadata: { name: 'no-latest' },
      spec: {
        validationActions: ['Deny'],
        autogen: { podControllers: { controllers: ['Deployment'] } },
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] }],
        },
        ...noLatest,
      },
    };
    const { handler } = await packagedWithRules('cel', JSON.stringify(policy));
    expect((await invoke(handler, eventFor(controllers.Deployment))).body.response).toMatchObject({
      allowed: false,
      status: { message: "ValidatingPolicy 'no-latest' denied request: no :latest" },
    });
    expect((await invoke(handler, eventFor(controllers.CronJob))).body.response.allowed).toBe(true);
  });

  it("as Kyverno rewrites them: kind and the metadata's name and namespace stay the controller's, the rest of metadata and spec are the template's", async () => {
    const validations = [
      // restrict-default-sa's guard: a controller is not a Pod, so Kyverno passes it
      { expression: "object.kind != 'Pod' || object.spec.?serviceAccountName.orValue('default') != 'default'", message: 'no default SA' },
      {
        expression: "object.metadata.?labels[?'team'].orValue('') != ''",
        messageExpression: "'Pod template of ' + object.metadata.name + ' in ' + object.metadata.namespace + ' needs a team label'",
      },
    ];
    const rules = `rules: [{ name: r, match: { kinds: [Pod] }, parameters: ${JSON.stringify({ validations })} }]`;
    const { handler } = await packagedWithRules('cel', rules);
    const web = { ...controllers.Deployment, metadata: { name: 'web', namespace: 'shop', labels: { team: 'from-the-controller' } } };
    expect((await invoke(handler, eventFor(web))).body.response).toMatchObject({
      allowed: false,
      status: { message: 'cel: rule r: Pod template of web in shop needs a team label' },
    });
    const labelled = { ...web, spec: { template: { metadata: { labels: { team: 'a' } }, spec: podSpec } } };
    expect((await invoke(handler, eventFor(labelled))).body.response.allowed).toBe(true);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'shop', labels: { team: 'a' } }, spec: podSpec };
    expect((await invoke(handler, eventFor(pod))).body.response).toMatchObject({
      allowed: false,
      status: { message: 'cel: rule r: no default SA' },
    });
  });
});
