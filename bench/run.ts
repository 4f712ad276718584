// `npm run bench`: packages the functions and measures, side by side in one run, the packaged
// trusted-registry handler against floors that do no policy work at all:
//   warm:  median and p99 per request on a ~10 KB Pod review vs JSON.parse + JSON.stringify of the same
//   cold:  new process → first response vs a bare Node process answering the same event, plus a CJS build,
//          an ESM build without code splitting, and the same bundle loading its rules from S3 (s3rver)
//   S3:    requests per 1,000 admissions at 100 requests/s with the default TTL
//   size:  what loads at cold start, and what splitting, minification, tree-shaking and zod/mini buy
// Ratios are what to compare across machines; absolute figures are printed beside them.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import { LOCAL_CREDENTIALS } from '../infra/local-settings.js';
import { unpackFunction } from '../infra/packaged-function.js';
import { BENCH_PACKAGE } from './bench-package.js';
import { startTestS3 } from '../test/helpers/s3-server.js';
import { compare } from 'fast-json-patch/index.mjs';
import { admissionReviewFor } from '../infra/admission-event.js';
import { registryMirrorPolicy } from '../functions/registry-mirror/policy.js';
import { RegistryMirrorParametersSchema } from '../functions/registry-mirror/rules.js';
import { MIRRORED_IMAGES, sampleDeployment, sampleDeploymentEvent, samplePod, sampleEvent } from './sample-review.js';
import { celPolicy } from '../functions/cel/policy.js';
import { CelParametersSchema } from '../functions/cel/rules.js';
import { ms, quantile, runChild, verdict } from './child-process.js';
import { coldPathBytes } from './loaded-code.js';

const WARM_ITERATIONS = 5000;
const COLD_ROUNDS = 15;
const S3_ADMISSIONS = 1000;
const S3_RATE = 100;
const TARGETS = { warm: 3, warmMutating: 4, cold: 1.7, bundleKb: 400 };

const work = mkdtempSync(join(tmpdir(), 'portcullis-bench-'));
async function bundleSize(entry: string, options: BuildOptions): Promise<number> {
  const outfile = join(work, `size-${Math.random().toString(36).slice(2)}.js`);
  await build({ entryPoints: [entry], bundle: true, platform: 'node', target: 'node22', outfile, logLevel: 'silent', ...options });
  return statSync(outfile).size;
}

console.log('packaging (sls package)…');
execFileSync('npx', ['sls', 'package', '--package', BENCH_PACKAGE], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, ESBUILD_WORK_FOLDER: '.esbuild-bench' } });
const root = await unpackFunction('trusted-registry', BENCH_PACKAGE);
const handlerFile = join(root, 'functions/trusted-registry/handler.js');
const eventFile = join(work, 'event.json');
const event = sampleEvent();
writeFileSync(eventFile, JSON.stringify(event));
const rulesEnv = { RULES_DIR: join(root, 'policies'), POWERTOOLS_LOG_LEVEL: 'INFO' };

// A CommonJS build of the same handler with the same settings, to measure what ESM buys at cold start.
const esbuildConfig = createRequire(import.meta.url)('../infra/esbuild-config.cjs') as () => Promise<BuildOptions & Record<string, unknown>>;
// Minus the serverless-esbuild-only keys, and the ESM banner (CommonJS has its own require).
const { outputFileExtension: _ext, exclude: _exclude, packager: _packager, outputWorkFolder: _work, banner: _banner, ...shared } = await esbuildConfig();
const { splitting: _splitting, ...unsplit } = shared as BuildOptions;
const cjsFile = join(work, 'cjs', 'handler.cjs');
await build({ ...unsplit, entryPoints: ['functions/trusted-registry/handler.ts'], format: 'cjs', outfile: cjsFile, logLevel: 'silent' });
// The shipped ESM settings without code splitting: one file holding everything, lazily used code included.
const unsplitFile = join(work, 'esm-unsplit', 'handler.js');
await build({ ...unsplit, banner: _banner, entryPoints: ['functions/trusted-registry/handler.ts'], format: 'esm', outfile: unsplitFile, logLevel: 'silent' });
writeFileSync(join(work, 'esm-unsplit', 'package.json'), '{ "type": "module" }');

// Rules from S3: the packaged rules document in s3rver, behind the counting proxy the tests use.
const s3 = await startTestS3();
await s3.put('policies/trusted-registry.yaml', readFileSync(join(root, 'policies/trusted-registry.yaml'), 'utf8'));
// Credentials and region as Lambda puts them in a function's environment (s3rver's fixed pair).
const lambdaCredentials = { AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey, AWS_REGION: 'us-east-1' };
const s3Env = { RULES_BUCKET: s3.bucket, RULES_S3_ENDPOINT: s3.endpoint, POWERTOOLS_LOG_LEVEL: 'INFO', ...lambdaCredentials };

