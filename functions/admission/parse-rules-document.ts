// Parses and validates a rules document's text with the policy's schema: exactly what the function, the
// policy CLI and the tests use, so "valid" means one thing everywhere.
import { parseDocument } from 'yaml';
import type * as z from './zod.js';
import type { Policy } from './policy.js';
import { type FailurePolicy, FailurePolicySchema, type RulesDocument, rulesDocumentSchema } from './rules-document-schema.js';
import { zodIssueLines } from './zod-error-message.js';

export type ParsedRules<P> =
  | { ok: true; document: RulesDocument<P> }
  | { ok: false; errors: string[]; /** The document's own failurePolicy, when it states a valid one. */ failurePolicy?: FailurePolicy };

const schemaCache = new WeakMap<object, z.ZodMiniType>();

export function rulesSchemaOf<P>(policy: Policy<P>): z.ZodMiniType<RulesDocument<P>, unknown> {
  let schema = schemaCache.get(policy);
  if (!schema) {
    schema = rulesDocumentSchema(policy.parametersSchema, { requireKinds: policy.defaultKinds.length === 0 });
    schemaCache.set(policy, schema);
  }
  return schema as z.ZodMiniType<RulesDocument<P>, unknown>;
}

export function parseRulesDocument<P>(policy: Policy<P>, text: string): ParsedRules<P> {
  const yaml = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (yaml.errors.length > 0) {
    return { ok: false, errors: yaml.errors.map((error) => `YAML: ${error.message.split('\n')[0]}`) };
  }
  const data: unknown = yaml.toJS();
  const result = rulesSchemaOf(policy).safeParse(data);
  if (result.success) return { ok: true, document: result.data };
  const stated = FailurePolicySchema.safeParse((data as { failurePolicy?: unknown } | null)?.failurePolicy);
  return { ok: false, errors: zodIssueLines(result.error), failurePolicy: stated.success ? stated.data : undefined };
}
