// Request content used as a map, on the packaged functions: only own properties count, so names that every
// JavaScript object inherits (`constructor`, `toString`, `__proto__`) are ordinary keys, never a lapse.
import { afterAll, describe, expect, it } from 'vitest';
import { applyPatchStrictly } from '../helpers/apply-patch.js';
import { eventFor, invoke } from '../helpers/invoke.js';
import { packagedWithRules, removeRulesFolders } from '../helpers/packaged-with-rules.js';

afterAll(removeRulesFolders);

const packaged = async (policy: string, rules: string) => (await packagedWithRules(policy, rules)).handler;

describe('own properties only', () => {
  it('required-labels: required keys constructor and toString are reported missing', async () => {
    const handler = await packaged(
      'required-labels',
      'rules: [{ name: r, parameters: { labels: [{ key: constructor }, { key: toString }, { key: app }] } }]',
    );
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', labels: { app: 'web' } } };
    const { response } = (await invoke(handler, eventFor(service))).body;
    expect(response).toMatchObject({ allowed: false, status: { code: 403 } });
    expect(response.status.message).toBe(
      'required-labels: rule r: Service "web" is missing label "constructor"; Service "web" is missing label "toString"',
    );
    const labelled = { ...service, metadata: { name: 'web', labels: { app: 'web', constructor: 'x', toString: 'y' } } };
    expect((await invoke(handler, eventFor(labelled))).body.response.allowed).toBe(true);
  });

  it('a rule matching every kind: a review of kind "constructor" is decided, not a policy error', async () => {
    const handler = await packaged(
      'trusted-registry',
      'failurePolicy: Fail\nrules: [{ name: r, match: { kinds: ["*"] }, parameters: { forbiddenTags: [latest] } }]',
    );
    for (const kind of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const { response } = (
        await invoke(
          handler,
          eventFor({ apiVersion: 'v1', kind, metadata: { name: 'x' }, spec: { containers: [{ name: 'c', image: 'nginx:latest' }] } }),
        )
      ).body;
      expect(response, kind).toMatchObject({ allowed: true, auditAnnotations: { decision: 'allowed' } });
    }
  });

  it('registry-mirror records a container named __proto__ like any other', async () => {
    const handler = await packaged(
      'registry-mirror',
      'rules: [{ name: r, parameters: { mirrors: [{ from: docker.io/library, to: mirror.example.com/library }] } }]',
    );
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: {
        containers: [
          { name: '__proto__', image: 'nginx:1' },
          { name: 'constructor', image: 'redis:7' },
        ],
      },
    };
    const { response } = (await invoke(handler, eventFor(pod))).body;
    const patched = applyPatchStrictly(pod, response.patch) as unknown as { metadata: { annotations: Record<string, string> } };
    const recorded = JSON.parse(patched.metadata.annotations['portcullis.io/registry-mirror']!) as object;
    expect(Object.entries(recorded)).toEqual([
      ['__proto__', 'nginx:1'],
      ['constructor', 'redis:7'],
    ]);
  });
});