type WarmRun = { handlerNs: number[]; floorNs: number[]; allowed: boolean; patched: boolean };
console.log(`warm: ${WARM_ITERATIONS} interleaved requests…`);
const warm = JSON.parse((await runChild(['bench/warm-child.mjs', handlerFile, eventFile, String(WARM_ITERATIONS)], rulesEnv)).stderr) as WarmRun;
// registry-mirror on the same pod with Docker Hub images, so every container is rewritten and patched.
const mirrorRoot = await unpackFunction('registry-mirror', BENCH_PACKAGE);
const mirrorEventFile = join(work, 'mirror-event.json');
writeFileSync(mirrorEventFile, JSON.stringify(sampleEvent('/mutate/registry-mirror', MIRRORED_IMAGES)));
const mirrorWarm = JSON.parse(
  (await runChild(['bench/warm-child.mjs', join(mirrorRoot, 'functions/registry-mirror/handler.js'), mirrorEventFile, String(WARM_ITERATIONS)], { ...rulesEnv, RULES_DIR: join(mirrorRoot, 'policies') })).stderr,
) as WarmRun;

// Every other policy on its representative object, each its packaged handler with the sample rules.
const CATALOGUE = [
  ['disable-service-links', sampleEvent('/mutate/disable-service-links')],
  ['replica-limits', sampleDeploymentEvent('/validate/replica-limits')],
  ['deploy-windows', sampleDeploymentEvent('/validate/deploy-windows')],
  ['required-labels', sampleEvent('/validate/required-labels')],
  ['cel', sampleDeploymentEvent('/validate/cel')],
  ['audit-log', sampleEvent('/validate/audit-log')],
] as const;
const catalogueWarm: { policy: string; run: WarmRun }[] = [];
for (const [policy, event] of CATALOGUE) {
  const policyRoot = await unpackFunction(policy, BENCH_PACKAGE);
  const file = join(work, `${policy}-event.json`);
  writeFileSync(file, JSON.stringify(event));
  const run = JSON.parse((await runChild(['bench/warm-child.mjs', join(policyRoot, `functions/${policy}/handler.js`), file, String(WARM_ITERATIONS)], { ...rulesEnv, RULES_DIR: join(policyRoot, 'policies') })).stderr) as WarmRun;
  catalogueWarm.push({ policy, run });
}

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
const celParameters = CelParametersSchema.parse({ validations: TEN_EXPRESSIONS.map((expression) => ({ expression })) });
const celCompileNs = Number(process.hrtime.bigint() - compileStart);
const celRequest = admissionReviewFor(sampleDeployment()).request as never;
if ((celPolicy.evaluate(celRequest, celParameters, { now: new Date() }) as { violations: unknown[] }).violations.length !== 0) throw new Error('the ten cel expressions should all hold for the sample');
const celNs: number[] = [];
for (let i = 0; i < WARM_ITERATIONS; i++) {
  compileStart = process.hrtime.bigint();
  celPolicy.evaluate(celRequest, celParameters, { now: new Date() });
  celNs.push(Number(process.hrtime.bigint() - compileStart));
}

// The patch: a full `compare` of original and changed object against operations built from the paths the
// policy knows it changed (what a policy reporting its own changes would cost at best).
const mirrorPod = samplePod(MIRRORED_IMAGES);
const mirrorRequest = admissionReviewFor(mirrorPod).request as never;
const mirrorParameters = RegistryMirrorParametersSchema.parse({ mirrors: [{ from: 'docker.io/library', to: 'mirror.example.com/library' }] });
const changedPod = registryMirrorPolicy.mutate(mirrorRequest, mirrorParameters, structuredClone(mirrorPod)) as typeof mirrorPod & { metadata: { annotations: Record<string, string> } };
const knownPaths = () => [
  { op: 'replace', path: '/spec/initContainers/0/image', value: changedPod.spec.initContainers[0]!.image },
  ...changedPod.spec.containers.map((container, index) => ({ op: 'replace', path: `/spec/containers/${index}/image`, value: container.image })),
  { op: 'add', path: '/metadata/annotations/portcullis.io~1registry-mirror', value: changedPod.metadata.annotations['portcullis.io/registry-mirror'] },
];
const patchNs = { compare: [] as number[], knownPaths: [] as number[] };
for (let i = 0; i < WARM_ITERATIONS; i++) {
  let start = process.hrtime.bigint();
  compare(mirrorPod, changedPod);
  patchNs.compare.push(Number(process.hrtime.bigint() - start));
  start = process.hrtime.bigint();
  knownPaths();
  patchNs.knownPaths.push(Number(process.hrtime.bigint() - start));
}
const compareOperations = compare(mirrorPod, changedPod).length;

