// The admission target: how a request becomes a Rego policy's input and its answer becomes findings, as
// Gatekeeper's target (frameworks' `admission.k8s.gatekeeper.sh`) does it. The input is `review`, the
// AdmissionRequest as it lies (on DELETE, `object` is `oldObject`, as Gatekeeper's webhook sets it), beside
// the rule's fixed fields (`parameters`); the answer is the set at the rule's violations path, each member
// an object whose `msg` is a violation, in OPA's order of the set, identical messages once. Evaluation is
// OPA's default (a built-in's error makes its call undefined), charged to one cost budget under the deadline.
import type { ClusterRead } from '../../../admission/cluster/cluster-reads.js';
import { ClusterLookupError, type ClusterView } from '../../../admission/cluster/cluster-view.js';
import type { Findings } from '../../../admission/policy.js';
import type { AdmissionRequest } from '../../../admission/review/admission-review-schema.js';
import type { EngineContext } from '../../engine.js';
import { CostBudget, PER_EXPRESSION_COST_LIMIT } from '../../runtime/cost-budget.js';
import type { CompiledPolicy } from '../compile/compile-policy.js';
import { RegoError } from '../errors.js';
import { evalDocument } from '../rego.js';
import { inventoryOfView } from './inventory.js';
import { isObject, objectGet, RegoSet, sortedMembers, type Value } from '../values.js';

export interface RegoValidation {
  policy: CompiledPolicy;
  /** The document whose members are the violations: `['k8sallowedrepos', 'violation']`. */
  violations: string[];
  /** The input's fixed fields beside `review` (Gatekeeper's `parameters`). */
  input: Record<string, unknown>;
  /** Base documents under data, as the rule wrote them. */
  data: Record<string, unknown>;
  /** data.inventory is the cluster view's objects, laid out as Gatekeeper's; these are the kinds it must hold. */
  inventory?: ClusterRead[];
  usesRegex: boolean;
  /** Whether it calls a GraphQL built-in (graphql-js loads with it). */
  usesGraphql: boolean;
}

const withInventory = new WeakMap<ClusterView, Record<string, unknown>>();

/** The base documents: the rule's, and for a referential template the cluster view's objects as data.inventory. */
function dataOf(rule: RegoValidation, cluster: ClusterView | undefined): Record<string, unknown> {
  if (!rule.inventory) return rule.data;
  if (!cluster) throw new ClusterLookupError('the template reads data.inventory, and no cluster snapshot is loaded');
  let data = withInventory.get(cluster);
  if (!data) withInventory.set(cluster, (data = { inventory: inventoryOfView(cluster) }));
  return Object.keys(rule.data).length === 0 ? data : { ...rule.data, ...data };
}

/** A whole Rego evaluation's budget: the same as one CEL expression's. */
export const REGO_COST_LIMIT = PER_EXPRESSION_COST_LIMIT;

export function reviewOf(request: AdmissionRequest): Record<string, unknown> {
  const oldObject = (request as { oldObject?: unknown }).oldObject;
  return request.operation === 'DELETE' && oldObject !== undefined && oldObject !== null ? { ...request, object: oldObject } : request;
}

export function validateWithRego(request: AdmissionRequest, rule: RegoValidation, context: EngineContext): Findings {
  const input = { ...rule.input, review: reviewOf(request) } as Value;
  const budget = new CostBudget(REGO_COST_LIMIT, context.deadline);
  let result: Value | undefined;
  try {
    result = evalDocument(rule.policy, rule.violations, {
      input,
      data: dataOf(rule, context.cluster) as Value,
      strictBuiltinErrors: false,
      now: context.now,
      budget,
    });
  } catch (error) {
    if (error instanceof RegoError) throw new Error(`Rego evaluation error: ${error.message}`);
    throw error;
  }
  return { violations: messagesOf(result, rule) };
}

function messagesOf(result: Value | undefined, rule: RegoValidation): string[] {
  if (result === undefined) return [];
  if (!(result instanceof RegoSet)) throw new Error(`data.${rule.violations.join('.')} is not a set of violations`);
  const messages = new Set<string>();
  for (const member of sortedMembers(result)) {
    const msg = isObject(member) ? objectGet(member, 'msg') : undefined;
    if (typeof msg !== 'string') throw new Error(`data.${rule.violations.join('.')}: a violation has no string "msg"`);
    messages.add(msg);
  }
  return [...messages];
}
