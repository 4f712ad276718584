// mutations: changes to objects written as data, so a new mutation is a document, not code. Its rules
// object is a bundle of MutatingAdmissionPolicies with their bindings and params (functions/formats/),
// or the same parameters as a native rules document. As in Kubernetes: the matchConditions must all hold;
// each mutation's expression sees the object as the mutations before it left it (`object`), with
// `oldObject`, `request`, `params` and lazily evaluated `variables`; a JSONPatch mutation's operations are
// applied in order as RFC 6902 says, and one that does not apply (a missing parent, a failed `test`) is an
// error, resolved by the failure policy; an ApplyConfiguration's object is merged in as server-side apply
// merges it, by the request kind's schema. Every expression runs on its own cost budget. The stack makes the
// answer's patch from the object before and after.
import { typeOfKind } from '../admission/kubernetes/apply-schema.js';
import { mutatedAsPod, type PodController } from '../admission/kubernetes/pod-controllers.js';
import { loadRegexEngine, regexEngineLoaded } from '../engines/runtime/re2.js';
import { expandKyvernoRule } from '../engines/kyverno/autogen/expand.js';
import { kyvernoEngine, kyvernoEngineLoaded, loadKyvernoEngine, needsKyvernoEngine } from '../engines/kyverno/engine-loader.js';
import { callsRegexFunctions } from '../engines/kyverno/policy/rule-schema.js';
import { ruledOutBy } from '../engines/kyverno/match/resource-filter.js';
import { applyConfiguration } from '../admission/kubernetes/server-side-apply.js';
import { applyPatch, type Operation } from 'fast-json-patch/index.mjs';
import type { MutatingPolicy } from '../admission/policy.js';
import type { AdmissionRequest } from '../admission/review/admission-review-schema.js';
import { type CelProgram, toCel } from '../engines/cel/program.js';
import { requestBinding } from '../engines/cel/request-binding.js';
import { CostBudget, PER_EXPRESSION_COST_LIMIT } from '../engines/runtime/cost-budget.js';
import type { WorkDeadline } from '../admission/decide/deadline.js';
import { LazyVariables } from '../engines/cel/lazy-variables.js';
import { MUTATION_FORMATS, MUTATION_REFUSALS } from '../formats/mutation-formats.js';
import { claimedBy, isManifestData, partFor, rulesFromManifests } from '../formats/manifest-bundle.js';
import { type MutationParameters, MutationParametersSchema } from './rules.js';
import { checkedOperations } from '../admission/kubernetes/json-patch-operations.js';

/** A CEL value as JSON: ints as numbers, maps as objects; anything JSON cannot hold is an error. */
function jsonOf(value: unknown, where: string): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`${where}: ${value} is not a JSON number`);
    return value;
  }
  if (typeof value === 'bigint') {
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER))
      throw new Error(`${where}: ${value} is too large for JSON`);
    return Number(value);
  }
  if (Array.isArray(value)) return value.map((item, index) => jsonOf(item, `${where}[${index}]`));
  const entries =
    value instanceof Map
      ? [...value.entries()]
      : value && Object.getPrototypeOf(value) === Object.prototype
        ? Object.entries(value)
        : undefined;
  if (!entries) throw new Error(`${where}: a ${(value as object)?.constructor?.name ?? typeof value} cannot be written into an object`);
  const object: Record<string, unknown> = {};
  for (const [key, item] of entries) {
    if (typeof key !== 'string') throw new Error(`${where}: a map key must be a string`);
    Object.defineProperty(object, key, { value: jsonOf(item, `${where}.${key}`), enumerable: true, writable: true, configurable: true });
  }
  return object;
}

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
}

/** One object's bindings: the request's values, the object as the mutations before left it, lazy variables. */
function bindingsFor(
  values: RequestValues,
  parameters: MutationParameters,
  object: unknown,
  deadline?: WorkDeadline,
): Record<string, unknown> {
  const bindings: Record<string, unknown> = { ...values, object: toCel(object, 'request.object') };
  const evaluator = { variable: (program: CelProgram) => program.run(bindings, new CostBudget(PER_EXPRESSION_COST_LIMIT, deadline)) };
  bindings.variables = new LazyVariables(parameters.declaredVariables, evaluator);
  return bindings;
}

