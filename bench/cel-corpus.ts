// `npm run bench` (second part): the cel function with the shared corpus's Kyverno ValidatingPolicies
// uploaded as one bundle (every policy that runs without the cluster, ≈60), against the same function with
// one native rule, side by side in one run:
//   cold: new process → first answer, corpus bundle vs one rule, and bare Node
//   warm: median and p99 per request on the ~10 KB Pod review with the corpus loaded, vs the JSON floor;
//         and on one policy's route (/validate/cel/<policy>), as the API server calls it once registered
//   size: code loaded at cold start
// Run after `sls package` (bench/run.ts packages into BENCH_PACKAGE first).
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { join } from 'node:path';
import { deployedVariables, unpackFunction } from '../infra/packaged-function.js';
import { BENCH_PACKAGE, lambdaMemoryMb } from './bench-package.js';
import { parseRulesDocument } from '../functions/admission/rules/parse-rules-document.js';
import type { RulesDocument } from '../functions/admission/rules/rules-document-schema.js';
import { celPolicy } from '../functions/cel/policy.js';
import { kyvernoSuites } from '../test/helpers/kyverno-vpol.js';
import {
  heldMemory,
  medianRun,
  memoryAfterFirstAnswer,
  ms,
  quantile,
  ratioSpread,
  runChild,
  verdict,
  type WarmRun,
  warmChild,
  warmRatio,
} from './child-process.js';
import { coldPathBytes } from './loaded-code.js';
import { onCelRoute, sampleEvent } from './sample-review.js';
import { temporaryDirectory } from '../infra/temporary-directory.js';

const COLD_ROUNDS = 15;
const WARM_ITERATIONS = 3000;
const WARM_PROCESSES = 3;
const TARGETS = { coldVsOneRule: 1.5, warm: 3, loadedKb: 400 };
const ROUTED_POLICY = 'disallow-privilege-escalation';

const work = temporaryDirectory('portcullis-cel-corpus-');
// Those that read the cluster need a snapshot: bench/cluster-snapshot.ts measures such a policy.
const readsCluster = (document: RulesDocument<never>) =>
  document.rules.some((rule) => (celPolicy.clusterReads?.(rule.parameters as never) ?? []).length > 0);
const accepted = kyvernoSuites()
  .map((suite) => suite.policyTexts.map(({ text }) => text).join('\n---\n'))
  .map((text) => ({ text, parsed: parseRulesDocument(celPolicy, text) }))
  .filter(({ parsed }) => parsed.ok);
const texts = accepted.filter(({ parsed }) => parsed.ok && !readsCluster(parsed.document as never)).map(({ text }) => text);
const bundle = texts.join('\n---\n');
const parsed = parseRulesDocument(celPolicy, bundle);
if (!parsed.ok) throw new Error(`the corpus bundle is invalid: ${parsed.errors.join('; ')}`);

const rulesFolder = (name: string, document: string) => {
  const folder = join(work, name);
  mkdirSync(folder);
  writeFileSync(join(folder, 'cel.yaml'), document);
  return folder;
};
const corpusRules = rulesFolder('corpus', bundle);
// What `policy push` stores: the same manifests as JSON, which the function parses without the YAML parser.
const corpusJson = rulesFolder('corpus-json', JSON.stringify(parseAllDocuments(bundle).map((document) => document.toJS())));
const oneRule = rulesFolder(
  'one-rule',
  'rules: [{ name: no-latest, match: { kinds: [Pod] }, parameters: { validations: [{ expression: "object.spec.containers.all(c, !c.image.endsWith(\':latest\'))" }] } }]\n',
);

const root = await unpackFunction('cel', BENCH_PACKAGE);
const handlerFile = join(root, 'functions/cel/handler.js');
const eventFile = join(work, 'event.json');
const event = sampleEvent('/validate/cel');
writeFileSync(eventFile, JSON.stringify(event));
const env = (folder: string) => ({ ...deployedVariables('cel', BENCH_PACKAGE), RULES_DIR: folder, POWERTOOLS_LOG_LEVEL: 'INFO' });

