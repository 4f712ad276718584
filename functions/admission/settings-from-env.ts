// A function's settings from its environment, validated once so a typo fails at the first invocation, naming
// the variable. An empty variable counts as unset: serverless.yml writes `${env:X, ''}` for optional settings.
import * as v from './schema.js';
import { issueLines } from './schema-issues.js';

/** The variables `entries` names, read from `env` and validated by `schema` (the entries, and any check across them). */
export function settingsFromEnv<Schema extends v.GenericSchema>(
  entries: Record<string, unknown>,
  schema: Schema,
  env: NodeJS.ProcessEnv,
): v.InferOutput<Schema> {
  const given = Object.fromEntries(Object.keys(entries).map((name) => [name, env[name] || undefined]));
  const result = v.safeParse(schema, given);
  if (!result.success) throw new Error(`invalid environment: ${issueLines(result.issues).join('; ')}`);
  return result.output;
}