/** The object as a MutatingAdmissionPolicy's (or MutatingPolicy's) conditions and mutations leave it. */
function mutatedByExpressions(
  request: AdmissionRequest,
  parameters: MutationParameters,
  view: unknown,
  oldView: unknown,
  kind: { group: string; kind: string },
  deadline: WorkDeadline | undefined,
): unknown {
  let object: unknown = view;
  const values = {
    oldObject: toCel(oldView ?? null, 'request.oldObject'),
    request: requestBinding(request),
    params: parameters.params,
  };
  // The conditions and the first mutation see the same object: one conversion, one set of variables.
  const budget = () => new CostBudget(PER_EXPRESSION_COST_LIMIT, deadline);
  let bindings = bindingsFor(values, parameters, object, deadline);
  for (const { name, program } of parameters.matchConditions) {
    const holds = program.run(bindings, budget());
    if (typeof holds !== 'boolean') throw new Error(`matchConditions ${name}: returned ${typeof holds}, expected a bool`);
    if (!holds) return view;
  }
  for (const [index, { patchType, program }] of parameters.patches.entries()) {
    const value = program.run(bindings, budget());
    object = patchType === 'JSONPatch' ? withJsonPatch(object, value, index) : withApplyConfiguration(object, value, index, kind);
    if (index + 1 < parameters.patches.length) bindings = bindingsFor(values, parameters, object, deadline);
  }
  return object;
}

export const mutationsPolicy: MutatingPolicy<MutationParameters> = {
  name: 'mutations',
  kind: 'mutating',
  // No default: a rule names the resources its mutations are written for.
  defaultKinds: [],
  parametersSchema: MutationParametersSchema,
  manifests: {
    detect: isManifestData,
    translate: (documents) => rulesFromManifests(documents, { formats: MUTATION_FORMATS, refusals: MUTATION_REFUSALS }),
    claims: (manifest, bundle) => claimedBy(MUTATION_FORMATS, manifest, bundle),
    part: (manifest, bundle) => partFor(MUTATION_FORMATS, manifest, bundle),
    prepare: async (data) => (needsKyvernoEngine(data) ? loadKyvernoEngine() : undefined),
  },
  expandRule: (rule) => (rule.parameters.kyverno ? expandKyvernoRule(rule) : [rule]),
  beforeMutate(parameters) {
    const loads: Promise<unknown>[] = [];
    const kyverno = parameters.kyverno;
    // Kyverno's engine, loaded the first time a rule needs it: a bundle of MutatingAdmissionPolicies never does.
    if (kyverno && !kyvernoEngineLoaded()) loads.push(loadKyvernoEngine());
    if (!regexEngineLoaded() && (parameters.usesRegex || (kyverno && callsRegexFunctions(kyverno)))) loads.push(loadRegexEngine());
    return loads.length > 0 ? Promise.all(loads).then(() => undefined) : undefined;
  },
  routesEachPolicy: true,
  // Every mutation makes a new object: a JSONPatch is applied to a copy, an apply configuration merged into one.
  returnsCopy: true,
  // The object and oldObject become CEL values before anything else, and that conversion refuses an object
  // nested beyond MAX_OBJECT_DEPTH.
  walksWholeObject: false,
  mutate(request, parameters, original, { now, deadline }) {
    if (parameters.kyverno) {
      // Kyverno's own match and exclude (names, selectors, subjects), past the resources the stack matched.
      if (ruledOutBy(request, parameters.kyverno)) return original;
      const patchesPodTemplate = parameters.podControllers.includes(request.kind.kind);
      return kyvernoEngine().mutateWithRule(parameters.kyverno, request, original, patchesPodTemplate, now, deadline);
    }
    // Autogen (a Kyverno MutatingPolicy's): a controller's pod template is mutated as a Pod, then written back.
    const controller = parameters.podControllers.includes(request.kind.kind) ? (request.kind.kind as PodController) : undefined;
    const kind = controller ? { group: '', kind: 'Pod' } : request.kind;
    return mutatedAsPod(controller, original, request.oldObject, (view, oldView) =>
      mutatedByExpressions(request, parameters, view, oldView, kind, deadline),
    );
  },
};
