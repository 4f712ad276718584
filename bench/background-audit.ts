// `npm run bench` (background audit): the packaged scheduled audit of one cluster of 10,000 Pods (listed from a
// loopback HTTPS list API in pages of 500, as from an API server) against every policy with a sample document
// (in s3rver, with fleet.yaml naming the cluster), reports written to s3rver: the whole run in a process of its
// own, in a clean environment. Then again, with nothing changed: it must write nothing, and every report must
// be byte for byte the same. Target: ≤ 10 s a run on this machine. Run after `sls package` (bench/run.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOCAL_CREDENTIALS } from '../infra/local-settings.js';
import { unpackFunction } from '../infra/packaged-function.js';
import { temporaryDirectory } from '../infra/temporary-directory.js';
import { startListApi } from '../test/helpers/kubernetes-list-api.js';
import { startTestS3 } from '../test/helpers/s3-server.js';
import { BENCH_PACKAGE } from './bench-package.js';
import { runChild, verdict } from './child-process.js';
import { clusterPods } from './cluster-pods.js';

const PODS = 10_000;
const TARGET_SECONDS = 10;

const pods = clusterPods(PODS);

const work = temporaryDirectory('portcullis-bench-background-audit-');
const s3 = await startTestS3();
const api = await startListApi(work, { objects: { '/api/v1/pods': { kind: 'Pod', items: pods } } });
try {
  for (const file of readdirSync('policies').filter((name) => name.endsWith('.yaml') && name !== 'fleet.yaml'))
    await s3.put(`policies/${file}`, readFileSync(join('policies', file)));
  await s3.put(
    'policies/fleet.yaml',
    JSON.stringify({
      clusters: [
        {
          name: 'bench',
          labels: { env: 'prod' },
          eks: { endpoint: api.url, certificateAuthority: Buffer.from(api.caPem).toString('base64') },
        },
      ],
    }),
  );
  const root = await unpackFunction('background-audit', BENCH_PACKAGE);
  const env = {
    RULES_BUCKET: s3.bucket,
    RULES_S3_ENDPOINT: s3.endpoint,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_REGION: 'us-east-1',
    POWERTOOLS_LOG_LEVEL: 'WARN',
  };
  const run = async () => {
    const { stderr } = await runChild(['bench/background-audit-child.mjs', join(root, 'functions/background-audit/handler.js')], env);
    return JSON.parse(stderr.trim().split('\n').at(-1)!) as {
      audited: { objects: number; written: number; unchanged: number }[];
      seconds: number;
    };
  };
  console.log(`background audit: ${PODS.toLocaleString('en')} Pods of one cluster against every policy with a sample document…`);
  const reports = async () => Promise.all(Array.from({ length: 20 }, (_, team) => s3.read(`reports/bench/team-${team}.json`)));
  const first = await run();
  const written = await reports();
  const second = await run();
  const stable = (await reports()).every((text, index) => text === written[index]);
  const [firstCluster, secondCluster] = [first.audited[0]!, second.audited[0]!];
  console.log(`  first run   ${first.seconds.toFixed(2)} s: ${firstCluster.objects} objects, ${firstCluster.written} reports written (target ≤ ${TARGET_SECONDS} s: ${verdict(first.seconds <= TARGET_SECONDS)})
  second run  ${second.seconds.toFixed(2)} s, nothing changed: ${secondCluster.written} written, ${secondCluster.unchanged} unchanged; reports byte-stable: ${stable ? 'yes' : 'NO'} (target: yes, ${verdict(stable && secondCluster.written === 0)})
`);
} finally {
  await api.close();
  await s3.close();
}
