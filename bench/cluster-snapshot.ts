// `npm run bench` (fifth part): policies that read the cluster, on the cel function with a cluster snapshot,
// side by side in one run:
//   warm: median per request on an apiCall policy's route (require-netpol, its NetworkPolicies listed from
//         the snapshot and filtered by a JMESPath) with the snapshot cached, vs the JSON floor
//   cold: new process → first answer on that route with a 5 MB snapshot, vs the same rules with no snapshot
//         configured (the rule is answered by its failure policy: no snapshot read); from a folder and S3
// Run after `sls package` (bench/run.ts packages into BENCH_PACKAGE first).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { snapshotText } from '../functions/admission/cluster/cluster-snapshot.js';
import { LOCAL_CREDENTIALS } from '../infra/local-settings.js';
import { deployedVariables, unpackFunction } from '../infra/packaged-function.js';
import { temporaryDirectory } from '../infra/temporary-directory.js';
import { CORPORA } from '../test/helpers/corpora.js';
import { startTestS3 } from '../test/helpers/s3-server.js';
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
  verdict,
  warmChild,
  warmRatio,
  type WarmRun,
} from './child-process.js';
import { onCelRoute, sampleDeploymentEvent } from './sample-review.js';

const COLD_ROUNDS = 15;
const WARM_ITERATIONS = 3000;
const WARM_PROCESSES = 3;
const SNAPSHOT_BYTES = 5 * 1024 * 1024;
const TARGETS = { warm: 3, coldWithSnapshot: 1.5 };
const POLICY = 'require-network-policy';

const work = temporaryDirectory('portcullis-cluster-snapshot-');
const policy = readFileSync(join(CORPORA, 'kyverno-clusterpolicy/other/require-netpol/require-netpol.yaml'), 'utf8').replace(
  'validationFailureAction: Audit',
  'validationFailureAction: Enforce',
);

/** NetworkPolicies across 200 namespaces until the snapshot is `bytes` long; the sample's namespace has one that selects it. */
function snapshotOf(bytes: number): string {
  const networkPolicy = (namespace: string, index: number, labels: Record<string, string>) => ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name: `policy-${index}`,
      namespace,
      uid: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
      labels: { team: `team-${index % 17}` },
    },
    spec: {
      podSelector: { matchLabels: labels },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        {
          from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } } }],
          ports: [{ port: 8080, protocol: 'TCP' }],
        },
      ],
      egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8' } }], ports: [{ port: 443, protocol: 'TCP' }] }],
    },
  });
  const items = [networkPolicy('shop', 0, { app: 'checkout' })];
  let size = 0;
  for (let index = 1; size < bytes; index++) {
    const item = networkPolicy(`namespace-${index % 200}`, index, { app: `app-${index}` });
    items.push(item);
    size += JSON.stringify(item).length;
  }
  return snapshotText({
    apiVersion: 'portcullis.dev/v1alpha1',
    kind: 'ClusterSnapshot',
    cluster: 'bench',
    takenAt: new Date().toISOString(),
    collections: [{ apiVersion: 'networking.k8s.io/v1', resource: 'networkpolicies', kind: 'NetworkPolicy', items }],
  });
}

const rules = celRulesFolder(work, 'rules', policy);
const snapshot = snapshotOf(SNAPSHOT_BYTES);
mkdirSync(join(rules, 'clusters'));
writeFileSync(join(rules, 'clusters', 'bench.jsonl'), snapshot);

const root = await unpackFunction('cel', BENCH_PACKAGE);
const handlerFile = join(root, 'functions/cel/handler.js');
const eventFile = join(work, 'event.json');
writeFileSync(eventFile, JSON.stringify(onCelRoute(sampleDeploymentEvent('/validate/cel'), POLICY)));
const deployed = deployedVariables('cel', BENCH_PACKAGE);
const withSnapshot = { ...deployed, RULES_DIR: rules, CLUSTER_NAME: 'bench', POWERTOOLS_LOG_LEVEL: 'INFO' };
const withoutSnapshot = { ...deployed, RULES_DIR: rules, POWERTOOLS_LOG_LEVEL: 'INFO' };