console.log(`cold: ${COLD_ROUNDS} interleaved rounds of new processes…`);
const cold = { esm: [] as number[], unsplit: [] as number[], cjs: [] as number[], s3: [] as number[], bare: [] as number[] };
for (let round = 0; round < COLD_ROUNDS; round++) {
  cold.esm.push((await runChild(['bench/cold-start-child.mjs', handlerFile, eventFile], rulesEnv)).elapsedNs);
  cold.unsplit.push((await runChild(['bench/cold-start-child.mjs', unsplitFile, eventFile], rulesEnv)).elapsedNs);
  cold.cjs.push((await runChild(['bench/cold-start-child.mjs', cjsFile, eventFile], rulesEnv)).elapsedNs);
  cold.s3.push((await runChild(['bench/cold-start-child.mjs', handlerFile, eventFile], s3Env)).elapsedNs);
  cold.bare.push((await runChild(['bench/bare-child.mjs', eventFile])).elapsedNs);
}

console.log(`S3: ${S3_ADMISSIONS} admissions at ${S3_RATE}/s with the default TTL…`);
const getsBefore = s3.gets('trusted-registry').length;
const rateRun = JSON.parse((await runChild(['bench/s3-rate-child.mjs', handlerFile, eventFile, String(S3_ADMISSIONS), String(S3_RATE)], s3Env)).stderr) as { elapsedMs: number; versions: string[]; failedOpen: number };
const s3Gets = s3.gets('trusted-registry').length - getsBefore;
await s3.close();

const entry = 'functions/trusted-registry/handler.ts';
const zodMini = join(work, 'zod-mini.ts');
const zodClassic = join(work, 'zod-classic.ts');
writeFileSync(zodMini, `import * as z from '${process.cwd()}/functions/admission/zod.js'; console.log(z.strictObject({ a: z.array(z.string()) }).safeParse({}).success);`);
writeFileSync(zodClassic, `import { z } from 'zod'; console.log(z.strictObject({ a: z.array(z.string()) }).safeParse({}).success);`);
const functionDir = dirname(handlerFile);
const sizes = {
  shipped: coldPathBytes(handlerFile),
  shippedAll: readdirSync(functionDir).filter((file) => file.endsWith('.js')).reduce((total, file) => total + statSync(join(functionDir, file)).size, 0),
  unsplit: statSync(unsplitFile).size,
  zip: statSync(join(BENCH_PACKAGE, 'trusted-registry.zip')).size,
  unminified: await bundleSize(entry, { format: 'esm', minify: false, mainFields: ['module', 'main'] }),
  noTreeShaking: await bundleSize(entry, { format: 'esm', minify: true, treeShaking: false, mainFields: ['module', 'main'] }),
  zodMini: await bundleSize(zodMini, { format: 'esm', minify: true }),
  zodClassic: await bundleSize(zodClassic, { format: 'esm', minify: true, nodePaths: [join(process.cwd(), 'node_modules')] }),
};

const warmMedian = quantile(warm.handlerNs, 0.5);
const floorMedian = quantile(warm.floorNs, 0.5);
const coldMedian = { esm: quantile(cold.esm, 0.5), unsplit: quantile(cold.unsplit, 0.5), cjs: quantile(cold.cjs, 0.5), s3: quantile(cold.s3, 0.5), bare: quantile(cold.bare, 0.5) };
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

