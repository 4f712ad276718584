// A mutating policy whose edits the rules spell out (set or delete at a path), so stack tests can make any
// change (array shrink, missing maps, keys with `/` and `~`) and check the patch the stack derives.
import type { AdmissionRequest } from '../../functions/admission/review/admission-review-schema.js';
import type { MutatingPolicy } from '../../functions/admission/policy.js';
import * as z from '../../functions/admission/zod.js';

const ParametersSchema = z.strictObject({
  edits: z.array(z.strictObject({ path: z.array(z.union([z.string(), z.number()])), value: z.optional(z.unknown()), remove: z.optional(z.boolean()) })),
});
type Parameters = z.infer<typeof ParametersSchema>;

export function applyEdits(object: unknown, edits: Parameters['edits']): unknown {
  for (const { path, value, remove } of edits) {
    let node = object as any;
    for (const key of path.slice(0, -1)) node = node[key] ??= {};
    const last = path.at(-1)!;
    if (remove) {
      if (Array.isArray(node) && typeof last === 'number') node.splice(last, 1);
      else delete node[last];
    } else {
      node[last] = value;
    }
  }
  return object;
}

export const testMutatingPolicy: MutatingPolicy<Parameters> = {
  name: 'test-mutator',
  kind: 'mutating',
  defaultKinds: ['Pod'],
  parametersSchema: ParametersSchema,
  mutate(_request: AdmissionRequest, parameters: Parameters, object: unknown) {
    return applyEdits(object, parameters.edits);
  },
};
