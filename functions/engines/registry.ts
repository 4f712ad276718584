// Every engine that runs rules of the policy model, in one list: the functions build their rules'
// parameters from it, and tools that run rules outside a function (the CLI, tests, benchmarks) load them
// all from it. CEL's rules are the native document's own fields (the shape of Kubernetes' admission
// policies); any other engine's rule rides in the field of its name (`kyverno: …`), with the rule's CEL
// beside it as its embedded part. Adding an engine is a folder and a line here.
import * as v from '../admission/schema.js';
import { celEngine } from './cel/index.js';
import type { Engine } from './engine.js';
import { gatekeeperEngine } from './gatekeeper/index.js';
import { kyvernoEngine } from './kyverno/index.js';
import { regoEngine } from './rego/index.js';

/** The engines whose rules ride in a field of their own name, beside CEL's. */
export const NAMED_ENGINES: readonly Engine[] = [kyvernoEngine as Engine, regoEngine as Engine, gatekeeperEngine as Engine];

export const ENGINES: readonly Engine[] = [celEngine as Engine, ...NAMED_ENGINES];

type Kind = 'validating' | 'mutating';

const namedEnginesOf = (kind: Kind) => NAMED_ENGINES.filter((engine) => engine.schemas?.[kind]);

/** For a function's parameters: each named engine's rule of the kind, an optional field of the engine's name. */
export const namedEngineFields = (kind: Kind) =>
  Object.fromEntries(namedEnginesOf(kind).map((engine) => [engine.name, v.optional(engine.schemas![kind]!)]));

/** The named engines whose rules of the kind a function's parameters hold (one, for a valid rule). */
export const namedEnginesIn = (parameters: object, kind: Kind): Engine[] =>
  namedEnginesOf(kind).filter((engine) => (parameters as Record<string, unknown>)[engine.name] !== undefined);

/** The named engines of the kind, as a function's errors list them: `kyverno`. */
export const namedEngineNames = (kind: Kind) =>
  namedEnginesOf(kind)
    .map(({ name }) => name)
    .join(', ');

/**
 * Loads the engines whose fields a native rules document's rules write, before it is read: a named engine's
 * field, or a field an engine is loaded for (loadedFor).
 */
export async function loadEnginesWrittenIn(data: unknown): Promise<void> {
  const rules = (data as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(rules)) return;
  const fieldsOf = (engine: Engine) => [...(NAMED_ENGINES.includes(engine) ? [engine.name] : []), ...(engine.loadedFor ?? [])];
  const written = ENGINES.filter((engine) =>
    fieldsOf(engine).some((field) =>
      rules.some((rule) => typeof rule?.parameters === 'object' && rule.parameters !== null && field in rule.parameters),
    ),
  );
  await Promise.all(written.map((engine) => engine.load()));
}

/**
 * Loads what reading rules needs of every engine, for tools that read rules documents synchronously (the
 * CLI, tests, benchmarks); what running a rule needs, the policy's prepareRule loads.
 */
export async function loadEngines(): Promise<void> {
  await Promise.all(ENGINES.map((engine) => engine.load()));
}

export { celEngine } from './cel/index.js';
export { gatekeeperEngine } from './gatekeeper/index.js';
export { kyvernoEngine } from './kyverno/index.js';
export { regoEngine } from './rego/index.js';
