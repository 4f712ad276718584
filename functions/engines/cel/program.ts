// CEL expressions as Kubernetes admission policies write them. Compiling parses the expression and type
// checks it against the environment (environment.ts), so a syntax error, an unknown function or an
// undeclared variable is an invalid rules document at `policy validate`, not a failure at admission.
// What a function cannot answer (authorizer, Kyverno's resource.Post and global context, its http calls
// where the deployment allows no host) is refused here, with the reason. Programs run metered: every evaluation step is charged to a cost budget.
import { type ClusterRead, NAMESPACES, readOf, uniqueReads } from '../../admission/cluster/cluster-reads.js';
import {
  CEL_VARIABLES,
  callOf,
  celEnvironment,
  DROPPED_MAP_KEYS,
  type ExpressionNode,
  forEachChild,
  markNavigation,
  registerLibrariesFor,
  rewriteCalls,
} from './environment.js';
import { currentEvaluation, withEvaluation } from '../runtime/evaluation.js';
import { mayTestIndexedPresence, withIndexedPresence } from './indexed-presence.js';
import { mayConstructObjects, withObjectsAsMaps } from './object-construction.js';
import { DeadlineExceededError } from '../../admission/decide/deadline.js';
import { MAX_OBJECT_DEPTH, ObjectTooDeepError } from '../../admission/decide/object-depth.js';
import { CostBudget } from '../runtime/cost-budget.js';
import { certainlyFails, type CompiledExpression, compileExpression } from './fast-path.js';
import { KYVERNO_FUNCTIONS, LIBRARY_FUNCTIONS } from './libraries/all-libraries.js';
import { httpCallsAllowed } from '../runtime/http-call-hosts.js';
import { PROTOTYPE_KEYS } from './values.js';
import type { Environment } from '@marcbachmann/cel-js';

export interface CelProgram {
  source: string;
  /** Uses a regular expression: the engine must be loaded first (loadRegexEngine). */
  usesRegex: boolean;
  /** The variables it reads (object, params, …): registration passes on only what the API server has. */
  reads: string[];
  /** Calls a Kyverno function, which the API server's CEL environment does not have. */
  usesKyvernoLibrary: boolean;
  /**
   * Reads only object, oldObject and request: its value is the same in every rule judging a request, and a
   * webhook's own matchConditions can read it.
   */
  readsOnlyTheRequest: boolean;
  /** What it reads of the cluster (namespaceObject, Kyverno's resource.Get and resource.List). */
  clusterReads: readonly ClusterRead[];
  /** Reads image data from registries (Kyverno's image.GetMetadata): its rule runs with image lookups (lookups.ts). */
  readsImageRegistries: boolean;
  /** The value, evaluated with every step charged to `budget`; throws on an evaluation error or a spent budget. */
  run(bindings: Record<string, unknown>, budget?: CostBudget): unknown;
  /**
   * As run, for callers that need no words for an error (a messageExpression falls back to message): an
   * error the fast path is certain of is EVALUATION_FAILED, and the engine is not asked for its message.
   */
  runUnworded(bindings: Record<string, unknown>, budget: CostBudget): unknown;
}

/** The two ways a program evaluates, apart, for the tests that compare them on every expression of the corpus. */
export interface EvaluationPaths {
  fastPath?: CompiledExpression;
  engine(bindings: Record<string, unknown>, budget: CostBudget): unknown;
}
const evaluationPaths = new WeakMap<CelProgram, EvaluationPaths>();
export const evaluationPathsOf = (program: CelProgram): EvaluationPaths => evaluationPaths.get(program)!;

/** runUnworded's error where no words were needed; made once, as it carries nothing per request. */
export const EVALUATION_FAILED = new Error('the expression failed to evaluate');

const REQUEST_VARIABLES = new Set(['object', 'oldObject', 'request']);
// Only to word a check's failure: listing the engine's definitions is work a cold start need not do.
let knownFunctions: Set<string> | undefined;
const isKnownFunction = (name: string): boolean =>
  (knownFunctions ??= new Set([
    ...celEnvironment.getDefinitions().functions.map((definition) => definition.name),
    ...LIBRARY_FUNCTIONS,
  ])).has(name);
