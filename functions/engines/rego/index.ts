// The Rego engine's entry, all that code outside engines/rego/ imports. Rego runs Gatekeeper's
// ConstraintTemplates as written, on a parser, compiler and evaluator of our own with OPA's semantics (no
// JavaScript one exists): syntax/, compile/, eval/ and builtins/ (the language, driven by rego.ts), and
// gatekeeper-target/, Gatekeeper's admission target that turns a request into input and the answer into
// findings. They load when a bundle first holds Rego (load), RE2 with them when a rule calls a regex
// built-in, graphql-js when one calls a GraphQL built-in; the schema below is all a function without Rego loads.
import type { Engine } from '../engine.js';
import { OnDemand } from '../runtime/on-demand.js';
import { loadRegexEngine, regexEngineLoaded } from '../runtime/re2.js';
import type { RegoValidation } from './gatekeeper-target/admission-target.js';
import type { RegoSource } from './compile-sources.js';
import type { Evaluator } from './evaluator.js';
import type { EvalRequest } from './eval-report.js';
import type { OpaCase } from './opa-cases.js';
import type { TestLimits } from '../runtime/test-limits.js';
import { regoRuleSchemaOf } from './gatekeeper-target/rule-schema.js';
import type { SigstoreRule } from './sigstore-target/image-policy-rule.js';
import * as v from '../../admission/schema.js';

const evaluator = new OnDemand<Evaluator>(
  async () => (await import('./evaluator.js')).evaluator,
  "the Rego engine is not loaded (the engine's load() runs before a rule is read or run)",
);

/** A rule of one of the engine's targets: Gatekeeper's, or policy-controller's (sigstore-target/). */
export type RegoRule = RegoValidation | SigstoreRule;
// The engine runs two targets' rules, told apart by the target policy-controller's carry (an engine may not
// import another, and its attestation policies are Rego).
const SIGSTORE_TARGETS: ReadonlySet<unknown> = new Set(['clusterImagePolicy', 'clusterImagePolicyWebhook']);
const isSigstore = (rule: RegoRule | undefined): rule is SigstoreRule =>
  rule !== undefined && SIGSTORE_TARGETS.has((rule as { target?: unknown }).target);

const sigstoreTarget = new OnDemand<typeof import('./sigstore-target/sigstore-target.js')>(
  () => import('./sigstore-target/sigstore-target.js'),
  "policy-controller's target of the Rego engine is not loaded (its format loads it before a bundle is read)",
);

/** Loads policy-controller's target, which reading a ClusterImagePolicy needs (its attestation policies need the evaluator too). */
export const loadImagePolicyTarget = (): Promise<void> | undefined =>
  sigstoreTarget.loaded ? undefined : sigstoreTarget.load().then(() => undefined);

const isSigstoreWritten = (written: unknown): boolean =>
  typeof written === 'object' && written !== null && ('clusterImagePolicy' in written || 'clusterImagePolicyWebhook' in written);

const gatekeeperSchema = regoRuleSchemaOf(() => evaluator.get());
/** Each target's schema, chosen by the fields written: the errors are the chosen one's. */
const regoRuleSchema = v.pipe(
  v.unknown(),
  v.rawTransform(({ dataset, addIssue, NEVER }): RegoRule => {
    const written = dataset.value;
    const schema = isSigstoreWritten(written)
      ? sigstoreTarget.get().sigstoreRuleSchemaOf(written as object, () => evaluator.get())
      : gatekeeperSchema;
    const result = v.safeParse(schema as v.GenericSchema<unknown, RegoRule>, written);
    if (result.success) return result.output;
    for (const issue of result.issues) addIssue({ message: issue.message, ...(issue.path ? { path: issue.path } : {}) });
    return NEVER;
  }),
);

