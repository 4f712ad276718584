// What an engine is: the semantics a rule of the policy model runs on (CEL, Kyverno's engine, next Rego),
// behind one contract, so the functions run, load and ask every engine alike and never name one. Each engine
// is a folder of its own with an entry module (index.ts) that is all code outside the folder imports; an
// engine imports the runtime (runtime/) and the Kubernetes helpers, never another engine. registry.ts lists
// them; docs/architecture.md says how to add one.
import { type ClusterRead, uniqueReads } from '../admission/cluster/cluster-reads.js';
import type { Findings, PolicyContext } from '../admission/policy.js';
import type { AdmissionRequest } from '../admission/review/admission-review-schema.js';
import type * as v from '../admission/schema.js';
import type { Rule } from '../admission/rules/rules-document-schema.js';
import type { ImageCheck, ImageVerdict } from '../admission/image-verification/image-check.js';

/** What a function hands an engine besides the request and the rule. */
export interface EngineContext extends PolicyContext {
  /** The request's object is a pod controller judged (or patched) by its pod template, as a Pod (autogen). */
  podTemplate: boolean;
  /** The part of the rule another engine runs for this one (a Kyverno rule's validate.cel and celPreconditions). */
  embedded?: EngineRule;
  /** The verdicts on the images the rule asked to be verified (imagesToVerify), by their checks' keys. */
  imageVerdicts?: ReadonlyMap<string, ImageVerdict>;
}

/**
 * An engine. `Validation` and `Mutation` are its own forms of the rules it validates and mutates with, which
 * its schemas make from a rules document once per rules version (compiled, checked), never per request.
 */
export interface Engine<Validation = unknown, Mutation = unknown> {
  /** As rules documents and reports name it; a rule for an engine other than CEL rides in the field of this name. */
  readonly name: string;
  /**
   * The schemas of the rules that ride in its field, which check and compile them when a rules version is
   * read (none for a kind of rule it does not run). CEL has none: its fields are the native document's own,
   * which the functions build their parameters from (engines/cel: validationEntries, mutationEntries).
   */
  readonly schemas?: { validating?: v.GenericSchema<unknown, Validation>; mutating?: v.GenericSchema<unknown, Mutation> };
  /**
   * Loads what running the rule needs and is not loaded yet (the engine's evaluator, RE2), before the
   * synchronous evaluation; undefined when nothing is missing, so a loaded engine costs no microtask.
   * Without a rule, what reading rules needs (check), as a format asks before its manifests are read.
   */
  load(rule?: Validation | Mutation): Promise<void> | undefined;
  /** Parameter fields, besides its name, whose reading needs load() first (CEL's `imageValidation`, `imageDigests`). */
  readonly loadedFor?: readonly string[];
  /**
   * Why a rule as its format read it (before the schema) cannot run here, each problem naming what it found;
   * none when it can. The formats ask when a bundle is read, at upload and in the function alike, after load.
   */
  check(written: unknown): string[];
  /** The rule's findings on the request, within the cost budgets and the deadline of the context. */
  validate(request: AdmissionRequest, rule: Validation, context: EngineContext): Findings;
  /** The object as the rule leaves it, a copy (`object` itself is never changed), within the context's budgets and deadline. */
  mutate(request: AdmissionRequest, rule: Mutation, object: unknown, context: EngineContext): unknown;
  /** The rules a validated rule stands for, itself first: Kyverno's autogen rules. Absent: the rule alone. */
  expand?<P extends { run: EngineRule; podControllers: string[] }>(rule: Rule<P>): Rule<P>[];
  /** The conditions of the rule that the API server can evaluate itself, for registration; none when absent. */
  webhookMatchConditions?(rule: Validation): { name: string; expression: string }[];
  /**
   * What running the rule reads of the cluster (the collections a cluster snapshot must hold for it), which
   * the function then loads and hands over as the context's `cluster`; none when absent or empty.
   */
  clusterReads?(rule: Validation | Mutation): readonly ClusterRead[];
  /** Whether the rule reads image registries (imageRegistry context entries, image.GetMetadata): lookups.ts answers. */
  readsImageRegistries?(rule: Validation | Mutation): boolean;
  /**
   * The images of the request the rule needs verified (signatures in a registry) to validate, or to mutate
   * (a digest to pin): the function verifies them, within the request's deadline, before validate or mutate,
   * and hands the verdicts over as the context's `imageVerdicts`; none when absent or empty.
   */
  imagesToVerify?(
    request: AdmissionRequest,
    rule: Validation | Mutation,
    context: EngineContext,
    purpose: 'validate' | 'mutate',
  ): readonly ImageCheck[];
}

/** A rule as its engine runs it: the engine, its form of the rule, and the part another engine runs for it. */
export interface EngineRule {
  readonly engine: Engine;
  readonly rule: unknown;
  readonly embedded?: EngineRule;
}

/** Pairs a rule with the engine that runs it (the pair is checked here, then the engine is held as any engine). */
export const engineRule = <V, M>(engine: Engine<V, M>, rule: V | M, embedded?: EngineRule): EngineRule => ({
  engine: engine as Engine,
  rule,
  ...(embedded ? { embedded } : {}),
});

/** What a rule and its embedded part read of the cluster, each collection once. */
export function engineRuleReads(run: EngineRule): readonly ClusterRead[] {
  const own = run.engine.clusterReads?.(run.rule) ?? [];
  const other = run.embedded?.engine.clusterReads?.(run.embedded.rule) ?? [];
  return other.length === 0 ? own : uniqueReads([...own, ...other]);
}

/** The one way a function loads what a rule needs: its engine's, and its embedded part's engine's. */
export function loadEngineRule(run: EngineRule): Promise<void> | undefined {
  const own = run.engine.load(run.rule);
  const other = run.embedded?.engine.load(run.embedded.rule);
  if (own && other) return Promise.all([own, other]).then(() => undefined);
  return own ?? other;
}