const REGEX_FUNCTIONS = new Set(['matches', 'find', 'findAll']);

// What a cluster snapshot cannot answer (a registry, the network, an API call that is not a read), and so
// is refused, not guessed. namespaceObject and Kyverno's resource.Get and resource.List read the snapshot.
const NEEDS_THE_CLUSTER: Record<string, string> = {
  authorizer: "authorizer needs the cluster's authorization API, which the function cannot call",
};
const KYVERNO_LOOKUPS: Record<string, string> = {
  'resource.Post': "Kyverno's resource.Post calls the cluster",
  'globalContext.Get': "Kyverno's globalContext.Get reads cached cluster data",
  'globalContext.get': "Kyverno's globalContext.get reads cached cluster data",
  'http.Get': "Kyverno's http.Get calls the network (a deployment allows it to the hosts its httpCallHosts parameter names)",
  'http.Post': "Kyverno's http.Post calls the network (a deployment allows it to the hosts its httpCallHosts parameter names)",
  'http.Client': "Kyverno's http.Client calls the network (a deployment allows it to the hosts its httpCallHosts parameter names)",
  'imagedata.Get': "Kyverno's imagedata.Get reads a registry",
};
// What a test suite's mocks answer (apiCallResponses, globalContextEntries), as Kyverno's CLI answers them.
const SUITE_ANSWERED = new Set(['globalContext.Get', 'globalContext.get', 'http.Get', 'http.Post', 'http.Client']);
// What reads image registries: image data (the functions with the deployment's registry access, `policy
// test` from the suite's context), by its method's name whatever the receiver is written as
// (`dyn(image).GetMetadata(…)`), and an ImageValidatingPolicy's verifications.
const READS_IMAGES = 'GetMetadata';
const VERIFIES_IMAGES = new Set(['verifyImageSignatures', 'verifyAttestationSignatures', 'extractPayload', 'getImageData']);
// What the functions call when the deployment names hosts they may call (http-calls.ts).
const DEPLOYMENT_ALLOWED = new Set(['http.Get', 'http.Post', 'http.Client']);
const deploymentAllowsCalls = httpCallsAllowed();
const HTTP_LIBRARY_REFUSAL =
  "Kyverno's http library calls the network (a deployment allows it to the hosts its httpCallHosts parameter names)";
let suiteAnswersLookups = false;

/**
 * Compiles, in `work`, Kyverno's http and globalContext calls for a test suite whose mocks answer them
 * (`policy test`); everywhere else they stay refused, since nothing on the request path may reach them.
 */
export function withSuiteAnsweredLookups<T>(work: () => T): T {
  const previous = suiteAnswersLookups;
  suiteAnswersLookups = true;
  try {
    return work();
  } finally {
    suiteAnswersLookups = previous;
  }
}

interface Usage {
  identifiers: Set<string>;
  calls: Set<string>;
  refusals: Set<string>;
  /** What resource.Get and resource.List read of the cluster. */
  clusterReads: ClusterRead[];
  /** Whether it calls out (http.Get, http.Post, image.GetMetadata): its value is not the request's alone, and is not shared. */
  callsOut: boolean;
  /** Whether it reads image data from registries (image.GetMetadata). */
  readsImages: boolean;
  /** Map literal keys the engine would drop without a word (it builds the map as a plain object). */
  droppedKeys: Set<string>;
}

