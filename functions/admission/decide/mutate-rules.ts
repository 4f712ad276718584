// Runs a rules document of a mutating policy against one request: each matching rule's parameters
// through the policy, each on a draft of the object as the rules before it left it. Enforce rules keep
// their changes; audit rules only report, as warnings, what they would have changed. The result is one
// JSON Patch from the original object to the final one. DELETE and CONNECT are never patched: the
// apiserver answers such a patch with a 500 that no failurePolicy softens.
//
// Drafts are immer's copy-on-write proxies: a policy changes its draft in place, and only the parts it
// changed are copied. The diff then skips every unchanged subtree (same reference), so a request costs
// what the policy touched, not two walks and a deep copy of the object (see the commit).
import '../shared-chunk.js'; // the bundle's layout: see that file
import { Immer } from 'immer';
import type { AdmissionRequest, Operation } from '../review/admission-review-schema.js';
import { allowed } from '../review/admission-response.js';
import type { RulesOutcome } from './evaluate-rules.js';
import { diffToPatch, encodePatch, type PatchOperation } from './json-patch.js';
import { matchesRule } from './match-rule.js';
import type { MutatingPolicy, PolicyContext } from '../policy.js';
import { DeadlineExceededError } from './deadline.js';
import type { RulesDocument } from '../rules/rules-document-schema.js';

const NEVER_PATCHED: readonly Operation[] = ['DELETE', 'CONNECT'];

function describeChange(operation: PatchOperation): string {
  const value = 'value' in operation ? ` ${JSON.stringify(operation.value)}` : '';
  return `would ${operation.op} ${operation.path}${value}`;
}

// Results are not frozen: the stack only diffs and serialises them, and freezing walks the whole result.
const drafts = new Immer({ autoFreeze: false });

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object as `policy` changes it from `object`, which is left as it was. */
function mutatedCopy<P>(
  policy: MutatingPolicy<P>,
  request: AdmissionRequest,
  parameters: P,
  object: object,
  context: PolicyContext,
): unknown {
  if (policy.returnsCopy) return policy.mutate(request, parameters, object, context);
  return drafts.produce(object, (draft) => {
    const result = policy.mutate(request, parameters, draft, context);
    // Returning the draft means "as changed"; anything else replaces the object.
    return result === draft ? undefined : (result as typeof draft);
  });
}

export async function mutateRules<P>(
  policy: MutatingPolicy<P>,
  document: RulesDocument<P>,
  request: AdmissionRequest,
  context: PolicyContext,
): Promise<RulesOutcome> {
  const verdict = allowed();
  const original = request.object;
  if (NEVER_PATCHED.includes(request.operation) || !isObject(original)) return { verdict, rules: [] };

  const matched: string[] = [];
  const changedBy: string[] = [];
  let current: object = original;
  // While only one rule has changed the object, its own diff is the whole patch: no second compare.
  let patch: PatchOperation[] | undefined = [];
  for (const rule of document.rules) {
    if (!matchesRule(request, rule.match, policy)) continue;
    // Between rules, as evaluate-rules checks it; within one, the policy's cost budgets read the deadline.
    if (context.deadline?.passed()) throw new DeadlineExceededError(context.deadline.budgetMs);
    matched.push(rule.name);
    // Awaited only when something loads: a microtask per rule is a cost every request would pay.
    const loading = policy.prepareRule?.(rule.parameters);
    if (loading) await loading;
    let changed = mutatedCopy(policy, request, rule.parameters, current, context);
    // A rule that first asks a registry (a verifyImages rule pinning digests) answers later; no other waits.
    if (changed instanceof Promise) changed = await changed;
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
    current = changed as object;
    changedBy.push(rule.name);
  }

  patch ??= diffToPatch(original, current);
  if (patch.length > 0) verdict.patch = encodePatch(patch);
  return { verdict, rules: changedBy.length > 0 ? changedBy : matched };
}
