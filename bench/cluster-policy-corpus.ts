// `npm run bench` (third part): the cel function with the shared corpus's Kyverno ClusterPolicies uploaded
// as one bundle (every policy of ../shared/corpora/kyverno-clusterpolicy and kyverno-cel that runs here without
// a cluster snapshot; a kyverno-cel policy named as one already in the bundle is left out, as one cluster could
// not hold both),
// side by side in one run:
//   cold:     new process → first answer, the whole bundle vs a one-policy bundle (require-labels): on a
//             policy's route, as the API server calls it once registered, and on the bare route (every rule)
//   validate: `portcullis policy validate` of the whole bundle, a new process each time
//   warm:     median per request on the ~10 KB Pod review on two policies' routes, as registered: a pattern
//             policy and a foreach/JMESPath policy, each vs the JSON floor
// Run after `sls package` (bench/run.ts packages into BENCH_PACKAGE first).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { loadEngines } from '../functions/engines/registry.js';
import { parseRulesDocument } from '../functions/admission/rules/parse-rules-document.js';
import { celPolicy } from '../functions/cel/policy.js';
import { deployedVariables, unpackFunction } from '../infra/packaged-function.js';
import { temporaryDirectory } from '../infra/temporary-directory.js';
import { CORPORA } from '../test/helpers/corpora.js';
import { kyvernoSuites } from '../test/helpers/kyverno-vpol.js';
import { BENCH_PACKAGE } from './bench-package.js';
import {
  celRulesFolder,
  medianRun,
  ms,
  quantile,
  ratioSpread,
  runChild,
  timePolicyValidate,
  verdict,
  type WarmRun,
  warmChild,
  warmRatio,
} from './child-process.js';
import { onCelRoute, sampleEvent } from './sample-review.js';

// The bundle is read here synchronously, as the CLI reads it.
await loadEngines();

const COLD_ROUNDS = 15;
const VALIDATE_ROUNDS = 5;
const WARM_ITERATIONS = 3000;
const WARM_PROCESSES = 3;
const TARGETS = { coldVsOnePolicy: 1.5, validateMs: 2000, warm: 3 };
const ROUTES = { pattern: 'disallow-privilege-escalation', foreach: 'disallow-latest-tag' };
const ONE_POLICY = 'require-labels';

const work = temporaryDirectory('portcullis-cluster-policy-corpus-');
const policies = new Map<string, string>();
for (const folder of ['kyverno-clusterpolicy', 'kyverno-cel']) {
  for (const suite of kyvernoSuites(join(CORPORA, folder))) {
    for (const { text } of suite.policyTexts) {
      const documents = parseAllDocuments(text).map((document) => document.toJS());
      const names = documents.map((document) => String(document?.metadata?.name));
      if (names.some((name) => policies.has(name))) continue;
      // A policy that reads the cluster needs a snapshot: bench/cluster-snapshot.ts measures one.
      const read = parseRulesDocument(celPolicy, text);
      if (!read.ok || read.document.rules.some((rule) => (celPolicy.clusterReads?.(rule.parameters) ?? []).length > 0)) continue;
      for (const name of names) policies.set(name, text);
    }
  }
}
const texts = [...new Set(policies.values())];
const bundle = texts.join('\n---\n');
const parsed = parseRulesDocument(celPolicy, bundle);
if (!parsed.ok) throw new Error(`the ClusterPolicy bundle is invalid: ${parsed.errors.join('; ')}`);
for (const route of Object.values(ROUTES)) if (!policies.has(route)) throw new Error(`${route} is not in the bundle`);

const rulesFolder = (name: string, documents: string) => celRulesFolder(work, name, documents);
const corpusRules = rulesFolder('corpus', bundle);
const onePolicyRules = rulesFolder('one-policy', policies.get(ONE_POLICY)!);
const bundleFile = join(work, 'bundle.yaml');
writeFileSync(bundleFile, bundle);

const root = await unpackFunction('cel', BENCH_PACKAGE);
const handlerFile = join(root, 'functions/cel/handler.js');
const event = sampleEvent('/validate/cel');
const eventFile = join(work, 'event.json');
writeFileSync(eventFile, JSON.stringify(event));
const env = (folder: string) => ({ ...deployedVariables('cel', BENCH_PACKAGE), RULES_DIR: folder, POWERTOOLS_LOG_LEVEL: 'INFO' });

