// The CEL engine's validation of one rule on one request, as Kubernetes evaluates a
// ValidatingAdmissionPolicy: object, oldObject, request, params (the rule's own map; for a Kyverno
// validate.cel rule with paramRef, each param the request selects, the conditions and validations judged
// once per param) and variables (each named variable, evaluated lazily on first use, as Kubernetes does).
// matchConditions all true or the rule does not apply; each validation must be true. As in Kubernetes, each
// validation is decided alone: the violations found are reported even when another validation fails to
// evaluate, and only when none is violated does an error (a runtime error, a non-boolean result) throw, so
// the stack applies the failure policy. A messageExpression that fails, or gives an empty or multi-line
// message, falls back to message. Each expression runs on its own cost budget (Kubernetes' per-call limit),
// which also stops it at the request's deadline. A rule written for Pods judges a controller's pod template.
import type { ClusterView } from '../../admission/cluster/cluster-view.js';
import { isPodController, podFromTemplate } from '../../admission/kubernetes/pod-controllers.js';
import { DeadlineExceededError, type WorkDeadline } from '../../admission/decide/deadline.js';
import type { Findings, Violation } from '../../admission/policy.js';
import type { AdmissionRequest } from '../../admission/review/admission-review-schema.js';
import { CostBudget, PER_EXPRESSION_COST_LIMIT } from '../runtime/cost-budget.js';
import { withCluster } from '../runtime/evaluation.js';
import type { EngineContext } from '../engine.js';
import { LazyVariables } from './lazy-variables.js';
import { namespaceObjectOf } from './namespace-object.js';
import { imageValidationPart } from './image-validation-part.js';
import { paramsFor } from './params-by-request.js';
import { type CelProgram, runCel, type SharedResults, toCel } from './program.js';
import { requestBinding } from './request-binding.js';
import type { CelValidation, VariableSource } from './validation-rule.js';

export function booleanOf(value: unknown, where: string): boolean {
  if (typeof value !== 'boolean') throw new Error(`${where}: returned ${typeof value}, expected a bool`);
  return value;
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
  /** The request's Namespace from the cluster view, converted when the first rule that reads it runs. */
  namespaceObject?: unknown;
  /** The pod template's, for rules that judge a controller by it (autogen). */
  podTemplate?: JudgedObject;
}

// The request as CEL values, converted once per request however many rules judge it (a bundle of
// manifests is dozens of rules). Kept on the request itself rather than in a module-level WeakMap, whose
// young entries V8's young-generation collections keep alive: every request's converted object would be
// promoted to the old generation.
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
export class RuleExpressions {
  readonly bindings: Record<string, unknown>;

  constructor(
    rule: CelValidation,
    params: unknown,
    request: AdmissionRequest,
    converted: RequestBindings,
    private readonly judged: JudgedObject,
    private readonly deadline: WorkDeadline | undefined,
    cluster: ClusterView | undefined,
  ) {
    const variables = rule.declaredVariables.size === 0 ? NO_VARIABLES : new LazyVariables(rule.declaredVariables, this);
    // Few rules read `request`: the others do not pay for converting it.
    const requestValue = rule.readsRequest ? (converted.request ??= requestBinding(request)) : null;
    this.bindings = { object: judged.object, oldObject: judged.oldObject, request: requestValue, params, variables };
    if (rule.readsNamespaceObject) this.bindings.namespaceObject = converted.namespaceObject ??= namespaceObjectOf(request, cluster);
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

/** The first matchCondition that is false, as the reason the rule was skipped. */
function unmetMatchCondition(rule: CelValidation, expressions: RuleExpressions): string | undefined {
  for (const { name, program } of rule.matchConditions) {
    if (!booleanOf(expressions.run(program, `matchConditions ${name}`), `matchConditions ${name}`))
      return `matchConditions ${name} is false`;
  }
  return undefined;
}

/** As unmetMatchCondition, a condition's error a reason to skip too (an ImageValidatingPolicy's failurePolicy Ignore). */
function unmetOrFailing(rule: CelValidation, expressions: RuleExpressions): string | undefined {
  try {
    return unmetMatchCondition(rule, expressions);
  } catch (error) {
    if (error instanceof DeadlineExceededError) throw error;
    return `${(error as Error).message} (failurePolicy Ignore)`;
  }
}

/** The validations' violations and the audit annotations, or the first error when nothing is violated. */
function validationFindings(
  rule: CelValidation,
  expressions: RuleExpressions,
): { violations: Violation[]; auditAnnotations: Record<string, string> } {
  const violations: Violation[] = [];
  let firstError: unknown;
  for (const { program, message, messageProgram, reason } of rule.validations) {
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
  return { violations, auditAnnotations: auditAnnotationsOf(rule, expressions) };
}

export function auditAnnotationsOf(rule: CelValidation, expressions: RuleExpressions): Record<string, string> {
  const auditAnnotations: Record<string, string> = {};
  for (const { key, program } of rule.auditAnnotations) {
    // As Kubernetes: a null value adds no annotation; anything but a string or null is an error.
    const value = expressions.run(program, `auditAnnotations ${key}`);
    if (value === null) continue;
    if (typeof value !== 'string') throw new Error(`auditAnnotations ${key}: returned ${typeof value}, expected a string or null`);
    auditAnnotations[key] = value;
  }
  return auditAnnotations;
}

/** The rule's findings on the request: skipped by a false matchCondition, else its violations. */
export function validateWithCel(request: AdmissionRequest, rule: CelValidation, context: EngineContext): Findings {
  // Kyverno's resource library reads the cluster view of the evaluation in progress, and its http and
  // globalContext libraries a test suite's answers there.
  return rule.clusterReads.length === 0 && context.cluster?.answers === undefined
    ? validated(request, rule, context)
    : withCluster(context.cluster, () => validated(request, rule, context));
}

function validated(request: AdmissionRequest, rule: CelValidation, context: EngineContext): Findings {
  const converted = bindingsOf(request, context.podTemplate);
  const judged = context.podTemplate && converted.podTemplate ? converted.podTemplate : converted;
  if (rule.paramsByRequest) {
    const auditAnnotations: Record<string, string> = {};
    for (const params of paramsFor(rule.paramsByRequest, request)) {
      const expressions = new RuleExpressions(rule, params, request, converted, judged, context.deadline, context.cluster);
      const unmet = unmetMatchCondition(rule, expressions);
      if (unmet) return { violations: [], skipped: unmet };
      const findings = validationFindings(rule, expressions);
      if (findings.violations.length > 0) return findings;
      Object.assign(auditAnnotations, findings.auditAnnotations);
    }
    return { violations: [], auditAnnotations };
  }
  const expressions = new RuleExpressions(rule, rule.params, request, converted, judged, context.deadline, context.cluster);
  const unmet = rule.images?.ignoresMatchConditionErrors ? unmetOrFailing(rule, expressions) : unmetMatchCondition(rule, expressions);
  if (unmet) return { violations: [], skipped: unmet };
  return rule.images
    ? imageValidationPart.get().imageValidationFindings(rule, rule.images, expressions, request)
    : validationFindings(rule, expressions);
}
