// `npm run bench` (Rego): the cel function with the Gatekeeper library's templates of ../shared/corpora/
// gatekeeper-rego uploaded as one bundle, their CEL engines removed so that their Rego runs, each with its
// suite's first constraint; side by side in one run:
//   cold:     new process → first answer on a constraint's route, the whole bundle vs a one-template bundle,
//             and the bundle without the referential templates (they read the cluster)
//   validate: `portcullis policy validate` of the whole bundle, a new process each time
//   warm:     median per request on the ~10 KB Pod review on two constraints' routes (sent from the
//             namespace each constraint matches, so that it judges the Pod), the bundle loaded:
//             allowedrepos, and allow-privilege-escalation (a psp template importing the shared lib), vs the
//             JSON floor
//   eval:     Rego evaluation alone, compiled once, input already parsed, as `opa bench` measures a
//             prepared query: OPA's documentation's RBAC example, and Gatekeeper's requiredlabels on the Pod
// Run after `sls package` (bench/run.ts packages into BENCH_PACKAGE first).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { parseRulesDocument } from '../functions/admission/rules/parse-rules-document.js';
import { celPolicy } from '../functions/cel/policy.js';
import { loadEngines } from '../functions/engines/registry.js';
import { deployedVariables, unpackFunction } from '../infra/packaged-function.js';
import { temporaryDirectory } from '../infra/temporary-directory.js';
import { CORPORA } from '../test/helpers/corpora.js';
import { gatorTests, libraryTemplates, regoOnly } from '../test/helpers/gatekeeper-rego.js';
import { BENCH_PACKAGE, lambdaMemoryMb } from './bench-package.js';
import {
  celRulesFolder,
  heldMemory,
  medianRun,
  memoryAfterFirstAnswer,
  ms,
  quantile,
  ratioSpread,
  runChild,
  timePolicyValidate,
  verdict,
  warmChild,
  warmRatio,
  type WarmRun,
} from './child-process.js';
import { onCelRoute, sampleEvent } from './sample-review.js';

await loadEngines();

const COLD_ROUNDS = 15;
const VALIDATE_ROUNDS = 5;
const WARM_ITERATIONS = 3000;
const WARM_PROCESSES = 3;
const EVAL_ITERATIONS = 20000;
const TARGETS = { coldVsOneTemplate: 1.5, validateMs: 2000, warm: 3, evalUs: { rbac: 36, labels: 71 } };
const ROUTES = { allowedrepos: 'general/allowedrepos', 'psp with lib imports': 'pod-security-policy/allow-privilege-escalation' };

const work = temporaryDirectory('portcullis-gatekeeper-rego-');
// Each constraint with the namespace its match names first, if any: the review is sent from there, so that
// the constraint judges it (allowedrepos' first constraint matches only `default`).
const texts = new Map<string, { text: string; constraint: string; namespace: string; referential: boolean }>();
for (const folder of libraryTemplates()) {
  const [test] = gatorTests(folder);
  const text = [regoOnly(test!.template), test!.constraint].map((document) => stringify(document)).join('---\n');
  const read = parseRulesDocument(celPolicy, text);
  if (!read.ok) continue;
  const referential = read.document.rules.some((rule) => (celPolicy.clusterReads?.(rule.parameters) ?? []).length > 0);
  const namespace = (test!.constraint.spec?.match as { namespaces?: string[] } | undefined)?.namespaces?.[0] ?? 'shop';
  texts.set(folder, { text, constraint: test!.constraint.metadata.name, namespace, referential });
}
const bundle = [...texts.values()].map(({ text }) => text).join('---\n');
const unreferential = [...texts.values()].filter(({ referential }) => !referential);
const parsed = parseRulesDocument(celPolicy, bundle);
if (!parsed.ok) throw new Error(`the Gatekeeper bundle is invalid: ${parsed.errors.join('; ')}`);

const rulesFolder = (name: string, documents: string) => celRulesFolder(work, name, documents);
const corpusRules = rulesFolder('corpus', bundle);
const unreferentialRules = rulesFolder('unreferential', unreferential.map(({ text }) => text).join('---\n'));
const oneTemplate = texts.get(ROUTES.allowedrepos)!;
const oneTemplateRules = rulesFolder('one-template', oneTemplate.text);
const bundleFile = join(work, 'bundle.yaml');
writeFileSync(bundleFile, bundle);

const root = await unpackFunction('cel', BENCH_PACKAGE);
const handlerFile = join(root, 'functions/cel/handler.js');
const routed = ({ constraint, namespace }: { constraint: string; namespace: string }) => {
  const file = join(work, `${constraint}-event.json`);
  writeFileSync(file, JSON.stringify(onCelRoute(sampleEvent('/validate/cel', undefined, namespace), constraint)));
  return file;
};
const event = sampleEvent('/validate/cel');
const env = (folder: string) => ({ ...deployedVariables('cel', BENCH_PACKAGE), RULES_DIR: folder, POWERTOOLS_LOG_LEVEL: 'INFO' });