console.log(
  `cel with the ClusterPolicy corpus: ${parsed.document.rules.length} rules from ${texts.length} policy files (${(bundle.length / 1024).toFixed(1)} KB); cold: ${COLD_ROUNDS} interleaved rounds…`,
);
const routedFile = join(work, 'one-policy-event.json');
writeFileSync(routedFile, JSON.stringify(onCelRoute(event, ONE_POLICY)));
const cold = { corpus: [] as number[], onePolicy: [] as number[], corpusBare: [] as number[], onePolicyBare: [] as number[] };
const coldStart = async (file: string, folder: string) =>
  (await runChild(['bench/cold-start-child.mjs', handlerFile, file], env(folder))).elapsedNs;
for (let round = 0; round < COLD_ROUNDS; round++) {
  cold.corpus.push(await coldStart(routedFile, corpusRules));
  cold.onePolicy.push(await coldStart(routedFile, onePolicyRules));
  cold.corpusBare.push(await coldStart(eventFile, corpusRules));
  cold.onePolicyBare.push(await coldStart(eventFile, onePolicyRules));
}
console.log('policy validate…');
const validateNs = await timePolicyValidate(bundleFile, VALIDATE_ROUNDS);
console.log('warm…');
const warm: Record<string, WarmRun[]> = {};
for (const [kind, policy] of Object.entries(ROUTES)) {
  const file = join(work, `${kind}-event.json`);
  writeFileSync(file, JSON.stringify(onCelRoute(event, policy)));
  warm[kind] = [];
  for (let round = 0; round < WARM_PROCESSES; round++)
    warm[kind]!.push(await warmChild(handlerFile, file, WARM_ITERATIONS, env(corpusRules)));
}

const median = (values: number[]) => quantile(values, 0.5);
const coldRatio = median(cold.corpus) / median(cold.onePolicy);
const coldBareRatio = median(cold.corpusBare) / median(cold.onePolicyBare);
const validateMs = median(validateNs) / 1e6;
const warmLines = Object.entries(ROUTES).map(([kind, policy]) => {
  const { run, ratios } = medianRun(warm[kind]!);
  const ratio = warmRatio(run);
  return `  ${kind} policy, /validate/cel/${policy}   ${ms(median(run.handlerNs))} ms  ${ms(quantile(run.handlerNs, 0.99))} ms; floor ${ms(median(run.floorNs))} ms; ratio ${ratio.toFixed(2)}× (target ≤ ${TARGETS.warm}×: ${verdict(ratio <= TARGETS.warm)}) (${ratioSpread(ratios)}; ${run.allowed ? 'allowed' : 'denied'})`;
});
console.log(`
cel with the Kyverno ClusterPolicy corpus as one bundle (${event.body!.length} byte Pod review)
cold start, new process → first answer (median of ${COLD_ROUNDS}, interleaved)
  on /validate/cel/${ONE_POLICY}, as registered:  whole bundle (JSON) ${ms(median(cold.corpus))} ms, one policy ${ms(median(cold.onePolicy))} ms
  ratio ${coldRatio.toFixed(2)}× (target ≤ ${TARGETS.coldVsOnePolicy}×: ${verdict(coldRatio <= TARGETS.coldVsOnePolicy)})
  on /validate/cel (every rule of the bundle judges the Pod):  whole bundle ${ms(median(cold.corpusBare))} ms, one policy ${ms(median(cold.onePolicyBare))} ms; ratio ${coldBareRatio.toFixed(2)}×
policy validate of the whole bundle (median of ${VALIDATE_ROUNDS}, new process each)   ${validateMs.toFixed(0)} ms (target ≤ ${TARGETS.validateMs} ms: ${verdict(validateMs <= TARGETS.validateMs)})
warm, per request on one policy's route with the bundle loaded (${WARM_ITERATIONS} interleaved; the process with the median ratio of ${WARM_PROCESSES})   median      p99
${warmLines.join('\n')}
`);
