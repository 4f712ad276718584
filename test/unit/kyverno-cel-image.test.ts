// A Kyverno MutatingPolicy written with image(), Kyverno's older name for parseImageReference, as users wrote
// it: accepted, and its mutation computed from the image's parts.
import { expect, it } from 'vitest';
import { stringify } from 'yaml';
import { mutated, pod } from '../helpers/gatekeeper-mutators.js';

const policy = stringify({
  apiVersion: 'policies.kyverno.io/v1alpha1',
  kind: 'MutatingPolicy',
  metadata: { name: 'registry-label' },
  spec: {
    matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
    mutations: [
      {
        patchType: 'JSONPatch',
        jsonPatch: {
          expression: `[JSONPatch{op: "add", path: "/metadata/labels", value: {"registry": image(object.spec.containers[0].image).registry()}}]`,
        },
      },
    ],
  },
});

it("image(container.image).registry() in a MutatingPolicy labels the Pod with the image's registry", async () => {
  const result = await mutated(policy, pod([{ name: 'web', image: 'ghcr.io/acme/web:1.0' }]));
  expect(result.metadata.labels).toEqual({ registry: 'ghcr.io' });
});

it('image.GetMetadata reads a registry however its receiver is written; an `image` loop variable reads none', async () => {
  const { compileCel } = await import('../../functions/engines/cel/program.js');
  const reads = (source: string) => {
    const program = compileCel(source);
    if (typeof program === 'string') throw new Error(program);
    return { registries: program.readsImageRegistries, requestOnly: program.readsOnlyTheRequest };
  };
  expect(reads('image.GetMetadata("nginx").config != null')).toEqual({ registries: true, requestOnly: false });
  expect(reads('dyn(image).GetMetadata("nginx").config != null')).toEqual({ registries: true, requestOnly: false });
  expect(reads('object.spec.containers.all(image, image.name != "")')).toEqual({ registries: false, requestOnly: true });
});
