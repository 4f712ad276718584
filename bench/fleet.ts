// `npm run bench` (fleet): the cel function serving a fleet of 100 clusters (fleet.yaml with labels and
// overrides, placement selectors on a third of the corpus bundle's ≈60 policies, and an overlay per cluster
// that replaces 5 of them with its own), against the same bundle with no fleet, side by side in one run:
//   cold:   new process → a cluster's first answer (its token), fleet vs no fleet
//   warm:   per request of one cluster, with the fleet, vs the JSON floor: on the bare route (every policy)
//           beside the same bundle with no fleet, and on one policy's route, as the API server calls it
//   memory: a warm function that has served 100 clusters vs one that has served one (heap after GC, RSS)
// Each cluster's overlaid policies are its own (their messages name it), so 500 rules are compiled beside the
// bundle's: the most the rule cache can be made to hold. Run after `sls package` (bench/run.ts packages first).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { parseRulesDocument } from '../functions/admission/rules/parse-rules-document.js';
import type { RulesDocument } from '../functions/admission/rules/rules-document-schema.js';
import { celPolicy } from '../functions/cel/policy.js';
import { deployedVariables, unpackFunction } from '../infra/packaged-function.js';
import { temporaryDirectory } from '../infra/temporary-directory.js';
import { kyvernoSuites } from '../test/helpers/kyverno-vpol.js';
import { BENCH_PACKAGE } from './bench-package.js';
import { medianRun, ms, quantile, ratioSpread, runChild, verdict, type WarmRun, warmChild, warmRatio } from './child-process.js';
import { onCelRoute, sampleEvent } from './sample-review.js';

const CLUSTERS = 100;
const OVERLAID = 5;
const COLD_ROUNDS = 15;
const WARM_ITERATIONS = 3000;
const WARM_PROCESSES = 3;
const MEMORY_PROCESSES = 3;
const TARGETS = { cold: 1.2, warm: 3, memory: 1.5 };
const ENVIRONMENTS = ['prod', 'staging', 'dev'];
const REGIONS = ['eu-west-1', 'us-east-1', 'ap-south-1', 'sa-east-1'];

const work = temporaryDirectory('portcullis-fleet-bench-');
const readsCluster = (document: RulesDocument<never>) =>
  document.rules.some((rule) => (celPolicy.clusterReads?.(rule.parameters as never) ?? []).length > 0);
const texts = kyvernoSuites()
  .map((suite) => suite.policyTexts.map(({ text }) => text).join('\n---\n'))
  .filter((text) => {
    const parsed = parseRulesDocument(celPolicy, text);
    return parsed.ok && !readsCluster(parsed.document as never);
  });
const manifests = parseAllDocuments(texts.join('\n---\n'))
  .map((document) => document.toJS() as Record<string, any>)
  .filter(Boolean);
const policies = manifests.filter((manifest) => manifest.kind === 'ValidatingPolicy');

const clusterName = (index: number) => `cluster-${String(index).padStart(3, '0')}`;
const clusters = Array.from({ length: CLUSTERS }, (_, index) => ({
  name: clusterName(index),
  labels: { env: ENVIRONMENTS[index % ENVIRONMENTS.length]!, region: REGIONS[index % REGIONS.length]! },
}));
const tokenOf = (cluster: string) => `${cluster}-token-0123456789abcdef`;

/** The bundle with a third of its policies placed on prod and staging clusters. */
const placed = manifests.map((manifest) =>
  manifest.kind === 'ValidatingPolicy' && policies.indexOf(manifest) % 3 === 0
    ? { ...manifest, metadata: { ...manifest.metadata, annotations: { 'portcullis.dev/clusters': 'env in (prod,staging)' } } }
    : manifest,
);
/** A cluster's overlay: 5 of the bundle's policies, each with messages of its own. */
const overlayOf = (index: number) =>
  Array.from({ length: OVERLAID }, (_, offset) => {
    const policy = structuredClone(policies[(index * OVERLAID + offset) % policies.length]!);
    for (const validation of policy.spec.validations ?? [])
      validation.message = `${validation.message ?? 'denied'} (${clusterName(index)})`;
    return policy;
  });
