// The schema of Kyverno's conditions, for every part of a rule that has them: preconditions and deny (a list,
// or one `any`/`all` block) and an attestation's conditions (a list of `any`/`all` blocks).
import * as v from '../../../admission/schema.js';
import { OPERATORS } from '../variables/condition-types.js';

const ConditionSchema = v.strictObject({
  key: v.unknown(),
  operator: v.picklist(OPERATORS),
  value: v.optional(v.unknown()),
  message: v.optional(v.string()),
});
const AnyAllSchema = v.strictObject({ any: v.optional(v.array(ConditionSchema)), all: v.optional(v.array(ConditionSchema)) });
export const ConditionsSchema = v.union([v.array(ConditionSchema), AnyAllSchema]);
/** Kyverno's `[]AnyAllConditions`: every block must hold. */
export const AnyAllConditionsListSchema = v.array(AnyAllSchema);
