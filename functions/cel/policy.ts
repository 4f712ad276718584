// cel: rules as ValidatingAdmissionPolicy-style CEL expressions, so a team writes a new check as data.
// Variables as in ValidatingAdmissionPolicy: object, oldObject, request, params (the rule's own map; for a
// Kyverno validate.cel rule with paramRef, each param the request selects, the conditions and validations
// judged once per param) and variables (each named variable, evaluated lazily on first use, as Kubernetes
// does). matchConditions all true or the rule does not apply; each validation must be true. As in
// Kubernetes, each validation is decided alone: the violations found are reported even when another
// validation fails to evaluate, and only when none is violated does an error (a runtime error, a non-boolean
// result) throw, so the stack applies the failure policy. A messageExpression that fails, or gives an empty
// or multi-line message, falls back to message. Each expression runs on its own cost budget (Kubernetes'
// per-call limit), which also stops it at the request's deadline.
import type { AdmissionRequest } from '../admission/review/admission-review-schema.js';
import type { Findings, PolicyContext, ValidatingPolicy, Violation } from '../admission/policy.js';
import type { Rule } from '../admission/rules/rules-document-schema.js';
import { CEL_REFUSALS, POLICY_FORMATS } from '../formats/all-formats.js';
import { claimedBy, isManifestData, partFor, rulesFromManifests } from '../formats/manifest-bundle.js';
import { DEFAULT_POD_CONTROLLERS, isPodController, podFromTemplate } from '../admission/kubernetes/pod-controllers.js';
import { DeadlineExceededError, type WorkDeadline } from '../admission/decide/deadline.js';
import { loadRegexEngine, regexEngineLoaded } from '../engines/runtime/re2.js';
import { type CelProgram, runCel, type SharedResults, toCel } from '../engines/cel/program.js';
import { CostBudget, PER_EXPRESSION_COST_LIMIT } from '../engines/runtime/cost-budget.js';
import { requestBinding } from '../engines/cel/request-binding.js';
import { kyvernoEngine, kyvernoEngineLoaded, loadKyvernoEngine, needsKyvernoEngine } from '../engines/kyverno/engine-loader.js';
import { callsRegexFunctions, type KyvernoRule, validatesWithoutCel } from '../engines/kyverno/policy/rule-schema.js';
import { expandKyvernoRule } from '../engines/kyverno/autogen/expand.js';
import { ruledOutBy } from '../engines/kyverno/match/resource-filter.js';
import type { RuleOutcome } from '../engines/kyverno/validate/validate-patterns.js';
import { LazyVariables } from '../engines/cel/lazy-variables.js';
import { paramsFor } from '../engines/cel/params-by-request.js';
import { type CelParameters, CelParametersSchema, type VariableSource } from './rules.js';

function booleanOf(value: unknown, where: string): boolean {
  if (typeof value !== 'boolean') throw new Error(`${where}: returned ${typeof value}, expected a bool`);
  return value;
}

/**
 * A Kyverno rule with its native match and its autogen rules, named as Kyverno's (autogen.ts); a native
 * rule's `kinds: [Pod]` also judges the pod templates of the controllers it does not name.
 */
function expandRule(rule: Rule<CelParameters>): Rule<CelParameters>[] {
  return rule.parameters.kyverno ? expandKyvernoRule(rule) : [withPodControllerKinds(rule)];
}

function withPodControllerKinds(rule: Rule<CelParameters>): Rule<CelParameters> {
  const kinds = rule.match?.kinds;
  if (!kinds?.includes('Pod') || rule.parameters.podControllers.length > 0) return rule;
  const added = DEFAULT_POD_CONTROLLERS.filter((kind) => !kinds.includes(kind));
  return { ...rule, match: { ...rule.match, kinds: [...kinds, ...added] }, parameters: { ...rule.parameters, podControllers: added } };
}

/** A Kyverno rule's outcome as findings: a failure is a violation, a skip says why the rule did not apply. */
function findingsOf(outcome: RuleOutcome): Findings {
  if (outcome.status === 'skip') return { violations: [], skipped: outcome.message };
  return { violations: outcome.status === 'fail' ? [outcome.message] : [] };
}

const NO_VARIABLES: ReadonlyMap<string, unknown> = new Map();

interface JudgedObject {
  object: unknown;
  oldObject: unknown;
  /** The values of the programs that read only the request, for every rule that judges this object. */
  results: SharedResults;
}

interface RequestBindings extends JudgedObject {
  /** The request without object and oldObject, converted when the first rule that reads it runs. */
  request?: unknown;
  /** The pod template's, for rules that judge a controller by it (autogen). */
  podTemplate?: JudgedObject;
}

