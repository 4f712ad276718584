// The CEL engine's mutation of one object, as Kubernetes applies a MutatingAdmissionPolicy: the
// matchConditions must all hold; each mutation's expression sees the object as the mutations before it left
// it (`object`), with `oldObject`, `request`, `params` and lazily evaluated `variables`; a JSONPatch
// mutation's operations are applied in order as RFC 6902 says, and one that does not apply (a missing
// parent, a failed `test`) is an error, resolved by the failure policy; an ApplyConfiguration's object is
// merged in as server-side apply merges it, by the request kind's schema. Every expression runs on its own
// cost budget. A rule written for Pods patches a controller's pod template as a Pod (Kyverno's autogen).
import { applyPatch, type Operation } from 'fast-json-patch/index.mjs';
import type { ClusterView } from '../../admission/cluster/cluster-view.js';
import { DeadlineExceededError, type WorkDeadline } from '../../admission/decide/deadline.js';
import { typeOfKind } from '../../admission/kubernetes/apply-schema.js';
import { checkedOperations } from '../../admission/kubernetes/json-patch-operations.js';
import { mutatedAsPod, type PodController } from '../../admission/kubernetes/pod-controllers.js';
import { applyConfiguration } from '../../admission/kubernetes/server-side-apply.js';
import type { AdmissionRequest } from '../../admission/review/admission-review-schema.js';
import { CostBudget, PER_EXPRESSION_COST_LIMIT } from '../runtime/cost-budget.js';
import { withCluster } from '../runtime/evaluation.js';
import type { EngineContext } from '../engine.js';
import { LazyVariables } from './lazy-variables.js';
import { imageValidationPart } from './image-validation-part.js';
import type { CelMutation } from './mutation-rule.js';
import { namespaceObjectOf } from './namespace-object.js';
import { type CelProgram, toCel } from './program.js';
import { jsonOf } from './values.js';
import { requestBinding } from './request-binding.js';

/** A JSONPatch expression's value as RFC 6902 operations, or an error saying which is wrong. */
function operationsOf(value: unknown): Operation[] {
  const list = jsonOf(value, 'JSONPatch');
  if (!Array.isArray(list)) throw new Error('a JSONPatch expression must return a list of JSONPatch');
  return checkedOperations(list, 'JSONPatch');
}

function withJsonPatch(object: unknown, value: unknown, index: number): unknown {
  const operations = operationsOf(value);
  try {
    return applyPatch(object, operations, true, false).newDocument;
  } catch (error) {
    throw new Error(`mutations[${index}]: the JSONPatch does not apply: ${(error as Error).message.split('\n')[0]}`);
  }
}

function withApplyConfiguration(object: unknown, value: unknown, index: number, kind: { group: string; kind: string }): unknown {
  const configuration = jsonOf(value, 'Object');
  if (typeof configuration !== 'object' || configuration === null || Array.isArray(configuration))
    throw new Error(`mutations[${index}]: must evaluate to Object but got ${Array.isArray(configuration) ? 'list' : typeof configuration}`);
  try {
    const { type, builtIn } = typeOfKind(kind.group, kind.kind);
    return applyConfiguration(object as Record<string, unknown>, configuration as Record<string, unknown>, type, builtIn);
  } catch (error) {
    throw new Error(`mutations[${index}]: invalid ApplyConfiguration: ${(error as Error).message}`);
  }
}

/** What every mutation of a request binds alike, converted to CEL values once per request. */
interface RequestValues {
  oldObject: unknown;
  request: unknown;
  params: unknown;
  namespaceObject: unknown;
}

/** One object's bindings: the request's values, the object as the mutations before left it, lazy variables. */
function bindingsFor(values: RequestValues, rule: CelMutation, object: unknown, deadline?: WorkDeadline): Record<string, unknown> {
  const bindings: Record<string, unknown> = { ...values, object: toCel(object, 'request.object') };
  const evaluator = { variable: (program: CelProgram) => program.run(bindings, new CostBudget(PER_EXPRESSION_COST_LIMIT, deadline)) };
  bindings.variables = new LazyVariables(rule.declaredVariables, evaluator);
  return bindings;
}

/** Whether the rule's matchConditions all hold; an ImageValidatingPolicy's errors mean no, under its failurePolicy Ignore. */
function conditionsHold(rule: CelMutation, bindings: Record<string, unknown>, budget: () => CostBudget): boolean {
  try {
    for (const { name, program } of rule.matchConditions) {
      const holds = program.run(bindings, budget());
      if (typeof holds !== 'boolean') throw new Error(`matchConditions ${name}: returned ${typeof holds}, expected a bool`);
      if (!holds) return false;
    }
    return true;
  } catch (error) {
    if (error instanceof DeadlineExceededError || !rule.digests?.ignoresMatchConditionErrors) throw error;
    return false;
  }
}

/** The object as a MutatingAdmissionPolicy's (or MutatingPolicy's) conditions and mutations leave it. */
function mutatedByExpressions(
  request: AdmissionRequest,
  rule: CelMutation,
  view: unknown,
  oldView: unknown,
  kind: { group: string; kind: string },
  deadline: WorkDeadline | undefined,
  cluster: ClusterView | undefined,
): unknown {
  let object: unknown = view;
  const values = {
    oldObject: toCel(oldView ?? null, 'request.oldObject'),
    request: requestBinding(request),
    params: rule.params,
    namespaceObject: rule.readsNamespaceObject ? namespaceObjectOf(request, cluster) : null,
  };
  // The conditions and the first mutation see the same object: one conversion, one set of variables.
  const budget = () => new CostBudget(PER_EXPRESSION_COST_LIMIT, deadline);
  let bindings = bindingsFor(values, rule, object, deadline);
  if (!conditionsHold(rule, bindings, budget)) return view;
  if (rule.digests)
    return imageValidationPart.get().pinnedDigests(rule.digests, object, kind.kind, (program) => program.run(bindings, budget()));
  for (const [index, { patchType, program }] of rule.patches.entries()) {
    const value = program.run(bindings, budget());
    object = patchType === 'JSONPatch' ? withJsonPatch(object, value, index) : withApplyConfiguration(object, value, index, kind);
    if (index + 1 < rule.patches.length) bindings = bindingsFor(values, rule, object, deadline);
  }
  return object;
}

/** The object as the rule leaves it; autogen mutates a controller's pod template as a Pod, then writes it back. */
export function mutateWithCel(request: AdmissionRequest, rule: CelMutation, object: unknown, context: EngineContext): unknown {
  const controller = context.podTemplate ? (request.kind.kind as PodController) : undefined;
  const kind = controller ? { group: '', kind: 'Pod' } : request.kind;
  return mutatedAsPod(controller, object, request.oldObject, (view, oldView) =>
    withCluster(context.cluster, () => mutatedByExpressions(request, rule, view, oldView, kind, context.deadline, context.cluster)),
  );
}