const fleetYaml = JSON.stringify({
  clusters,
  overrides: [0, 1, 2].map((offset) => ({ policies: [policies[offset]!.metadata.name], clusters: 'env=staging', action: 'Warn' })),
});

const folder = (name: string, files: Record<string, string>) => {
  const root = join(work, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
};
const noFleet = folder('no-fleet', { 'cel.yaml': JSON.stringify(manifests) });
const fleet = folder('fleet', {
  'cel.yaml': JSON.stringify(placed),
  'fleet.yaml': fleetYaml,
  ...Object.fromEntries(clusters.map(({ name }, index) => [`clusters/${name}/cel.yaml`, JSON.stringify(overlayOf(index))])),
});
const parsed = parseRulesDocument(celPolicy, JSON.stringify(placed));
if (!parsed.ok) throw new Error(`the fleet's bundle is invalid: ${parsed.errors.join('; ')}`);

const root = await unpackFunction('cel', BENCH_PACKAGE);
const handlerFile = join(root, 'functions/cel/handler.js');
const eventWithToken = (token: string) => {
  const event = sampleEvent('/validate/cel');
  return { ...event, headers: { ...event.headers, authorization: `Bearer ${token}` } };
};
// A prod cluster: every placed policy applies to it, and its overlay.
const caller = clusterName(42);
const fleetEventFile = join(work, 'fleet-event.json');
writeFileSync(fleetEventFile, JSON.stringify(eventWithToken(tokenOf(caller))));
const singleEventFile = join(work, 'single-event.json');
writeFileSync(singleEventFile, JSON.stringify(eventWithToken(tokenOf('default'))));
// As registered, the API server calls each policy's own route.
const ROUTED_POLICY = 'disallow-privilege-escalation';
const routedEventFile = join(work, 'routed-event.json');
writeFileSync(routedEventFile, JSON.stringify(onCelRoute(eventWithToken(tokenOf(caller)), ROUTED_POLICY)));
const fleetTokens = clusters.map(({ name }) => `${name}=${tokenOf(name)}`).join(',');
const env = (rules: string, tokens: string) => ({
  ...deployedVariables('cel', BENCH_PACKAGE),
  RULES_DIR: rules,
  WEBHOOK_TOKENS: tokens,
  POWERTOOLS_LOG_LEVEL: 'INFO',
});
const fleetEnv = env(fleet, fleetTokens);
const singleEnv = env(noFleet, tokenOf('default'));

console.log(
  `cel serving a fleet: ${CLUSTERS} clusters, ${parsed.document.rules.length} rules from ${policies.length} policies, ${OVERLAID} overlaid per cluster; cold: ${COLD_ROUNDS} interleaved rounds…`,
);
const cold = { fleet: [] as number[], single: [] as number[] };
for (let round = 0; round < COLD_ROUNDS; round++) {
  cold.fleet.push((await runChild(['bench/cold-start-child.mjs', handlerFile, fleetEventFile], fleetEnv)).elapsedNs);
  cold.single.push((await runChild(['bench/cold-start-child.mjs', handlerFile, singleEventFile], singleEnv)).elapsedNs);
}
console.log('warm…');
const warmRuns: WarmRun[] = [];
const singleRuns: WarmRun[] = [];
const routedRuns: WarmRun[] = [];
for (let round = 0; round < WARM_PROCESSES; round++) {
  warmRuns.push(await warmChild(handlerFile, fleetEventFile, WARM_ITERATIONS, fleetEnv));
  singleRuns.push(await warmChild(handlerFile, singleEventFile, WARM_ITERATIONS, singleEnv));
  routedRuns.push(await warmChild(handlerFile, routedEventFile, WARM_ITERATIONS, fleetEnv));
}
const { run: warm, ratios } = medianRun(warmRuns);
const { run: single, ratios: singleRatios } = medianRun(singleRuns);
const { run: routed, ratios: routedRatios } = medianRun(routedRuns);

console.log('memory…');
interface Memory {
  heapUsed: number;
  rss: number;
}
const memoryOf = async (served: number): Promise<Memory> => {
  const { stderr } = await runChild(['--expose-gc', 'bench/fleet-memory-child.mjs', handlerFile, fleetEventFile, String(served)], {
    ...fleetEnv,
    BENCH_CLUSTER_TOKENS: JSON.stringify(clusters.map(({ name }) => tokenOf(name))),
  });
  return JSON.parse(stderr) as Memory;
};
const memory = { one: [] as Memory[], all: [] as Memory[] };
for (let round = 0; round < MEMORY_PROCESSES; round++) {
  memory.one.push(await memoryOf(1));
  memory.all.push(await memoryOf(CLUSTERS));
}

const median = (values: number[]) => quantile(values, 0.5);
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const coldRatio = median(cold.fleet) / median(cold.single);
const warmFactor = warmRatio(warm);
const heap = { one: median(memory.one.map(({ heapUsed }) => heapUsed)), all: median(memory.all.map(({ heapUsed }) => heapUsed)) };
const rss = { one: median(memory.one.map(({ rss: value }) => value)), all: median(memory.all.map(({ rss: value }) => value)) };
const heapRatio = heap.all / heap.one;
const rssRatio = rss.all / rss.one;
console.log(`
cel serving a fleet of ${CLUSTERS} clusters (${OVERLAID} overlaid policies each, placement on a third of the bundle, 3 overrides)
cold start, new process → a cluster's first answer (median of ${COLD_ROUNDS}, interleaved)
  fleet: ${caller}, its overlay and fleet.yaml   ${ms(median(cold.fleet))} ms
  the same bundle, no fleet                      ${ms(median(cold.single))} ms
  ratio ${coldRatio.toFixed(2)}× (target ≤ ${TARGETS.cold}×: ${verdict(coldRatio <= TARGETS.cold)})
warm, per request of ${caller} (${WARM_ITERATIONS} interleaved; the process with the median ratio of ${WARM_PROCESSES})   median      p99
  cel                      ${ms(median(warm.handlerNs))} ms  ${ms(quantile(warm.handlerNs, 0.99))} ms
  floor                    ${ms(median(warm.floorNs))} ms  ${ms(quantile(warm.floorNs, 0.99))} ms
  ratio median ${warmFactor.toFixed(2)}× (target ≤ ${TARGETS.warm}×: ${verdict(warmFactor <= TARGETS.warm)}) (${ratioSpread(ratios)})
  the same bundle, no fleet ${ms(median(single.handlerNs))} ms  ${ms(quantile(single.handlerNs, 0.99))} ms; ratio ${warmRatio(single).toFixed(2)}× (${ratioSpread(singleRatios)})
  one policy's route, /validate/cel/${ROUTED_POLICY} (as registered)   ${ms(median(routed.handlerNs))} ms  ${ms(quantile(routed.handlerNs, 0.99))} ms
  its floor                ${ms(median(routed.floorNs))} ms;  ratio ${warmRatio(routed).toFixed(2)}× (target ≤ ${TARGETS.warm}×: ${verdict(warmRatio(routed) <= TARGETS.warm)}) (${ratioSpread(routedRatios)})
memory of a warm function (after GC; median of ${MEMORY_PROCESSES} processes each)   heap used   RSS
  served 1 cluster         ${mb(heap.one)} MB     ${mb(rss.one)} MB
  served ${CLUSTERS} clusters      ${mb(heap.all)} MB     ${mb(rss.all)} MB
  ratio heap ${heapRatio.toFixed(2)}× (target ≤ ${TARGETS.memory}×: ${verdict(heapRatio <= TARGETS.memory)}); RSS ${rssRatio.toFixed(2)}× (target ≤ ${TARGETS.memory}×: ${verdict(rssRatio <= TARGETS.memory)})
`);