// The request as CEL values, converted once per request however many rules judge it (a bundle of
// manifests is dozens of rules). Kept on the request itself, not in a module-level WeakMap: V8's young-
// generation collections keep a WeakMap's young entries alive, so every request's converted object was
// promoted to the old generation, and the collections that copied them held requests up.
const BINDINGS = Symbol('cel bindings');
type WithBindings = AdmissionRequest & { [BINDINGS]?: RequestBindings };

function bindingsOf(request: WithBindings, judgesPodTemplate: boolean): RequestBindings {
  let bindings = request[BINDINGS];
  if (!bindings) {
    bindings = {
      object: toCel(request.object ?? null, 'request.object'),
      oldObject: toCel(request.oldObject ?? null, 'request.oldObject'),
      results: new Map(),
    };
    Object.defineProperty(request, BINDINGS, { value: bindings }); // not enumerable: never serialised
  }
  const kind = request.kind.kind;
  if (judgesPodTemplate && isPodController(kind) && !bindings.podTemplate) {
    bindings.podTemplate = {
      object: podFromTemplate(kind, bindings.object),
      oldObject: podFromTemplate(kind, bindings.oldObject),
      results: new Map(),
    };
  }
  return bindings;
}

/**
 * One rule's expressions on one request: the bindings they read, each expression on a budget of its own
 * (Kubernetes' per-call limit, which also stops it at the deadline). An object, not closures made per
 * rule: a bundle of manifests is dozens of rules on every request.
 */
class RuleExpressions {
  readonly bindings: Record<string, unknown>;

  constructor(
    parameters: CelParameters,
    params: unknown,
    request: AdmissionRequest,
    converted: RequestBindings,
    private readonly judged: JudgedObject,
    private readonly deadline: WorkDeadline | undefined,
  ) {
    const variables = parameters.declaredVariables.size === 0 ? NO_VARIABLES : new LazyVariables(parameters.declaredVariables, this);
    // Few rules read `request`: the others do not pay for converting it.
    const requestValue = parameters.readsRequest ? (converted.request ??= requestBinding(request)) : null;
    this.bindings = { object: judged.object, oldObject: judged.oldObject, request: requestValue, params, variables };
  }

  run(program: CelProgram, where: string): unknown {
    return runCel(program, this.bindings, this.budget(), where, this.judged.results);
  }

  variable(source: VariableSource, name: string): unknown {
    return 'value' in source ? source.value : this.run(source.program, `variables.${name}`);
  }

  /** A messageExpression's message, or undefined (use message) when it fails, is empty or spans lines. */
  message(program: CelProgram): string | undefined {
    try {
      // A message's error is never shown (message stands in for it), so it is not put in words.
      const text = program.runUnworded(this.bindings, this.budget());
      return typeof text === 'string' && text.trim() !== '' && !/[\r\n]/.test(text) ? text : undefined;
    } catch {
      return undefined;
    }
  }

  /** A fresh budget for one expression: Kubernetes' limit is per expression. */
  private budget(): CostBudget {
    return new CostBudget(PER_EXPRESSION_COST_LIMIT, this.deadline);
  }
}

/** A Kyverno rule's findings when its own means decide it (a skip, or a validation not in CEL); else undefined. */
function settledByKyverno(
  request: AdmissionRequest,
  kyverno: KyvernoRule,
  judgesPodTemplate: boolean,
  context: PolicyContext,
): Findings | undefined {
  const outcome = kyvernoEngine().kyvernoOutcome(request, kyverno, judgesPodTemplate, context);
  return validatesWithoutCel(kyverno) || outcome.status === 'skip' ? findingsOf(outcome) : undefined;
}

/** The first matchCondition that is false, as the reason the rule was skipped. */
function unmetMatchCondition(parameters: CelParameters, expressions: RuleExpressions): string | undefined {
  for (const { name, program } of parameters.matchConditions) {
    if (!booleanOf(expressions.run(program, `matchConditions ${name}`), `matchConditions ${name}`))
      return `matchConditions ${name} is false`;
  }
  return undefined;
}

/** The validations' violations and the audit annotations, or the first error when nothing is violated. */
function validationFindings(
  parameters: CelParameters,
  expressions: RuleExpressions,
): { violations: Violation[]; auditAnnotations: Record<string, string> } {
  const violations: Violation[] = [];
  let firstError: unknown;
  for (const { program, message, messageProgram, reason } of parameters.validations) {
    try {
      if (booleanOf(expressions.run(program, program.source), program.source)) continue;
    } catch (error) {
      if (error instanceof DeadlineExceededError) throw error;
      firstError ??= error;
      continue;
    }
    const text = (messageProgram && expressions.message(messageProgram)) ?? message ?? `failed expression: ${program.source}`;
    violations.push(reason ? { message: text, reason } : { message: text });
  }
  if (violations.length === 0 && firstError !== undefined) throw firstError;
  const auditAnnotations: Record<string, string> = {};
  for (const { key, program } of parameters.auditAnnotations) {
    // As Kubernetes: a null value adds no annotation; anything but a string or null is an error.
    const value = expressions.run(program, `auditAnnotations ${key}`);
    if (value === null) continue;
    if (typeof value !== 'string') throw new Error(`auditAnnotations ${key}: returned ${typeof value}, expected a string or null`);
    auditAnnotations[key] = value;
  }
  return { violations, auditAnnotations };
}