console.log(`
Portcullis benchmark — node ${process.version}, ${event.body!.length} byte review (decision: ${warm.allowed ? 'allowed' : 'denied'})

warm, per request (${WARM_ITERATIONS} interleaved)       median      p99
  trusted-registry (packaged)            ${ms(warmMedian)} ms  ${ms(quantile(warm.handlerNs, 0.99))} ms
  floor (JSON.parse + JSON.stringify)    ${ms(floorMedian)} ms  ${ms(quantile(warm.floorNs, 0.99))} ms
  ratio median ${(warmMedian / floorMedian).toFixed(2)}× (target ≤ ${TARGETS.warm}×: ${verdict(warmMedian / floorMedian <= TARGETS.warm)}), p99 ${(quantile(warm.handlerNs, 0.99) / quantile(warm.floorNs, 0.99)).toFixed(2)}×
  registry-mirror, 4 images rewritten    ${ms(quantile(mirrorWarm.handlerNs, 0.5))} ms  ${ms(quantile(mirrorWarm.handlerNs, 0.99))} ms   (patched: ${mirrorWarm.patched})
  floor, same-shaped response            ${ms(quantile(mirrorWarm.floorNs, 0.5))} ms  ${ms(quantile(mirrorWarm.floorNs, 0.99))} ms
  ratio median ${(quantile(mirrorWarm.handlerNs, 0.5) / quantile(mirrorWarm.floorNs, 0.5)).toFixed(2)}× (target ≤ ${TARGETS.warmMutating}×: ${verdict(quantile(mirrorWarm.handlerNs, 0.5) / quantile(mirrorWarm.floorNs, 0.5) <= TARGETS.warmMutating)}), p99 ${(quantile(mirrorWarm.handlerNs, 0.99) / quantile(mirrorWarm.floorNs, 0.99)).toFixed(2)}×
${catalogueWarm
  .map(({ policy, run }) => {
    const ratio = quantile(run.handlerNs, 0.5) / quantile(run.floorNs, 0.5);
    return `  ${policy.padEnd(37)}${ms(quantile(run.handlerNs, 0.5))} ms  ${ms(quantile(run.handlerNs, 0.99))} ms   ${ratio.toFixed(2)}× its floor (${ms(quantile(run.floorNs, 0.5))} ms)${run.patched ? ', patched' : run.allowed ? '' : ', denied'}`;
  })
  .join('\n')}
  cel, one rule of 10 expressions          compiled once in ${ms(celCompileNs)} ms; evaluation ${ms(quantile(celNs, 0.5))} ms median = ${(quantile(celNs, 0.5) / 10 / 1000).toFixed(1)} µs per expression (target ≤ 50 µs: ${verdict(quantile(celNs, 0.5) / 10 / 1000 <= 50)})
  patch for that pod: full compare ${ms(quantile(patchNs.compare, 0.5))} ms (${compareOperations} operations) vs from known paths ${ms(quantile(patchNs.knownPaths, 0.5))} ms, medians

cold start, new process → first response (median of ${COLD_ROUNDS}, interleaved)
  shipped: ESM, split, rules from RULES_DIR   ${ms(coldMedian.esm)} ms
  ESM without code splitting                  ${ms(coldMedian.unsplit)} ms   (splitting saves ${(100 * (1 - coldMedian.esm / coldMedian.unsplit)).toFixed(1)}%)
  CommonJS                                    ${ms(coldMedian.cjs)} ms   (ESM saves ${(100 * (1 - coldMedian.esm / coldMedian.cjs)).toFixed(1)}%)
  shipped, rules from S3 (s3rver, loopback)   ${ms(coldMedian.s3)} ms   (first S3 load adds ${ms(coldMedian.s3 - coldMedian.esm)} ms)
  bare Node, no libraries                     ${ms(coldMedian.bare)} ms
  ratio shipped / bare ${(coldMedian.esm / coldMedian.bare).toFixed(2)}× (target ≤ ${TARGETS.cold}×: ${verdict(coldMedian.esm / coldMedian.bare <= TARGETS.cold)}); with S3 ${(coldMedian.s3 / coldMedian.bare).toFixed(2)}×

S3 requests, ${S3_ADMISSIONS} admissions at ${S3_RATE}/s over ${(rateRun.elapsedMs / 1000).toFixed(1)} s, default TTL 5 s
  GETs ${s3Gets} (init load + one conditional GET per elapsed 5 s window = ${1 + Math.floor(rateRun.elapsedMs / 5000)}); ${((s3Gets * 1000) / S3_ADMISSIONS).toFixed(1)} per 1,000 admissions; failed open ${rateRun.failedOpen}

bundle sizes
  loaded at cold start (entry + static chunks) ${kb(sizes.shipped)} (target ≤ ${TARGETS.bundleKb} KB: ${verdict(sizes.shipped <= TARGETS.bundleKb * 1024)}); all chunks ${kb(sizes.shippedAll)}; zip ${kb(sizes.zip)}
  same settings without code splitting          ${kb(sizes.unsplit)}
  not minified (unsplit)                        ${kb(sizes.unminified)}
  minified without tree-shaking (unsplit)       ${kb(sizes.noTreeShaking)}
  zod/mini (as used) vs classic zod, minimal schema: ${kb(sizes.zodMini)} vs ${kb(sizes.zodClassic)}
`);