function collectUsage(node: ExpressionNode, into: Usage): Usage {
  if (node.op === 'id') into.identifiers.add(node.args as string);
  const call = callOf(node);
  if (call) {
    into.calls.add(call.name);
    const lookup = `${call.receiver}.${call.name}`;
    const answered = (suiteAnswersLookups && SUITE_ANSWERED.has(lookup)) || (deploymentAllowsCalls && DEPLOYMENT_ALLOWED.has(lookup));
    const refusal = call.receiver && !answered && KYVERNO_LOOKUPS[lookup];
    if (DEPLOYMENT_ALLOWED.has(lookup)) into.callsOut = true;
    if (call.name === READS_IMAGES || (!call.receiver && VERIFIES_IMAGES.has(call.name))) into.readsImages = into.callsOut = true;
    if (refusal) into.refusals.add(refusal);
    if (call.receiver === 'resource' && ['Get', 'List', 'get', 'list'].includes(call.name)) {
      const read = resourceRead(call.name, (node.args as [string, ExpressionNode, ExpressionNode[]])[2] ?? []);
      if (typeof read === 'string') into.refusals.add(read);
      else into.clusterReads.push(read);
    }
  }
  if (node.op === 'map') {
    for (const [key] of node.args as [ExpressionNode, ExpressionNode][])
      if (key.op === 'value' && DROPPED_MAP_KEYS.has(key.args as string)) into.droppedKeys.add(key.args as string);
  }
  forEachChild(node, (child) => collectUsage(child, into));
  return into;
}

/** What `resource.Get(apiVersion, resource, namespace, name)` or `resource.List(…, namespace)` reads: a computed argument widens it. */
function resourceRead(name: string, args: ExpressionNode[]): ClusterRead | string {
  const literal = (index: number) =>
    args[index]?.op === 'value' && typeof args[index].args === 'string' ? (args[index].args as string) : '{{';
  const read = readOf(
    { apiVersion: literal(0), resource: literal(1) },
    literal(2) || undefined,
    /^get$/i.test(name) ? literal(3) : undefined,
  );
  return typeof read === 'string' ? `Kyverno's resource.${name}: ${read}` : read;
}

/** The engine's message without its multi-line source excerpt, with the column it points at. */
function firstLine(error: unknown): string {
  const { summary, range, message } = error as { summary?: string; range?: { start?: number }; message?: string };
  const text = summary ?? String(message ?? error).split('\n')[0]!;
  return typeof range?.start === 'number' ? `${text} (at column ${range.start + 1})` : text;
}

// Policies share expressions (a dozen Kyverno policies define the same `allContainers`): one program per
// source, so a request evaluates each shared one once (policy.ts). Bounded, as sources come from documents.
const compiledPrograms = new Map<string, CelProgram | string>();
const MAX_COMPILED_PROGRAMS = 4096;

export interface CompileOptions {
  /** A mutation's expression: it may construct objects (`Object{...}`, `JSONPatch{...}`), as maps. */
  constructsObjects?: boolean;
  /** Another environment than admission's, its libraries registered (Kyverno's authorization modes). */
  environment?: { name: string; env: Environment };
}

/** The compiled program, or the reason the expression does not compile (or cannot run here). */
export function compileCel(source: string, options: CompileOptions = {}): CelProgram | string {
  const key = `${options.environment ? `${options.environment.name}:` : ''}${options.constructsObjects ? 'objects:' : ''}${suiteAnswersLookups ? 'mocked:' : ''}${source}`;
  let program = compiledPrograms.get(key);
  if (program === undefined) {
    if (compiledPrograms.size >= MAX_COMPILED_PROGRAMS) compiledPrograms.clear();
    program = compileProgram(source, options);
    compiledPrograms.set(key, program);
  }
  return program;
}