export const regoEngine: Engine<RegoRule, never> = {
  name: 'rego',
  schemas: { validating: regoRuleSchema },
  load(rule) {
    // Asked before every rule of every request: nothing is allocated when nothing is missing. Policy-controller's
    // rules need the evaluator only for their Rego policies, and RE2 for their globs.
    const regex = rule?.usesRegex === true && !regexEngineLoaded();
    const graphql = rule?.usesGraphql === true && !(evaluator.loaded && evaluator.get().graphqlLibrary.loaded());
    const needsEvaluator = !isSigstore(rule) || rule.usesEvaluator;
    // Without a rule, what reading any rule needs: policy-controller's target too (tools read every kind).
    const target = (rule === undefined || isSigstore(rule)) && !sigstoreTarget.loaded;
    if ((evaluator.loaded || !needsEvaluator) && !regex && !graphql && !target) return undefined;
    const withGraphql = async () => {
      if (!needsEvaluator) return;
      await evaluator.load();
      if (graphql) await evaluator.get().graphqlLibrary.load();
    };
    return Promise.all([withGraphql(), regex && loadRegexEngine(), target && sigstoreTarget.load()]).then(() => undefined);
  },
  // Compiles the modules (once: the schema reuses them) and names the documents under data they read unprovided.
  check: (written) => (isSigstoreWritten(written) ? [] : evaluator.get().problemsOf(written)),
  validate: (request, rule, context) =>
    isSigstore(rule)
      ? sigstoreTarget.get().validateSigstore(request, rule, context, (...policy) => evaluator.get().attestationPolicyOutcome(...policy))
      : evaluator.get().validate(request, rule, context),
  mutate() {
    throw new Error('the Rego engine validates only (Gatekeeper mutates with its own mutators, not Rego)');
  },
  // A rule is itself alone: Gatekeeper judges the kinds a constraint matches, no pod templates of controllers.
  expand: (rule) => [rule],
  clusterReads: (rule) => (isSigstore(rule) ? [] : (rule.inventory ?? [])),
  imagesToVerify: (request, rule, _context, purpose) =>
    purpose === 'validate' && isSigstore(rule) ? sigstoreTarget.get().sigstoreImagesToVerify(request, rule) : [],
};

/** The compiler and a document's evaluation, for tools that run Rego outside a function (`npm run bench`). */
export async function regoForTools(): Promise<Pick<Evaluator, 'compileSources' | 'evaluateDocument'>> {
  await Promise.all([evaluator.load(), loadRegexEngine()]);
  return evaluator.get();
}

/** Everything a policy may call, for the commands that run whatever their files call (graphql-js included). */
async function loadEverything() {
  await Promise.all([evaluator.load(), loadRegexEngine()]);
  await evaluator.get().graphqlLibrary.load();
}

/** Rego unit tests as `opa test` runs them (unit-tests.ts), or the compile error that stops them. */
export async function runRegoUnitTests(sources: readonly RegoSource[], limits: TestLimits) {
  await loadEverything();
  return evaluator.get().runUnitTests(sources, limits);
}

/** OPA's compliance cases (`{"cases": [...]}`), each on its own budget and time limit (opa-cases.ts). */
export async function runOpaCases(cases: readonly OpaCase[], limits: TestLimits) {
  await loadEverything();
  return cases.map((entry) => evaluator.get().runOpaCase(entry, limits));
}

/** A query over Rego sources, as `opa eval` runs and reports it (eval-report.ts). */
export async function regoEval(request: EvalRequest) {
  await loadEverything();
  return evaluator.get().evalReport(request);
}

export type { RegoValidation } from './gatekeeper-target/admission-target.js';
export type { EvalReport, EvalRequest } from './eval-report.js';
export type { OpaCase, OpaCaseOutcome } from './opa-cases.js';
export { inventoryOf } from './gatekeeper-target/inventory.js';
export type { RegoSource } from './compile-sources.js';
export type { RegoTestResult, RegoTestRun } from './unit-tests.js';
export { POLICY_CONTROLLER_SHORT_NAMES } from './sigstore-target/predicate-types.js';
/** Why a ClusterImagePolicy's glob is not one policy-controller reads (its format asks, once loadImagePolicyTarget ran). */
export const imageGlobProblem = (glob: string): string | undefined => sigstoreTarget.get().globProblem(glob);
