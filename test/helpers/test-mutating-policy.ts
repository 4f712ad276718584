// A mutating policy whose edits the rules spell out (set or delete at a path), so stack tests can make any
// change (array shrink, missing maps, keys with `/` and `~`) and check the patch the stack derives.
import type { AdmissionRequest } from '../../functions/admission/review/admission-review-schema.js';
import type { MutatingPolicy } from '../../functions/admission/policy.js';
import * as v from '../../functions/admission/schema.js';

const ParametersSchema = v.strictObject({
  edits: v.array(
    v.strictObject({ path: v.array(v.union([v.string(), v.number()])), value: v.optional(v.unknown()), remove: v.optional(v.boolean()) }),
  ),
});
type Parameters = v.InferOutput<typeof ParametersSchema>;

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
