// A policy whose behaviour the rules choose, so stack tests can make it deny, throw, stall or misbehave.
import type { AdmissionRequest } from '../../functions/admission/review/admission-review-schema.js';
import type { ValidatingPolicy } from '../../functions/admission/policy.js';
import * as z from '../../functions/admission/zod.js';

const ParametersSchema = z.strictObject({
  behaviour: z.enum(['allow', 'deny', 'throw', 'never-settle', 'slow']),
  violations: z._default(z.array(z.string()), ['test violation']),
  delayMs: z._default(z.number(), 0),
});
type Parameters = z.infer<typeof ParametersSchema>;

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
