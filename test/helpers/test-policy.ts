// A policy whose behaviour the rules choose, so stack tests can make it deny, throw, stall or misbehave.
import type { AdmissionRequest } from '../../functions/admission/review/admission-review-schema.js';
import type { ValidatingPolicy } from '../../functions/admission/policy.js';
import * as v from '../../functions/admission/schema.js';

const ParametersSchema = v.strictObject({
  behaviour: v.picklist(['allow', 'deny', 'throw', 'never-settle', 'slow']),
  violations: v.optional(v.array(v.string()), () => ['test violation']),
  delayMs: v.optional(v.number(), 0),
});
type Parameters = v.InferOutput<typeof ParametersSchema>;

export const testPolicy: ValidatingPolicy<Parameters> = {
  name: 'test-policy',
  kind: 'validating',
  defaultKinds: ['Pod'],
  parametersSchema: ParametersSchema,
  evaluate(_request: AdmissionRequest, parameters: Parameters) {
    switch (parameters.behaviour) {
      case 'allow':
        return [];
      case 'deny':
        return parameters.violations;
      case 'throw':
        throw new TypeError('cannot read properties of undefined');
      case 'never-settle':
        return new Promise<string[]>(() => {});
      case 'slow':
        return new Promise<string[]>((resolve) => setTimeout(() => resolve([]), parameters.delayMs));
    }
  },
};