function compileProgram(source: string, { constructsObjects = false, environment }: CompileOptions): CelProgram | string {
  const env = environment?.env ?? celEnvironment;
  let evaluate: ReturnType<typeof celEnvironment.parse>;
  try {
    let parsed = constructsObjects && mayConstructObjects(source) ? withObjectsAsMaps(source) : source;
    if (mayTestIndexedPresence(parsed)) parsed = withIndexedPresence(parsed);
    evaluate = env.parse(parsed);
  } catch (error) {
    return `does not compile: ${firstLine(error)}`;
  }
  const root = evaluate.ast as unknown as ExpressionNode;
  const usage = collectUsage(root, {
    identifiers: new Set(),
    calls: new Set(),
    refusals: new Set(),
    clusterReads: [],
    callsOut: false,
    readsImages: false,
    droppedKeys: new Set(),
  });
  for (const [name, reason] of Object.entries(NEEDS_THE_CLUSTER)) if (usage.identifiers.has(name)) usage.refusals.add(reason);
  // Kyverno's http library reached other than as `http.Get(…)` (`dyn(http).Get(…)`): calls out all the same.
  if (!environment && usage.identifiers.has('http')) {
    usage.callsOut = true;
    const answered = suiteAnswersLookups || deploymentAllowsCalls;
    if (!answered && ![...usage.refusals].some((reason) => reason.startsWith("Kyverno's http."))) usage.refusals.add(HTTP_LIBRARY_REFUSAL);
  }
  if (usage.refusals.size > 0) return `cannot run without the cluster: ${[...usage.refusals].join('; ')}`;
  if (usage.identifiers.has('namespaceObject')) usage.clusterReads.push(NAMESPACES);
  if (usage.droppedKeys.size > 0)
    return `does not compile: a map literal cannot have the key ${[...usage.droppedKeys].map((key) => `'${key}'`).join(', ')} here (the engine would drop it)`;
  if (!environment) registerLibrariesFor(usage.calls, usage.identifiers);
  rewriteCalls(root);
  const checked = evaluate.check();
  if (!checked.valid) {
    // The check fails on every call to an unknown function, wherever it is; say which.
    const unknown = environment ? [] : [...usage.calls].filter((name) => !isKnownFunction(name));
    if (unknown.length > 0) return `does not compile: unknown function${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`;
    const undeclared = /^Unknown variable: (\S+)/.exec((checked.error as { summary?: string }).summary ?? '');
    if (undeclared) return `does not compile: undeclared ${undeclared[1]} (variables are ${CEL_VARIABLES.slice(0, 5).join(', ')})`;
    return `does not compile: ${firstLine(checked.error)}`;
  }
  markNavigation(root);
  // Built on the first run: a bundle's cold start reads every rule but runs only the routed policy's.
  let compiled: CompiledExpression | undefined | null = null;
  const fastPath = () => (compiled === null ? (compiled = compileExpression(root)) : compiled);
  const reads = CEL_VARIABLES.filter((name) => usage.identifiers.has(name));
  function evaluateOnEngine(bindings: Record<string, unknown>, budget: CostBudget): unknown {
    let result: unknown;
    // The engine's errors are messages for the policy's author: a stack trace would only cost time.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      // The clock of an evaluation this one runs in (a test's), for the libraries that read time.
      const now = currentEvaluation()?.now;
      result = withEvaluation(now ? { budget, now } : { budget }, () => evaluate(bindings));
    } catch (error) {
      throw budget.failure ?? new Error(firstLine(error));
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    // The engine may have absorbed the budget's error (`true || error`); the budget has not.
    if (budget.failure) throw budget.failure;
    return result;
  }
  const usesRegex = [...REGEX_FUNCTIONS].some((name) => usage.calls.has(name)) || usage.identifiers.has('regex');
  /** The fast path where it is certain, else the engine from the start: evaluation is pure. */
  function run(bindings: Record<string, unknown>, budget: CostBudget, wordErrors: boolean): unknown {
    const closures = fastPath();
    if (closures) {
      const spent = budget.spent;
      try {
        // The closures charge `budget` themselves; only RE2 matching charges the evaluation's.
        return usesRegex ? withEvaluation({ budget }, () => closures(bindings, budget)) : closures(bindings, budget);
      } catch (error) {
        // The request's deadline ends the evaluation; anything else the closures did not answer with
        // certainty (a type they leave to the engine, an error, the budget), the engine answers from the start.
        if (error instanceof DeadlineExceededError) throw error;
        if (!wordErrors && certainlyFails(error)) throw EVALUATION_FAILED;
        budget.rewind(spent);
      }
    }
    return evaluateOnEngine(bindings, budget);
  }
  const program: CelProgram = {
    source,
    usesRegex,
    reads,
    usesKyvernoLibrary: [...usage.calls].some((name) => KYVERNO_FUNCTIONS.has(name)),
    // Another environment's own variables (an ImageValidatingPolicy's images) are not the request's.
    readsOnlyTheRequest:
      !environment && reads.every((name) => REQUEST_VARIABLES.has(name)) && usage.clusterReads.length === 0 && !usage.callsOut,
    clusterReads: uniqueReads(usage.clusterReads),
    readsImageRegistries: usage.readsImages,
    run: (bindings, budget = new CostBudget()) => run(bindings, budget, true),
    runUnworded: (bindings, budget) => run(bindings, budget, false),
  };
  evaluationPaths.set(program, {
    get fastPath() {
      return fastPath();
    },
    engine: evaluateOnEngine,
  });
  return program;
}

