// The stack's settings from the environment, validated once at init so a typo fails loudly at deploy time
// instead of quietly changing how the cluster is protected.
import * as z from './zod.js';
import { FailurePolicySchema } from './rules-document-schema.js';
import { zodIssueLines } from './zod-error-message.js';

const ConfigSchema = z.object({
  POLICY_TIMEOUT_MS: z._default(z.coerce.number().check(z.int(), z.positive()), 2000),
  FAILURE_POLICY: z._default(FailurePolicySchema, 'Ignore'),
  RULES_DIR: z._default(z.string().check(z.minLength(1)), 'policies'),
});
export type Config = z.infer<typeof ConfigSchema>;

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): Config {
  const result = ConfigSchema.safeParse({
    POLICY_TIMEOUT_MS: env.POLICY_TIMEOUT_MS || undefined,
    FAILURE_POLICY: env.FAILURE_POLICY || undefined,
    RULES_DIR: env.RULES_DIR || undefined,
  });
  if (!result.success) throw new Error(`invalid environment: ${zodIssueLines(result.error).join('; ')}`);
  return result.data;
}
