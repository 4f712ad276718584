// One Kyverno mutate rule on one request, after its match (pkg/engine/handlers/mutation): its exceptions,
// context entries and preconditions, then patchStrategicMerge (variables substituted, anchors resolved
// against the resource, then merged: strategic-merge.ts), patchesJson6902 (json6902.ts) or foreach: per
// element of the list, with `element` and `elementIndex`, its context and
// preconditions, each element's patch applied to the resource as the elements before it left it (a list
// patched by strategic merge is walked from its end unless `order` says otherwise, as Kyverno does). As in
// Kyverno, the variables read the request as the rule found it. An autogen rule patches the controller's pod
// template as Kyverno's rewritten rule does: the template is patched as a Pod, then written back.
import { foreachPending, LookupPending } from '../../runtime/image-lookups.js';
import { isPodController, mutatedAsPod, type PodController } from '../../../admission/kubernetes/pod-controllers.js';
import { typeOfKind } from '../../../admission/kubernetes/apply-schema.js';
import type { AdmissionRequest } from '../../../admission/review/admission-review-schema.js';
import { loadContext } from '../context/context-entries.js';
import { elementApplies, elementsOf, loopScope } from '../context/foreach.js';
import { readsImages, ruleData } from '../context/rule-data.js';
import { type RuleEnvironment, ruleContext, withUserRoles } from '../context/rule-context.js';
import { exceptionsThatApply } from '../match/exceptions.js';
import type { KyvernoRule, MutateForeach } from '../policy/rule-schema.js';
import { evaluateConditions } from '../variables/conditions.js';
import { substituteVariables, type VariableContext } from '../variables/variables.js';
import { applyKyvernoJsonPatch, operationsOf } from './json6902.js';
import { resolveAnchors } from './mutate-anchors.js';
import { strategicMerge } from './strategic-merge.js';

type Json = Record<string, unknown>;

interface Patches {
  patchStrategicMerge?: unknown;
  patchesJson6902?: string;
}

/** The resource with one rule's (or foreach element's) patches applied. */
function patched(resource: unknown, patches: Patches, context: VariableContext, kind: { group: string; kind: string }): unknown {
  let result = resource;
  if (patches.patchStrategicMerge !== undefined) {
    const patch = substituteVariables(patches.patchStrategicMerge, context);
    const resolved = resolveAnchors(patch, result, context.scope.budget);
    const { type, builtIn } = typeOfKind(kind.group, kind.kind);
    result = strategicMerge(result, resolved, type, builtIn, context.scope.budget);
  }
  if (patches.patchesJson6902 !== undefined) {
    const text = substituteVariables(patches.patchesJson6902, context);
    result = applyKyvernoJsonPatch(result, operationsOf(typeof text === 'string' ? text : JSON.stringify(text)), context.scope.budget);
  }
  return result;
}

function foreachPatched(
  loops: readonly MutateForeach[],
  resource: unknown,
  context: VariableContext,
  nesting: number,
  kind: { group: string; kind: string },
): unknown {
  let result = resource;
  // An element whose image data is not fetched yet is passed over, so that the run notes every element's.
  const pending = { found: false };
  for (const loop of loops) {
    const elements = elementsOf(loop.list, context);
    const order = elements.map((_, index) => index);
    // A strategic merge puts the patch's elements first, so Kyverno walks its list backwards unless told.
    if (loop.order ? loop.order === 'Descending' : loop.patchStrategicMerge !== undefined) order.reverse();
    const scoped = loopScope(context);
    for (const index of order) {
      context.scope.budget.charge(1);
      if (elements[index] === null || elements[index] === undefined) continue;
      // Kyverno resets the context per element: a nested loop's result is seen only within its element.
      scoped.data.request = context.data.request;
      result =
        foreachPending(pending, () => {
          if (!elementApplies(loop, scoped, elements[index], index, nesting)) return result;
          return loop.foreach ? foreachPatched(loop.foreach, result, scoped, nesting + 1, kind) : patched(result, loop, scoped, kind);
        }) ?? result;
    }
    // As Kyverno's AddResource after each loop: the next loop's `request.object` is the object patched so far
    // (a mutate-existing rule's target too).
    context.data.request = { ...(context.data.request as Json), object: result as Json };
    withUserRoles(context.data.request, context.cluster);
  }
  if (pending.found) throw new LookupPending();
  return result;
}

/**
 * The context a mutate rule patches in, once its exceptions, context entries and preconditions let it apply to
 * the request whose object is `object`; undefined when they do not.
 */
export function mutationContext(
  rule: KyvernoRule,
  request: AdmissionRequest,
  object: unknown,
  environment: RuleEnvironment,
  controller?: PodController,
): VariableContext | undefined {
  const context = ruleContext(ruleData(request, object, request.oldObject, readsImages(rule)), environment, undefined, controller);
  if (exceptionsThatApply(rule, request, context).length > 0) return undefined;
  loadContext(rule.context, context);
  return evaluateConditions(rule.preconditions, context).holds ? context : undefined;
}

/** The rule's patches, then its foreach loops, on the resource. */
export function mutateResource(
  mutate: Patches & { foreach?: readonly MutateForeach[] },
  resource: unknown,
  context: VariableContext,
  kind: { group: string; kind: string },
): unknown {
  const result = patched(resource, mutate, context, kind);
  return mutate.foreach ? foreachPatched(mutate.foreach, result, context, 0, kind) : result;
}

/**
 * The object as the rule leaves it (the object itself when the rule does not apply). `patchesPodTemplate`
 * when the rule was made for the controller's Pods (autogen).
 */
export function mutateWithRule(
  rule: KyvernoRule,
  request: AdmissionRequest,
  object: unknown,
  patchesPodTemplate: boolean,
  environment: RuleEnvironment,
): unknown {
  const mutate = rule.mutate;
  if (!mutate) throw new Error(`rule ${rule.rule} has no mutate: only mutate rules mutate`);
  const kind = request.kind.kind;
  const controller = patchesPodTemplate && isPodController(kind) ? kind : undefined;
  // The schema is the Pod's when a template is patched as one.
  const patchedKind = controller ? { group: '', kind: 'Pod' } : request.kind;
  return mutatedAsPod(controller, object, request.oldObject, (view) => {
    // The controller's, for an autogen rule too: Kyverno rewrites the rule's paths to the template's (variables.ts).
    const context = mutationContext(rule, request, object, environment, controller);
    return context ? mutateResource(mutate, view, context, patchedKind) : view;
  });
}
