// replica-limits' parameters: the replica counts a workload may have.
import * as v from '../admission/schema.js';

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));

/**
 * @example { ranges: [{ min: 3, max: 50 }] }
 */
export const ReplicaLimitsParametersSchema = v.strictObject({
  ranges: v.pipe(
    v.array(
      v.pipe(
        v.strictObject({ min: Count, max: Count }),
        v.forward(
          v.check(({ min, max }) => min <= max, 'min must not exceed max'),
          ['max'],
        ),
      ),
    ),
    v.minLength(1),
  ),
});
export type ReplicaLimitsParameters = v.InferOutput<typeof ReplicaLimitsParametersSchema>;
