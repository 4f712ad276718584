// replica-limits' parameters: the replica counts a workload may have.
import * as z from '../admission/zod.js';

const Count = z.number().check(z.int(), z.nonnegative());

/**
 * @example { ranges: [{ min: 3, max: 50 }] }
 */
export const ReplicaLimitsParametersSchema = z.strictObject({
  ranges: z
    .array(z.strictObject({ min: Count, max: Count }).check(z.refine(({ min, max }) => min <= max, { message: 'min must not exceed max', path: ['max'] })))
    .check(z.minLength(1)),
});
export type ReplicaLimitsParameters = z.infer<typeof ReplicaLimitsParametersSchema>;