console.log(
  `cel with Gatekeeper's Rego templates: ${parsed.document.rules.length} constraints of ${texts.size} templates (${(bundle.length / 1024).toFixed(1)} KB); cold: ${COLD_ROUNDS} interleaved rounds…`,
);
const coldFile = routed(oneTemplate);
const cold = { corpus: [] as number[], oneTemplate: [] as number[], unreferential: [] as number[] };
const coldStart = async (folder: string) => (await runChild(['bench/cold-start-child.mjs', handlerFile, coldFile], env(folder))).elapsedNs;
for (let round = 0; round < COLD_ROUNDS; round++) {
  cold.corpus.push(await coldStart(corpusRules));
  cold.oneTemplate.push(await coldStart(oneTemplateRules));
  cold.unreferential.push(await coldStart(unreferentialRules));
}
console.log('policy validate…');
const validateNs = await timePolicyValidate(bundleFile, VALIDATE_ROUNDS);
console.log('warm…');
const warm: Record<string, WarmRun[]> = {};
for (const [name, folder] of Object.entries(ROUTES)) {
  warm[name] = [];
  const file = routed(texts.get(folder)!);
  for (let round = 0; round < WARM_PROCESSES; round++)
    warm[name]!.push(await warmChild(handlerFile, file, WARM_ITERATIONS, env(corpusRules)));
}
const held = await memoryAfterFirstAnswer(handlerFile, routed(oneTemplate), env(corpusRules));
console.log('evaluation alone…');
const labelsRego = join(CORPORA, 'gatekeeper-rego/src/general/requiredlabels/src.rego');
const evaluations: Record<string, number[][]> = { rbac: [], labels: [] };
for (const which of Object.keys(evaluations))
  for (let round = 0; round < WARM_PROCESSES; round++)
    evaluations[which]!.push(
      JSON.parse(
        (await runChild(['--import', 'tsx', 'bench/rego-eval-child.ts', which, String(EVAL_ITERATIONS)], { LABELS_REGO: labelsRego }))
          .stderr,
      ).ns,
    );

const median = (values: number[]) => quantile(values, 0.5);
const coldRatio = median(cold.corpus) / median(cold.oneTemplate);
const unreferentialRatio = median(cold.unreferential) / median(cold.oneTemplate);
const validateMs = median(validateNs) / 1e6;
const warmLines = Object.entries(ROUTES).map(([name, folder]) => {
  const { run, ratios } = medianRun(warm[name]!);
  const ratio = warmRatio(run);
  return `  ${name}, /validate/cel/${texts.get(folder)!.constraint}   ${ms(median(run.handlerNs))} ms  ${ms(quantile(run.handlerNs, 0.99))} ms; floor ${ms(median(run.floorNs))} ms; ratio ${ratio.toFixed(2)}× (target ≤ ${TARGETS.warm}×: ${verdict(ratio <= TARGETS.warm)}) (${ratioSpread(ratios)}; ${run.allowed ? 'allowed' : 'denied'})`;
});
const evalLines = Object.entries(evaluations).map(([which, runs]) => {
  const medians = runs.map((ns) => median(ns) / 1000).sort((a, b) => a - b);
  const us = medians[medians.length >> 1]!;
  const target = TARGETS.evalUs[which as keyof typeof TARGETS.evalUs];
  return `  ${which === 'rbac' ? "OPA's RBAC example" : "Gatekeeper's requiredlabels on the Pod"}   ${us.toFixed(1)} µs (${runs.length} processes: ${medians.map((value) => value.toFixed(1)).join(', ')}); OPA's opa bench ${target} µs: ${verdict(us <= target)}`;
});
console.log(`
cel with Gatekeeper's Rego templates as one bundle (${event.body!.length} byte Pod review)
cold start, new process → first answer on /validate/cel/${oneTemplate.constraint} (median of ${COLD_ROUNDS}, interleaved)
  whole bundle (JSON) ${ms(median(cold.corpus))} ms, allowedrepos alone ${ms(median(cold.oneTemplate))} ms; ratio ${coldRatio.toFixed(2)}× (target ≤ ${TARGETS.coldVsOneTemplate}×: ${verdict(coldRatio <= TARGETS.coldVsOneTemplate)})
  without the ${texts.size - unreferential.length} referential templates (they read the cluster) ${ms(median(cold.unreferential))} ms; ratio ${unreferentialRatio.toFixed(2)}× (target ≤ ${TARGETS.coldVsOneTemplate}×: ${verdict(unreferentialRatio <= TARGETS.coldVsOneTemplate)})
memory held after the first answer, the whole bundle loaded (after a full GC)   ${heldMemory(held, lambdaMemoryMb())}
policy validate of the whole bundle (median of ${VALIDATE_ROUNDS}, new process each)   ${validateMs.toFixed(0)} ms (target ≤ ${TARGETS.validateMs} ms: ${verdict(validateMs <= TARGETS.validateMs)})
warm, per request on one constraint's route with the bundle loaded (${WARM_ITERATIONS} interleaved; the process with the median ratio of ${WARM_PROCESSES})   median      p99
${warmLines.join('\n')}
Rego evaluation alone, compiled once, input parsed (median of ${EVAL_ITERATIONS} per process; the median process)
${evalLines.join('\n')}
`);
