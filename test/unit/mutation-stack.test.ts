// Mutating policies through the stack with rules in a real directory: every patch is applied with an
// independent, strict RFC 6902 implementation and must turn the request's object into exactly the
// expected one; DELETE and CONNECT are never patched; audit mode and failures never patch.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../functions/admission/config.js';
import { createAdmissionHandler } from '../../functions/admission/create-admission-handler.js';
import type { Policy } from '../../functions/admission/policy.js';
import { registryMirrorPolicy } from '../../functions/registry-mirror/policy.js';
import { applyPatchStrictly } from '../helpers/apply-patch.js';
import { eventFor, type Handler, invoke } from '../helpers/invoke.js';
import { applyEdits, testMutatingPolicy } from '../helpers/test-mutating-policy.js';

let rulesDir: string;
beforeEach(() => {
  rulesDir = mkdtempSync(join(tmpdir(), 'portcullis-mutate-'));
});
afterEach(() => rmSync(rulesDir, { recursive: true, force: true }));

function handlerFor(policy: Policy<never>, rules: string, env: Record<string, string> = {}): Handler {
  writeFileSync(join(rulesDir, `${policy.name}.yaml`), rules);
  return createAdmissionHandler(policy, { config: configFromEnv({ RULES_DIR: rulesDir, ...env }) }) as unknown as Handler;
}

const pod = () => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', labels: { app: 'web' }, annotations: { 'example.com/a~b': 'x' } },
  spec: {
    containers: [
      { name: 'a', image: 'nginx:1' },
      { name: 'b', image: 'envoy:1' },
      { name: 'c', image: 'redis:7' },
    ],
  },
});

const mutator = testMutatingPolicy as Policy<never>;
const editsRules = (edits: unknown[], extra = '') => `rules: [{ name: r, ${extra} parameters: { edits: ${JSON.stringify(edits)} } }]`;

describe('patches the apiserver accepts', () => {
  it.each([
    ['a key with / and ~ is escaped (~1, ~0)', [{ path: ['metadata', 'annotations', 'portcullis.io/x~y'], value: 'v' }]],
    ['a change under an escaped key', [{ path: ['metadata', 'annotations', 'example.com/a~b'], value: 'changed' }]],
    ['adding into a missing map adds the whole map', [{ path: ['spec', 'nodeSelector', 'kubernetes.io/os'], value: 'linux' }]],
    ['removing from the middle of an array', [{ path: ['spec', 'containers', 1], remove: true }]],
    [
      'removing two array elements',
      [
        { path: ['spec', 'containers', 0], remove: true },
        { path: ['spec', 'containers', 0], remove: true },
      ],
    ],
    ['appending to an array', [{ path: ['spec', 'containers', 3], value: { name: 'd', image: 'busybox' } }]],
    [
      'replacing and removing in one go',
      [
        { path: ['spec', 'containers', 0, 'image'], value: 'nginx:2' },
        { path: ['metadata', 'labels'], remove: true },
      ],
    ],
    ['an array element that becomes an object key', [{ path: ['metadata', 'finalizers'], value: ['example.com/cleanup'] }]],
  ])('%s', async (_case, edits) => {
    const original = pod();
    const answer = await invoke(handlerFor(mutator, editsRules(edits)), eventFor(original));
    const { response } = answer.body;
    expect(response).toMatchObject({ allowed: true, patchType: 'JSONPatch', auditAnnotations: { decision: 'patched', rule: 'r' } });
    expect(applyPatchStrictly(original, response.patch)).toEqual(applyEdits(structuredClone(original), edits as never));
  });

  it('no change: no patch and no patchType', async () => {
    const answer = await invoke(handlerFor(mutator, editsRules([{ path: ['metadata', 'name'], value: 'p' }])), eventFor(pod()));
    expect(answer.body.response).toEqual(expect.objectContaining({ allowed: true }));
    expect(answer.body.response).not.toHaveProperty('patch');
    expect(answer.body.response).not.toHaveProperty('patchType');
  });

  it('rules apply in order, each on the result of the ones before; one patch covers all', async () => {
    const rules = `rules:
  - { name: first, parameters: { edits: [{ path: [metadata, labels, tier], value: web }] } }
  - { name: second, parameters: { edits: [{ path: [metadata, labels, tier], value: api }, { path: [spec, priority], value: 5 }] } }`;
    const original = pod();
    const { response } = (await invoke(handlerFor(mutator, rules), eventFor(original))).body;
    const patched = applyPatchStrictly(original, response.patch) as any;
    expect(patched.metadata.labels.tier).toBe('api');
    expect(patched.spec.priority).toBe(5);
    expect(response.auditAnnotations.rule).toBe('first,second');
  });

  it.each([['DELETE'], ['CONNECT']] as const)('%s is never patched, even when a rule asks for it', async (operation) => {
    const rules = editsRules(
      [{ path: ['metadata', 'labels', 'x'], value: 'y' }],
      'match: { operations: [CREATE, UPDATE, DELETE, CONNECT] },',
    );
    const event = eventFor(pod(), { operation });
    const { response } = (await invoke(handlerFor(mutator, rules), event)).body;
    expect(response.allowed).toBe(true);
    expect(response).not.toHaveProperty('patch');
  });

  it('audit mode: no patch, a warning per change saying what would have changed', async () => {
    const rules = editsRules([{ path: ['spec', 'containers', 0, 'image'], value: 'mirror.example.com/nginx:1' }], 'mode: audit,');
    const { response } = (await invoke(handlerFor(mutator, rules), eventFor(pod()))).body;
    expect(response).not.toHaveProperty('patch');
    expect(response.warnings).toEqual([
      'test-mutator (audit, rule r): would replace /spec/containers/0/image "mirror.example.com/nginx:1"',
    ]);
    expect(response.auditAnnotations).toMatchObject({
      'audit-r-1': 'would replace /spec/containers/0/image "mirror.example.com/nginx:1"',
      decision: 'allowed',
    });
  });

  it('failing open never patches', async () => {
    const { response } = (await invoke(handlerFor(mutator, 'rules: 3'), eventFor(pod()))).body;
    expect(response.allowed).toBe(true);
    expect(response.warnings[0]).toContain('was not evaluated');
    expect(response).not.toHaveProperty('patch');
  });
});

describe('registry-mirror through the stack', () => {
  const rules = 'rules: [{ name: m, parameters: { mirrors: [{ from: docker.io/library, to: mirror.example.com/library }] } }]';

  it('patches a pod so the apiserver gets the mirrored image and the record annotation, and reinvocation changes nothing', async () => {
    const handler = handlerFor(registryMirrorPolicy as Policy<never>, rules);
    const original = pod();
    const first = (await invoke(handler, eventFor(original))).body.response;
    const patched = applyPatchStrictly(original, first.patch) as any;
    expect(patched.spec.containers.map((c: any) => c.image)).toEqual([
      'mirror.example.com/library/nginx:1',
      'mirror.example.com/library/envoy:1',
      'mirror.example.com/library/redis:7',
    ]);
    expect(patched.metadata.annotations['example.com/a~b']).toBe('x');
    expect(JSON.parse(patched.metadata.annotations['portcullis.io/registry-mirror'])).toEqual({ a: 'nginx:1', b: 'envoy:1', c: 'redis:7' });
    // reinvocationPolicy: IfNeeded sends the patched object back: it must come back unchanged
    const second = (await invoke(handler, eventFor(patched))).body.response;
    expect(second).not.toHaveProperty('patch');
  });
});
