// Runs a rules document of a mutating policy against one request: each matching rule's parameters
// through the policy, each on a fresh deep copy of the object as the rules before it left it. Enforce
// rules keep their changes; audit rules only report, as warnings, what they would have changed. The
// result is one JSON Patch from the original object to the final one. DELETE and CONNECT are never
// patched: the apiserver answers such a patch with a 500 that no failurePolicy softens.
import type { AdmissionRequest, Operation } from '../review/admission-review-schema.js';
import { allowed } from '../review/admission-response.js';
import type { RulesOutcome } from './evaluate-rules.js';
import { diffToPatch, encodePatch, type PatchOperation } from './json-patch.js';
import { matchesRule } from './match-rule.js';
import type { MutatingPolicy } from '../policy.js';
import type { RulesDocument } from '../rules/rules-document-schema.js';

const NEVER_PATCHED: readonly Operation[] = ['DELETE', 'CONNECT'];

function describeChange(operation: PatchOperation): string {
  const value = 'value' in operation ? ` ${JSON.stringify(operation.value)}` : '';
  return `would ${operation.op} ${operation.path}${value}`;
}

/** A deep copy of JSON data: exact, since the object came from JSON, and faster than structuredClone. */
function jsonCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `freshObject`, when given, returns a new deep copy of `request.object` (the stack re-parses the request
 * body: cheaper than copying the parsed object, which was the largest cost of a warm mutating request).
 */
export async function mutateRules<P>(
  policy: MutatingPolicy<P>,
  document: RulesDocument<P>,
  request: AdmissionRequest,
  freshObject: () => unknown = () => jsonCopy(request.object),
): Promise<RulesOutcome> {
  const verdict = allowed();
  const original = request.object;
  if (NEVER_PATCHED.includes(request.operation) || !isObject(original)) return { verdict, rules: [] };

  const matched: string[] = [];
  const changedBy: string[] = [];
  let current: unknown = original;
  // While only one rule has changed the object, its own diff is the whole patch: no second compare.
  let patch: PatchOperation[] | undefined = [];
  for (const rule of document.rules) {
    if (!matchesRule(request, rule.match, policy)) continue;
    matched.push(rule.name);
    const changed = await policy.mutate(request, rule.parameters, current === original ? freshObject() : jsonCopy(current));
    const operations = diffToPatch(current, changed);
    if (operations.length === 0) continue;
    if (rule.mode === 'audit') {
      operations.forEach((operation, index) => {
        verdict.warnings.push(`${policy.name} (audit, rule ${rule.name}): ${describeChange(operation)}`);
        verdict.auditAnnotations[`audit-${rule.name}-${index + 1}`] = describeChange(operation);
      });
      continue;
    }
    patch = current === original ? operations : undefined;
    current = changed;
    changedBy.push(rule.name);
  }

  patch ??= diffToPatch(original, current);
  if (patch.length > 0) verdict.patch = encodePatch(patch);
  return { verdict, rules: changedBy.length > 0 ? changedBy : matched };
}