export const celPolicy: ValidatingPolicy<CelParameters> = {
  name: 'cel',
  kind: 'validating',
  // No default: a rule names the kinds its expressions are written for (match.kinds is required).
  defaultKinds: [],
  // Not walksWholeObject: converting the object to CEL values is its depth check (toCel), and an object too
  // deep is the request's failure, never a rule's (evaluate-rules.ts).
  parametersSchema: CelParametersSchema,
  // A bundle with ClusterPolicies needs Kyverno's engine, loaded before it is read, and only then.
  manifests: {
    detect: isManifestData,
    translate: (documents) => rulesFromManifests(documents, { formats: POLICY_FORMATS, refusals: CEL_REFUSALS }),
    claims: (manifest, bundle) => claimedBy(POLICY_FORMATS, manifest, bundle),
    part: (manifest, bundle) => partFor(POLICY_FORMATS, manifest, bundle),
    prepare: async (data) => (needsKyvernoEngine(data) ? loadKyvernoEngine() : undefined),
  },
  routesEachPolicy: true,
  readsFieldsInExpressions: true,
  webhookMatchConditions({ matchConditions, podControllers, kyverno }) {
    // Written for Pods, autogen's conditions judge pod templates: the API server would judge the controller.
    // A ClusterPolicy's celPreconditions are its rule's alone, while its webhook serves every rule.
    if (podControllers.length > 0 || kyverno) return [];
    // The API server's own environment has object, oldObject and request (and authorizer, which cel
    // refuses), and none of Kyverno's functions.
    const apiServerCan = (program: CelProgram) => !program.usesKyvernoLibrary && program.readsOnlyTheRequest;
    return matchConditions
      .filter(({ program }) => apiServerCan(program))
      .map(({ name, program }) => ({ name, expression: program.source }));
  },
  expandRule,
  evaluate(request, parameters, context) {
    // Synchronous unless a rule needs the regular expression engine and it is not loaded yet.
    if (!regexEngineLoaded() && (parameters.usesRegex || (parameters.kyverno && callsRegexFunctions(parameters.kyverno))))
      return loadRegexEngine().then(() => celPolicy.evaluate(request, parameters, context));
    if (parameters.kyverno && !kyvernoEngineLoaded())
      return loadKyvernoEngine().then(() => celPolicy.evaluate(request, parameters, context));
    const judgesPodTemplate = parameters.podControllers.includes(request.kind.kind);
    const kyverno = parameters.kyverno;
    const ruledOut = kyverno && ruledOutBy(request, kyverno);
    if (ruledOut) return { violations: [], skipped: ruledOut };
    // A Kyverno rule with nothing in CEL never converts the request to CEL values.
    if (kyverno && validatesWithoutCel(kyverno) && parameters.matchConditions.length === 0)
      return findingsOf(kyvernoEngine().kyvernoOutcome(request, kyverno, judgesPodTemplate, context));
    const converted = bindingsOf(request, judgesPodTemplate);
    const judged = judgesPodTemplate && converted.podTemplate ? converted.podTemplate : converted;
    if (parameters.paramsByRequest) {
      // Kyverno's preconditions first: the rule's CEL conditions may read params, so they are judged with each.
      const settled = kyverno && settledByKyverno(request, kyverno, judgesPodTemplate, context);
      if (settled) return settled;
      const auditAnnotations: Record<string, string> = {};
      for (const params of paramsFor(parameters.paramsByRequest, request)) {
        const expressions = new RuleExpressions(parameters, params, request, converted, judged, context.deadline);
        const unmet = unmetMatchCondition(parameters, expressions);
        if (unmet) return { violations: [], skipped: unmet };
        const findings = validationFindings(parameters, expressions);
        if (findings.violations.length > 0) return findings;
        Object.assign(auditAnnotations, findings.auditAnnotations);
      }
      return { violations: [], auditAnnotations };
    }
    const expressions = new RuleExpressions(parameters, parameters.params, request, converted, judged, context.deadline);
    const unmet = unmetMatchCondition(parameters, expressions);
    if (unmet) return { violations: [], skipped: unmet };
    // Kyverno's preconditions (and its own validation, if any) after the CEL ones.
    const settled = kyverno && settledByKyverno(request, kyverno, judgesPodTemplate, context);
    return settled || validationFindings(parameters, expressions);
  },
};