/** A program's value or error, kept for the other rules that evaluate it on the same request. */
export type SharedResults = Map<CelProgram, { value: unknown } | { error: unknown }>;

function sharedRun(program: CelProgram, bindings: Record<string, unknown>, budget: CostBudget, results: SharedResults): unknown {
  let outcome = results.get(program);
  if (!outcome) {
    try {
      outcome = { value: program.run(bindings, budget) };
    } catch (error) {
      if (error instanceof DeadlineExceededError) throw error;
      outcome = { error };
    }
    results.set(program, outcome);
  }
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}

/**
 * The value of a program, or an Error saying which expression failed and why. With `results`, a program
 * that reads only the request is evaluated once for all the rules that share it.
 */
export function runCel(
  program: CelProgram,
  bindings: Record<string, unknown>,
  budget: CostBudget,
  where: string,
  results?: SharedResults,
): unknown {
  try {
    return results && program.readsOnlyTheRequest ? sharedRun(program, bindings, budget, results) : program.run(bindings, budget);
  } catch (error) {
    // The request's deadline ends the whole evaluation, not this expression: keep its type.
    if (error instanceof DeadlineExceededError) throw error;
    throw new Error(`${where}: ${(error as Error).message}`);
  }
}

/**
 * JSON as CEL sees Kubernetes objects: maps for objects, int (bigint) for whole numbers. A map stays a plain
 * object, far cheaper than a Map to build and to collect, unless it has a key Object.prototype has
 * (PROTOTYPE_KEYS says why): then it becomes a Map. Copy on change: a map or list with no whole number and
 * no such key below it is a CEL value already, kept as it is (CEL values are never changed in place), so
 * only the paths to numbers are copied: of a Pod, a few ports and probes, not every object and list. The conversion is the depth check too: an object nested
 * more than MAX_OBJECT_DEPTH levels throws ObjectTooDeepError naming `field`, so the recursion is bounded
 * by construction and the object is walked once, not twice.
 */
export function toCel(value: unknown, field = 'value'): unknown {
  return convert(value, MAX_OBJECT_DEPTH, field);
}

function convert(value: unknown, depthLeft: number, field: string): unknown {
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
    return value ?? null;
  }
  if (depthLeft === 0) throw new ObjectTooDeepError(field);
  if (Array.isArray(value)) {
    let list: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const converted = convert(item, depthLeft - 1, field);
      if (converted !== item) (list ??= value.slice())[i] = converted;
    }
    return list ?? value;
  }
  let map: Record<string, unknown> | undefined;
  // JSON.parse makes own keys only, and Object.prototype has no enumerable ones.
  for (const key in value) {
    if (PROTOTYPE_KEYS.has(key)) return convertToMap(value, depthLeft, field);
    const item = (value as Record<string, unknown>)[key];
    // Strings are most of a request (names, images, env values) and are CEL values as they are.
    if (typeof item === 'string') continue;
    const converted = convert(item, depthLeft - 1, field);
    if (converted !== item) (map ??= { ...value })[key] = converted;
  }
  return map ?? value;
}

// Apart from convert: a closure there would capture its arguments, and V8 would then allocate a context on
// every call of convert, one per value of the request.
function convertToMap(value: object, depthLeft: number, field: string): Map<string, unknown> {
  return new Map(Object.entries(value).map(([name, item]) => [name, convert(item, depthLeft - 1, field)]));
}
