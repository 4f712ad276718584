// `npm start`: the local webhook stack, on the production path. s3rver serves the rules bucket on
// 127.0.0.1:<S3_PORT> (data in <LOCAL_DIR>/s3), every policies/*.yaml is validated and uploaded to it, and
// serverless-offline serves every function over HTTPS on 127.0.0.1:<PORT> with RULES_BUCKET pointing at
// that bucket. `npm run policy -- push <file> --local` then changes decisions within the TTL.
// Ctrl-C stops everything.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { routeOf } from '../functions/admission/policy.js';
import { policyRegistry } from '../functions/registry.js';
import { LOCAL_BUCKET, LOCAL_CREDENTIALS, localBucketTarget, localDir, localS3Endpoint, localS3Port } from './local-settings.js';
import { ensureLocalTls } from './local-tls.js';
import { webhookConfigurations } from './webhook-configuration.js';
import { pushRules } from './rules-bucket.js';

const port = Number(process.env.PORT || 8443);
const directory = localDir();
const log = (line: string) => process.stdout.write(`[portcullis] ${line}\n`);

const tls = await ensureLocalTls(directory);
mkdirSync(join(directory, 's3'), { recursive: true });
const s3 = new S3rver({ address: '127.0.0.1', port: localS3Port(), silent: true, directory: join(directory, 's3'), configureBuckets: [{ name: LOCAL_BUCKET, configs: [] }] });
await s3.run();
log(`s3rver on ${localS3Endpoint()}, bucket ${LOCAL_BUCKET} (data in ${join(directory, 's3')})`);

const target = localBucketTarget();
for (const file of readdirSync('policies').filter((name) => name.endsWith('.yaml')).sort()) {
  const policy = policyRegistry.find((candidate) => `${candidate.name}.yaml` === file);
  if (!policy) {
    log(`skipped policies/${file}: no policy of that name`);
    continue;
  }
  const result = await pushRules(target, policy, readFileSync(join('policies', file)));
  log(result.ok ? `uploaded policies/${file} (ETag ${result.etag})` : `NOT uploaded policies/${file}, invalid:\n  ${result.errors.join('\n  ')}`);
}

let offline: ChildProcess | undefined;
let stopping = false;

async function stop(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    if (offline?.pid && offline.exitCode === null) {
      const exited = new Promise((resolve) => offline!.once('exit', resolve));
      process.kill(-offline.pid, 'SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (offline.exitCode === null) process.kill(-offline.pid, 'SIGKILL');
    }
    await s3.close().catch(() => undefined);
    log('stopped');
  }
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

offline = spawn('npx', ['sls', 'offline', 'start', '--httpsProtocol', tls.directory], {
  detached: true, // its own process group, so stopping reaches the workers it starts
  stdio: ['ignore', 'pipe', 'pipe'],
  env: {
    ...process.env,
    PORT: String(port),
    RULES_BUCKET: LOCAL_BUCKET,
    RULES_S3_ENDPOINT: localS3Endpoint(),
    // The functions find s3rver's credentials through the usual chain: the environment.
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_SESSION_TOKEN: '',
    SLS_TELEMETRY_DISABLED: '1',
  },
});
offline.on('exit', (code) => {
  if (!stopping) {
    log(`serverless-offline exited (${code}); stopping`);
    void stop(code || 1);
  }
});
// serverless-offline announces readiness on stderr or stdout depending on version; watch both.
let announced = false;
for (const [stream, sink] of [[offline.stdout!, process.stdout], [offline.stderr!, process.stderr]] as const) {
  stream.on('data', (chunk: Buffer) => {
    sink.write(chunk);
    if (!announced && chunk.toString().includes('Server ready')) {
      announced = true;
      printHowToUse();
    }
  });
}

function printHowToUse() {
  const base = `https://127.0.0.1:${port}`;
  log(`CA for caBundle: ${join(tls.directory, 'ca.pem')}\n${tls.caPem}`);
  log(`change rules: edit policies/<policy>.yaml, then npm run policy -- push policies/<policy>.yaml --local (live within RULES_TTL_SECONDS)`);
  log(`from a local cluster the API server must reach this host on port ${port}, under a name in the certificate (127.0.0.1, localhost, ${hostname()}, host.minikube.internal, host.docker.internal):
    minikube: use https://host.minikube.internal:${port}
    kind:     use https://${hostname()}:${port} if the kind node resolves it, else add the gateway of the "kind" docker network
              to LOCAL_TLS_SANS, delete ${tls.directory} and restart
  webhook configuration (kubectl apply -f -), with the URL host changed as above:\n`);
  process.stdout.write(webhookConfigurations({ baseUrl: base, caBundlePem: tls.caPem, name: 'portcullis-local' }));
  // Last, so whoever waits for it has everything above too.
  log(`ready: ${policyRegistry.map((policy) => `${base}${routeOf(policy)}`).join(', ')}`);
}