console.log(
  `cel with the corpus: ${parsed.document.rules.length} rules from ${texts.length} policy files (${(bundle.length / 1024).toFixed(1)} KB; ${accepted.length - texts.length} that read the cluster left out); cold: ${COLD_ROUNDS} interleaved rounds…`,
);
const cold = { corpus: [] as number[], corpusJson: [] as number[], oneRule: [] as number[], bare: [] as number[] };
for (let round = 0; round < COLD_ROUNDS; round++) {
  cold.corpus.push((await runChild(['bench/cold-start-child.mjs', handlerFile, eventFile], env(corpusRules))).elapsedNs);
  cold.corpusJson.push((await runChild(['bench/cold-start-child.mjs', handlerFile, eventFile], env(corpusJson))).elapsedNs);
  cold.oneRule.push((await runChild(['bench/cold-start-child.mjs', handlerFile, eventFile], env(oneRule))).elapsedNs);
  cold.bare.push((await runChild(['bench/bare-child.mjs', eventFile])).elapsedNs);
}
console.log('warm…');
// As registered, the API server calls each policy's own route: one policy of the loaded corpus per call.
const routedEventFile = join(work, 'routed-event.json');
writeFileSync(routedEventFile, JSON.stringify(onCelRoute(event, ROUTED_POLICY)));
const warmRuns: WarmRun[] = [];
const routedRuns: WarmRun[] = [];
for (let round = 0; round < WARM_PROCESSES; round++) {
  warmRuns.push(await warmChild(handlerFile, eventFile, WARM_ITERATIONS, env(corpusJson)));
  routedRuns.push(await warmChild(handlerFile, routedEventFile, WARM_ITERATIONS, env(corpusJson)));
}
const { run: warm, ratios: warmRatios } = medianRun(warmRuns);
const { run: routed, ratios: routedRatios } = medianRun(routedRuns);

const loaded = coldPathBytes(handlerFile);
const held = await memoryAfterFirstAnswer(handlerFile, eventFile, env(corpusJson));

const median = (values: number[]) => quantile(values, 0.5);
const coldRatio = median(cold.corpusJson) / median(cold.oneRule);
const corpusRatio = warmRatio(warm);
const routedRatio = warmRatio(routed);
console.log(`
cel with the Kyverno ValidatingPolicy corpus as one bundle (${event.body!.length} byte Pod review; ${warm.allowed ? 'allowed' : 'denied'})
cold start, new process → first answer (median of ${COLD_ROUNDS}, interleaved)
  corpus bundle, as pushed (JSON)   ${ms(median(cold.corpusJson))} ms
  corpus bundle, YAML      ${ms(median(cold.corpus))} ms
  one native rule          ${ms(median(cold.oneRule))} ms
  bare Node                ${ms(median(cold.bare))} ms
  ratio corpus / one rule ${coldRatio.toFixed(2)}× (target ≤ ${TARGETS.coldVsOneRule}×: ${verdict(coldRatio <= TARGETS.coldVsOneRule)}); corpus (JSON) / bare ${(median(cold.corpusJson) / median(cold.bare)).toFixed(2)}×
warm, per request with the corpus loaded (${WARM_ITERATIONS} interleaved; the process with the median ratio of ${WARM_PROCESSES})   median      p99
  cel                      ${ms(median(warm.handlerNs))} ms  ${ms(quantile(warm.handlerNs, 0.99))} ms
  floor                    ${ms(median(warm.floorNs))} ms  ${ms(quantile(warm.floorNs, 0.99))} ms
  ratio median ${corpusRatio.toFixed(2)}× (target ≤ ${TARGETS.warm}×: ${verdict(corpusRatio <= TARGETS.warm)}) (${ratioSpread(warmRatios)})
  one policy's route, /validate/cel/${ROUTED_POLICY} (as registered)   ${ms(median(routed.handlerNs))} ms  ${ms(quantile(routed.handlerNs, 0.99))} ms
  its floor                ${ms(median(routed.floorNs))} ms;  ratio ${routedRatio.toFixed(2)}× (target ≤ ${TARGETS.warm}×: ${verdict(routedRatio <= TARGETS.warm)}) (${ratioSpread(routedRatios)})
memory held after the first answer, the corpus loaded (after a full GC)   ${heldMemory(held, lambdaMemoryMb())}
code loaded at cold start  ${(loaded / 1024).toFixed(1)} KB (target ≤ ${TARGETS.loadedKb} KB: ${verdict(loaded <= TARGETS.loadedKb * 1024)})
`);
