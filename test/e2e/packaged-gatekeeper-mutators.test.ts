// Gatekeeper's mutators on the packaged mutations function (the zip, as Lambda imports it): the library's
// pod-security mutators uploaded unchanged in one bundle and served on their own route, every patch applied
// strictly (RFC 6902), a second call patching nothing, DELETE never patched, a mutation that cannot proceed
// failing open (Gatekeeper's Ignore) with the reason, and a bundle Gatekeeper would refuse refused whole.
import { afterAll, describe, expect, it } from 'vitest';
import type { ReviewOptions } from '../../infra/admission-event.js';
import { applyPatchStrictly } from '../helpers/apply-patch.js';
import { gatekeeperLibraryMutators } from '../helpers/corpora.js';
import { assign } from '../helpers/gatekeeper-mutators.js';
import { eventFor, invoke } from '../helpers/invoke.js';
import { packagedWithRules, removeRulesFolders } from '../helpers/packaged-with-rules.js';

afterAll(removeRulesFolders);

const LIBRARY = gatekeeperLibraryMutators().join('\n---\n');
const pod = (containers: Record<string, unknown>[] = [{ name: 'web', image: 'nginx' }]) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'team-a' },
  spec: { containers },
});

async function answer(rules: string, object: unknown, options: ReviewOptions = {}, route = 'gatekeeper-mutation') {
  const { handler } = await packagedWithRules('mutations', rules);
  const event = { ...eventFor(object, options), rawPath: `/mutate/mutations/${route}`, pathParameters: { policy: route } };
  const response = (await invoke(handler, event)).body.response;
  return { response, patched: response.patch ? applyPatchStrictly(object, response.patch) : undefined };
}

describe("Gatekeeper's mutators on the packaged mutations function", () => {
  it("the library's pod-security mutators, as written: defaults set, a second call patches nothing", async () => {
    const { response, patched } = await answer(LIBRARY, pod());
    expect(response).toMatchObject({ allowed: true, patchType: 'JSONPatch' });
    expect((patched as any).spec.securityContext).toEqual({
      fsGroup: 3000,
      seccompProfile: { type: 'RuntimeDefault' },
      supplementalGroups: [3000],
    });
    expect((patched as any).spec.containers[0].securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 1000,
      allowPrivilegeEscalation: false,
    });
    expect((await answer(LIBRARY, patched)).response.patch).toBeUndefined();
  });

  it('DELETE is never patched', async () => {
    const { response } = await answer(LIBRARY, pod(), { operation: 'DELETE', oldObject: pod() });
    expect(response).toMatchObject({ allowed: true });
    expect(response.patch).toBeUndefined();
  });

  it('a mutation that cannot proceed on the object fails open, saying which mutator and why', async () => {
    const env = assign('env-default', 'spec.containers[name: *].env[name: LOG].value', { assign: { value: 'info' } });
    const { response } = await answer(env, pod([{ name: 'web', env: { LOG: 'debug' } }]));
    expect(response.allowed).toBe(true);
    expect(response.patch).toBeUndefined();
    expect(response.auditAnnotations['failed-open']).toMatch(
      /mutator Assign env-default failed .*mismatch between path entry \(type: List\)/,
    );
  });

  it('a bundle Gatekeeper would refuse is refused whole: the last good rules stay, and none here means no policy', async () => {
    const refused = assign('rename', 'metadata.name', { assign: { value: 'x' } });
    const { response } = await answer(refused, pod());
    expect(response.allowed).toBe(true);
    expect(response.auditAnnotations['failed-open']).toMatch(/Assign rename: spec.location: assign can't change metadata/);
  });
});
