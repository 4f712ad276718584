// The stack's settings from the environment, validated once at init so a typo fails loudly at deploy time
// instead of quietly changing how the cluster is protected.
import * as z from './zod.js';
import { FailurePolicySchema } from './rules/rules-document-schema.js';
import { zodIssueLines } from './zod-error-message.js';
import { DEFAULT_RULES_MAX_BYTES } from './rules/rules-source.js';

const ConfigSchema = z.object({
  POLICY_TIMEOUT_MS: z._default(z.coerce.number().check(z.int(), z.positive()), 2000),
  FAILURE_POLICY: z._default(FailurePolicySchema, 'Ignore'),
  RULES_DIR: z._default(z.string().check(z.minLength(1)), 'policies'),
  RULES_BUCKET: z.optional(z.string().check(z.minLength(3))),
  RULES_PREFIX: z._default(z.string(), 'policies/'),
  RULES_S3_ENDPOINT: z.optional(z.url()),
  RULES_TTL_SECONDS: z._default(z.coerce.number().check(z.nonnegative()), 5),
  /** Larger rules documents are refused (an invalid version), by `policy validate`/`push` and at load. */
  RULES_MAX_BYTES: z._default(z.coerce.number().check(z.int(), z.positive()), DEFAULT_RULES_MAX_BYTES),
  RULES_FETCH_TIMEOUT_MS: z._default(z.coerce.number().check(z.int(), z.positive()), 500),
  WEBHOOK_TOKENS: z.optional(z.string()),
  WEBHOOK_TOKENS_PARAMETER: z.optional(z.string().check(z.regex(/^\//, { message: 'expected an SSM parameter name starting with /' }))),
  /** How old the tokens read from SSM may get before they are read again (a revoked token's grace). */
  WEBHOOK_TOKENS_MAX_AGE_SECONDS: z._default(z.coerce.number().check(z.positive()), 300),
  /** An SSM-compatible endpoint, for tests. */
  SSM_ENDPOINT: z.optional(z.url()),
});
export type Config = z.infer<typeof ConfigSchema>;

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable counts as unset: serverless.yml writes `${env:X, ''}` for optional settings.
  const given = Object.fromEntries(Object.keys(ConfigSchema.shape).map((name) => [name, env[name] || undefined]));
  const result = ConfigSchema.safeParse(given);
  if (!result.success) throw new Error(`invalid environment: ${zodIssueLines(result.error).join('; ')}`);
  return result.data;
}
