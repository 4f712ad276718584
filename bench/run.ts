// `npm run bench`: packages the functions and measures, side by side in one run, the packaged handlers
// against floors that do no policy work at all:
//   warm:  every policy, median and p99 per request on its ~10 KB review vs JSON.parse + JSON.stringify
//   cold:  new process → first response for trusted-registry and cel, rules from a folder and from S3
//          (s3rver), each document stored as `policy push` stores it (JSON), vs a bare Node process
//          answering the same event; for reference the same from a YAML document, trusted-registry as
//          an ESM build without code splitting and as CommonJS, and cel's engine alone (its floor)
//   S3:    requests per 1,000 admissions at 100 requests/s with the default TTL
//   size:  code loaded at cold start per function, and what splitting, minification and tree-shaking buy
// Ratios are what to compare across machines; absolute figures are printed beside them.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import { LOCAL_CREDENTIALS } from '../infra/local-settings.js';
import { deployedVariables, unpackFunction } from '../infra/packaged-function.js';
import { BENCH_PACKAGE, lambdaMemoryMb } from './bench-package.js';
import { startTestS3 } from '../test/helpers/s3-server.js';
import { gatekeeperLibraryMutators } from '../test/helpers/corpora.js';
import { parse } from 'yaml';
import { admissionReviewFor } from '../infra/admission-event.js';
import { policyRegistry } from '../functions/registry.js';
import { MIRRORED_IMAGES, sampleDeployment, sampleDeploymentEvent, sampleEvent } from './sample-review.js';
import { celPolicy } from '../functions/cel/policy.js';
import { CelParametersSchema } from '../functions/cel/rules.js';
import {
  CHILD_NODE_VERSION,
  medianRun,
  heldMemory,
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
import { temporaryDirectory } from '../infra/temporary-directory.js';
import * as v from '../functions/admission/schema.js';

const WARM_ITERATIONS = 5000;
const WARM_PROCESSES = 3;
const COLD_ROUNDS = 15;
const S3_ADMISSIONS = 1000;
const S3_RATE = 100;
const TARGETS = { warm: 3, warmP99Ms: 1, coldFolder: 1.5, coldS3: 2, loadedKb: 150, celLoadedKb: 400 };

const work = temporaryDirectory('portcullis-bench-');
async function bundleSize(entry: string, options: BuildOptions): Promise<number> {
  const outfile = join(work, `size-${Math.random().toString(36).slice(2)}.js`);
  await build({ entryPoints: [entry], bundle: true, platform: 'node', target: 'node22', outfile, logLevel: 'silent', ...options });
  return statSync(outfile).size;
}

console.log('packaging (sls package)…');
execFileSync('npx', ['sls', 'package', '--package', BENCH_PACKAGE, '--param=backgroundAudit=true'], {
  stdio: ['ignore', 'ignore', 'inherit'],
  env: { ...process.env, ESBUILD_WORK_FOLDER: '.esbuild-bench' },
});
const roots = new Map<string, string>();
for (const policy of policyRegistry) roots.set(policy.name, await unpackFunction(policy.name, BENCH_PACKAGE));
// Each child runs with its function's environment as deployed, then the case's own settings.
const deployedByName = new Map(policyRegistry.map(({ name }) => [name, deployedVariables(name, BENCH_PACKAGE)]));
const deployed = (name: string) => deployedByName.get(name)!;
const handlerOf = (name: string) => join(roots.get(name)!, `functions/${name}/handler.js`);
const writeEvent = (name: string, event: unknown) => {
  const file = join(work, `${name}-event.json`);
  writeFileSync(file, JSON.stringify(event));
  return file;
};

/** The event as API Gateway routes it to one policy of a function (`/mutate/<function>/<policy>`). */
const routed = <Event extends object>(event: Event, policy: string) => ({ ...event, pathParameters: { policy } });

// Each policy on its representative object, its packaged handler with its sample rules.
const WARM_CASES = [
  ['trusted-registry', sampleEvent()],
  ['registry-mirror', sampleEvent('/mutate/registry-mirror', MIRRORED_IMAGES)], // every container rewritten
  ['disable-service-links', sampleEvent('/mutate/disable-service-links')],
  ['replica-limits', sampleDeploymentEvent('/validate/replica-limits')],
  ['deploy-windows', sampleDeploymentEvent('/validate/deploy-windows')],
  ['required-labels', sampleEvent('/validate/required-labels')],
  ['cel', sampleDeploymentEvent('/validate/cel')],
  ['audit-log', sampleEvent('/validate/audit-log')],
  // bench/rules/mutations.yaml, each policy on its own route:
  [
    'mutations',
    routed(sampleEvent('/mutate/mutations/mesh-sidecar'), 'mesh-sidecar'),
    'MutatingAdmissionPolicy, sidecar by ApplyConfiguration',
  ],
  [
    'mutations',
    routed(sampleEvent('/mutate/mutations/mesh-sidecar-kyverno'), 'mesh-sidecar-kyverno'),
    'ClusterPolicy, sidecar by patchStrategicMerge',
  ],
  [
    'mutations',
    routed(sampleEvent('/mutate/mutations/gatekeeper-mutation'), 'gatekeeper-mutation'),
    "Gatekeeper library's pod-security mutators",
  ],
] as const;
// The functions whose warm cases have rules of their own, not the packaged sample: bench/rules/, with the
// Gatekeeper library's pod-security mutators (../shared/corpora) joined to the mutations bundle.
const BENCH_RULES = new Set(['mutations']);
const benchRules = join(work, 'rules');
mkdirSync(benchRules);
writeFileSync(
  join(benchRules, 'mutations.yaml'),
  [readFileSync('bench/rules/mutations.yaml', 'utf8'), ...gatekeeperLibraryMutators()].join('\n---\n'),
);
const labelOf = (testCase: (typeof WARM_CASES)[number]) => (testCase.length > 2 ? `${testCase[0]}: ${testCase[2]}` : testCase[0]);
console.log(`warm: ${WARM_ITERATIONS} interleaved requests per policy, in each of ${WARM_PROCESSES} processes…`);
const warmProcesses = new Map<string, WarmRun[]>(WARM_CASES.map((testCase) => [labelOf(testCase), []]));
// Round by round, so a slow spell of the machine falls on every policy alike.
for (let round = 0; round < WARM_PROCESSES; round++) {
  for (const [index, testCase] of WARM_CASES.entries()) {
    const [policy, event] = testCase;
    const rules = BENCH_RULES.has(policy) ? benchRules : join(roots.get(policy)!, 'policies');
    const env = { ...deployed(policy), RULES_DIR: rules, POWERTOOLS_LOG_LEVEL: 'INFO' };
    warmProcesses
      .get(labelOf(testCase))!
      .push(await warmChild(handlerOf(policy), writeEvent(`${policy}-${index}`, event), WARM_ITERATIONS, env));
  }
}
console.log('memory after the first answer…');
const memory = new Map<string, { heapUsed: number; rss: number }>();
for (const [index, testCase] of WARM_CASES.entries()) {
  const [policy, event] = testCase;
  const rules = BENCH_RULES.has(policy) ? benchRules : join(roots.get(policy)!, 'policies');
  const env = { ...deployed(policy), RULES_DIR: rules, POWERTOOLS_LOG_LEVEL: 'INFO' };
  memory.set(labelOf(testCase), await memoryAfterFirstAnswer(handlerOf(policy), writeEvent(`${policy}-${index}`, event), env));
}
const warmRuns = WARM_CASES.map((testCase) => ({
  policy: labelOf(testCase),
  bytes: testCase[1].body!.length,
  ...medianRun(warmProcesses.get(labelOf(testCase))!),
}));

// cel with ten expressions in one rule: compiled once (timed), then evaluated per request.
const TEN_EXPRESSIONS = [
  'object.spec.replicas <= 50',
  'has(object.metadata.labels) && "app" in object.metadata.labels',
  "object.spec.template.spec.containers.all(c, !c.image.endsWith(':latest'))",
  'size(object.metadata.name) < 64',
  'object.spec.template.spec.containers.all(c, has(c.resources) && has(c.resources.limits))',
  "object.metadata.namespace != 'default'",
  "object.spec.template.spec.containers.exists(c, c.name == 'checkout')",
  'object.spec.template.spec.containers.all(c, c.securityContext.runAsNonRoot == true)',
  "object.spec.template.spec.containers.all(c, c.image.startsWith('192.168.64.1:5000/'))",
  "request.operation == 'CREATE' || object.spec.replicas >= oldObject.spec.replicas",
];
let compileStart = process.hrtime.bigint();
const celParameters = v.parse(CelParametersSchema, { validations: TEN_EXPRESSIONS.map((expression) => ({ expression })) });
const celCompileNs = Number(process.hrtime.bigint() - compileStart);
const celRequest = admissionReviewFor(sampleDeployment()).request as never;
if ((celPolicy.evaluate(celRequest, celParameters, { now: new Date() }) as { violations: unknown[] }).violations.length !== 0)
  throw new Error('the ten cel expressions should all hold for the sample');
const celNs: number[] = [];
for (let i = 0; i < WARM_ITERATIONS; i++) {
  compileStart = process.hrtime.bigint();
  celPolicy.evaluate(celRequest, celParameters, { now: new Date() });
  celNs.push(Number(process.hrtime.bigint() - compileStart));
}

// Cold starts. Each function's sample document three ways: JSON in a folder and in S3 (what `policy push`
// stores), and YAML as written in a folder (what the YAML parser costs when it must load).
const s3 = await startTestS3();
// Credentials and region as Lambda puts them in a function's environment (s3rver's fixed pair).
const lambdaCredentials = {
  AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
  AWS_REGION: 'us-east-1',
};
const s3Env = { RULES_BUCKET: s3.bucket, RULES_S3_ENDPOINT: s3.endpoint, POWERTOOLS_LOG_LEVEL: 'INFO', ...lambdaCredentials };
const jsonFolder = join(work, 'json-rules');
mkdirSync(jsonFolder);
const COLD_FUNCTIONS = [
  ['trusted-registry', sampleEvent()],
  ['cel', sampleDeploymentEvent('/validate/cel')],
] as const;
const coldCases: { name: string; args: string[]; env: Record<string, string>; oneCpu?: boolean }[] = [];
for (const [name, event] of COLD_FUNCTIONS) {
  const yamlFolder = join(roots.get(name)!, 'policies');
  const stored = JSON.stringify(parse(readFileSync(join(yamlFolder, `${name}.yaml`), 'utf8')));
  writeFileSync(join(jsonFolder, `${name}.yaml`), stored);
  await s3.put(`policies/${name}.yaml`, stored);
  const args = ['bench/cold-start-child.mjs', handlerOf(name), writeEvent(`cold-${name}`, event)];
  coldCases.push(
    { name: `${name}, folder`, args, env: { ...deployed(name), RULES_DIR: jsonFolder, POWERTOOLS_LOG_LEVEL: 'INFO' } },
    { name: `${name}, S3`, args, env: { ...deployed(name), ...s3Env } },
    { name: `${name}, folder, YAML`, args, env: { ...deployed(name), RULES_DIR: yamlFolder, POWERTOOLS_LOG_LEVEL: 'INFO' } },
  );
}
const eventFile = writeEvent('cold-bare', sampleEvent());
const folderEnv = { ...deployed('trusted-registry'), RULES_DIR: jsonFolder, POWERTOOLS_LOG_LEVEL: 'INFO' };

// trusted-registry as CommonJS and as ESM without code splitting, with the same settings otherwise.
const requireHere = createRequire(import.meta.url);
const esbuildConfig = requireHere('../infra/esbuild-config.cjs') as () => Promise<BuildOptions & Record<string, unknown>>;
// Minus the serverless-esbuild-only keys, and the ESM banner's require (CommonJS has its own); the plugins
// from the file serverless-esbuild reads them from.
const {
  outputFileExtension: _ext,
  exclude: _exclude,
  packager: _packager,
  outputWorkFolder: _work,
  watch: _watch,
  banner: esmBanner,
  plugins: pluginsFile,
  ...shared
} = await esbuildConfig();
const { splitting: _splitting, ...unsplit } = { ...shared, plugins: requireHere(`../${pluginsFile as unknown as string}`) } as BuildOptions;
const cjsFile = join(work, 'cjs', 'handler.cjs');
await build({ ...unsplit, entryPoints: ['functions/trusted-registry/handler.ts'], format: 'cjs', outfile: cjsFile, logLevel: 'silent' });
const unsplitFile = join(work, 'esm-unsplit', 'handler.js');
await build({
  ...unsplit,
  banner: esmBanner,
  entryPoints: ['functions/trusted-registry/handler.ts'],
  format: 'esm',
  outfile: unsplitFile,
  logLevel: 'silent',
});
writeFileSync(join(work, 'esm-unsplit', 'package.json'), '{ "type": "module" }');
// cel's floor: the engine alone, bundled and minified as the function bundles it, on cel's document and event.
const celEngineFile = join(work, 'cel-engine', 'engine.mjs');
await build({
  entryPoints: ['@marcbachmann/cel-js'],
  bundle: true,
  minify: true,
  platform: 'node',
  target: 'node22',
  format: 'esm',
  outfile: celEngineFile,
  logLevel: 'silent',
});
coldCases.push(
  { name: 'trusted-registry, unsplit ESM', args: ['bench/cold-start-child.mjs', unsplitFile, eventFile], env: folderEnv },
  { name: 'trusted-registry, CommonJS', args: ['bench/cold-start-child.mjs', cjsFile, eventFile], env: folderEnv },
  {
    name: 'cel engine alone',
    args: [
      'bench/cel-engine-floor-child.mjs',
      celEngineFile,
      join(jsonFolder, 'cel.yaml'),
      writeEvent('cold-cel-floor', sampleDeploymentEvent('/validate/cel')),
    ],
    env: {},
  },
  { name: 'bare', args: ['bench/bare-child.mjs', eventFile], env: {} },
);
// The same on one CPU, as Lambda gives a small function less than one.
for (const name of ['trusted-registry, folder', 'cel, folder', 'bare']) {
  const { args, env } = coldCases.find((testCase) => testCase.name === name)!;
  coldCases.push({ name: `${name}, one CPU`, args, env, oneCpu: true });
}

console.log(`cold: ${COLD_ROUNDS} interleaved rounds of ${coldCases.length} new processes…`);
const cold = new Map<string, number[]>(coldCases.map(({ name }) => [name, []]));
for (let round = 0; round < COLD_ROUNDS; round++) {
  for (const { name, args, env, oneCpu } of coldCases) cold.get(name)!.push((await runChild(args, env, { oneCpu })).elapsedNs);
}
const coldMedian = (name: string) => quantile(cold.get(name)!, 0.5);

console.log(`S3: ${S3_ADMISSIONS} admissions at ${S3_RATE}/s with the default TTL…`);
const getsBefore = s3.gets('trusted-registry').length;
const rateRun = JSON.parse(
  (
    await runChild(['bench/s3-rate-child.mjs', handlerOf('trusted-registry'), eventFile, String(S3_ADMISSIONS), String(S3_RATE)], {
      ...deployed('trusted-registry'),
      ...s3Env,
    })
  ).stderr,
) as { elapsedMs: number; versions: string[]; failedOpen: number };
const s3Gets = s3.gets('trusted-registry').length - getsBefore;
await s3.close();

const entry = 'functions/trusted-registry/handler.ts';
const functionDir = dirname(handlerOf('trusted-registry'));
const sizes = {
  shippedAll: readdirSync(functionDir)
    .filter((file) => file.endsWith('.js'))
    .reduce((total, file) => total + statSync(join(functionDir, file)).size, 0),
  unsplit: statSync(unsplitFile).size,
  zip: statSync(join(BENCH_PACKAGE, 'trusted-registry.zip')).size,
  unminified: await bundleSize(entry, { format: 'esm', minify: false, mainFields: ['module', 'main'] }),
  noTreeShaking: await bundleSize(entry, { format: 'esm', minify: true, treeShaking: false, mainFields: ['module', 'main'] }),
};
const loaded = policyRegistry.map((policy) => ({
  name: policy.name,
  bytes: coldPathBytes(handlerOf(policy.name)),
  // The functions that run CEL carry its engine.
  limitKb: policy.name === 'cel' || policy.name === 'mutations' ? TARGETS.celLoadedKb : TARGETS.loadedKb,
}));

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const bare = coldMedian('bare');
const coldRow = (name: string, target?: number) => {
  const ratio = coldMedian(name) / bare;
  return `  ${name.padEnd(34)}${ms(coldMedian(name)).padStart(9)} ms  ${ratio.toFixed(2)}×${target ? ` (target ≤ ${target}×: ${verdict(ratio <= target)})` : ''}`;
};

console.log(`
Portcullis benchmark — the functions on node ${CHILD_NODE_VERSION} (the cel expressions' own line: node ${process.version})

warm, per request (${WARM_ITERATIONS} interleaved; the process with the median ratio of ${WARM_PROCESSES})   median       p99   floor median   ratio (target ≤ ${TARGETS.warm}×, p99 ≤ ${TARGETS.warmP99Ms} ms)
${warmRuns
  .map(({ policy, bytes, run, ratios }) => {
    const median = quantile(run.handlerNs, 0.5);
    const p99 = quantile(run.handlerNs, 0.99);
    const ratio = warmRatio(run);
    const outcome = run.patched ? 'patched' : run.allowed ? 'allowed' : 'denied';
    return `  ${`${policy} (${(bytes / 1024).toFixed(1)} KB, ${outcome})`.padEnd(40)}${ms(median)} ms  ${ms(p99)} ms   ${ms(quantile(run.floorNs, 0.5))} ms   ${ratio.toFixed(2)}×: ${verdict(ratio <= TARGETS.warm && p99 <= TARGETS.warmP99Ms * 1e6)} (${ratioSpread(ratios)})`;
  })
  .join('\n')}
  cel, one rule of 10 expressions: compiled once in ${ms(celCompileNs)} ms; evaluation ${ms(quantile(celNs, 0.5))} ms median = ${(quantile(celNs, 0.5) / 10 / 1000).toFixed(1)} µs per expression (target ≤ 50 µs: ${verdict(quantile(celNs, 0.5) / 10 / 1000 <= 50)})

cold start, new process → first response (median of ${COLD_ROUNDS}, interleaved, clean environment)
${coldRow('trusted-registry, folder', TARGETS.coldFolder)}
${coldRow('trusted-registry, S3', TARGETS.coldS3)}
${coldRow('cel, folder', TARGETS.coldFolder)}
${coldRow('cel, S3', TARGETS.coldS3)}
${coldRow('trusted-registry, folder, YAML')}
${coldRow('cel, folder, YAML')}
${coldRow('trusted-registry, unsplit ESM')}
${coldRow('trusted-registry, CommonJS')}
${coldRow('cel engine alone')}  (bare Node + the engine: environment, every expression checked and run; no admission stack)
  cel over its engine alone: folder ${(coldMedian('cel, folder') / coldMedian('cel engine alone')).toFixed(2)}×, S3 ${(coldMedian('cel, S3') / coldMedian('cel engine alone')).toFixed(2)}× (what the admission stack adds on top of the engine; not a target)
  bare Node, no libraries           ${ms(bare).padStart(9)} ms
  (documents as \`policy push\` stores them, JSON, unless marked YAML; S3 is s3rver on loopback)
  on one CPU (taskset -c 0; a 256 MB function gets about a seventh of a vCPU after its init phase, so expect its first answer slower still), against bare Node on one CPU:
${['trusted-registry, folder', 'cel, folder', 'bare'].map((name) => `  ${`${name}, one CPU`.padEnd(34)}${ms(coldMedian(`${name}, one CPU`)).padStart(9)} ms  ${(coldMedian(`${name}, one CPU`) / coldMedian('bare, one CPU')).toFixed(2)}× (two CPUs: ${(coldMedian(name) / bare).toFixed(2)}×)`).join('\n')}

memory held after the first answer (after a full GC)
${[...memory].map(([label, held]) => `  ${`${label} `.padEnd(41)}${heldMemory(held, lambdaMemoryMb())}`).join('\n')}

S3 requests, ${S3_ADMISSIONS} admissions at ${S3_RATE}/s over ${(rateRun.elapsedMs / 1000).toFixed(1)} s, default TTL 5 s
  GETs ${s3Gets} (init load + one conditional GET per elapsed 5 s window = ${1 + Math.floor(rateRun.elapsedMs / 5000)}); ${((s3Gets * 1000) / S3_ADMISSIONS).toFixed(1)} per 1,000 admissions; failed open ${rateRun.failedOpen}

code loaded at cold start (entry + static chunks)
${loaded.map(({ name, bytes, limitKb }) => `  ${name.padEnd(24)}${kb(bytes).padStart(10)} (target ≤ ${limitKb} KB: ${verdict(bytes <= limitKb * 1024)})`).join('\n')}
  trusted-registry: all chunks ${kb(sizes.shippedAll)}; zip ${kb(sizes.zip)}; without code splitting ${kb(sizes.unsplit)}; not minified (unsplit) ${kb(sizes.unminified)}; minified without tree-shaking (unsplit) ${kb(sizes.noTreeShaking)}
`);