const s3 = await startTestS3();
await s3.put('policies/cel.yaml', readFileSync(join(rules, 'cel.yaml')));
await s3.put('policies/clusters/bench.jsonl', snapshot);
const s3Env = {
  ...deployed,
  RULES_BUCKET: s3.bucket,
  RULES_S3_ENDPOINT: s3.endpoint,
  AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
  AWS_REGION: 'us-east-1',
  POWERTOOLS_LOG_LEVEL: 'INFO',
};

console.log(`cluster snapshot of ${(snapshot.length / 1024 / 1024).toFixed(1)} MB; cold: ${COLD_ROUNDS} interleaved rounds…`);
const cold = { folder: [] as number[], none: [] as number[], s3: [] as number[], s3None: [] as number[] };
const coldStart = async (env: NodeJS.ProcessEnv) => {
  const { elapsedNs, stderr } = await runChild(['bench/cold-start-child.mjs', handlerFile, eventFile], env);
  return { elapsedNs, stderr };
};
for (let round = 0; round < COLD_ROUNDS; round++) {
  cold.folder.push((await coldStart(withSnapshot)).elapsedNs);
  cold.none.push((await coldStart(withoutSnapshot)).elapsedNs);
  cold.s3.push((await coldStart({ ...s3Env, CLUSTER_NAME: 'bench' })).elapsedNs);
  cold.s3None.push((await coldStart(s3Env)).elapsedNs);
}
await s3.close();

console.log('warm…');
const warm: WarmRun[] = [];
for (let round = 0; round < WARM_PROCESSES; round++) warm.push(await warmChild(handlerFile, eventFile, WARM_ITERATIONS, withSnapshot));
const { run, ratios } = medianRun(warm);
const held = await memoryAfterFirstAnswer(handlerFile, eventFile, withSnapshot);
if (!run.allowed) throw new Error(`${POLICY} denied the sample: its NetworkPolicy in the snapshot should select it`);

const median = (values: number[]) => quantile(values, 0.5);
const folderRatio = median(cold.folder) / median(cold.none);
const s3Ratio = median(cold.s3) / median(cold.s3None);
const warmRatioValue = warmRatio(run);
console.log(`
cel on /validate/cel/${POLICY} (apiCall: the namespace's NetworkPolicies, a JMESPath over them), ${(snapshot.length / 1024 / 1024).toFixed(1)} MB cluster snapshot
warm, per request with the snapshot cached (${WARM_ITERATIONS} interleaved; the process with the median ratio of ${WARM_PROCESSES})
  ${ms(median(run.handlerNs))} ms median, ${ms(quantile(run.handlerNs, 0.99))} ms p99; floor ${ms(median(run.floorNs))} ms; ratio ${warmRatioValue.toFixed(2)}× (target ≤ ${TARGETS.warm}×: ${verdict(warmRatioValue <= TARGETS.warm)}) (${ratioSpread(ratios)})
cold start, new process → first answer (median of ${COLD_ROUNDS}, interleaved)
  folder: with the snapshot ${ms(median(cold.folder))} ms, without one ${ms(median(cold.none))} ms: ${folderRatio.toFixed(2)}× (target ≤ ${TARGETS.coldWithSnapshot}×: ${verdict(folderRatio <= TARGETS.coldWithSnapshot)})
  S3 (s3rver): with the snapshot ${ms(median(cold.s3))} ms, without one ${ms(median(cold.s3None))} ms: ${s3Ratio.toFixed(2)}× (target ≤ ${TARGETS.coldWithSnapshot}×: ${verdict(s3Ratio <= TARGETS.coldWithSnapshot)})
memory held after the first answer, the snapshot read (after a full GC)   ${heldMemory(held, lambdaMemoryMb())}
`);
