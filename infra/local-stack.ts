// `npm start`: the local webhook stack, on the production path. s3rver serves the rules bucket on
// 127.0.0.1:<S3_PORT> (data in <LOCAL_DIR>/s3), every policies/*.yaml (or <POLICIES_DIR>/*.yaml) is
// validated and uploaded to it, and serverless-offline serves every function over HTTPS on 127.0.0.1:<PORT>
// with RULES_BUCKET pointing at that bucket. `npx portcullis policy push <file> --local` then changes decisions within the TTL.
// With a fleet in the folder (fleet.yaml, clusters/<cluster>/<policy>.yaml), it is checked whole and uploaded
// too, each cluster gets a token (kept in <LOCAL_DIR>/tokens.json), and each cluster's registration is printed.
// s3rver and serverless-offline are child processes of their own, each one's output drained on its own, so
// stopping s3rver (its pid is printed) shows what production does when S3 fails: decisions from the last
// good rules. Ctrl-C stops everything.
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { configFromEnv } from '../functions/admission/config.js';
import { routeOf } from '../functions/admission/policy.js';
import { policyRegistry } from '../functions/registry.js';
import { LOCAL_BUCKET, LOCAL_CREDENTIALS, localBucketTarget, localDir, localS3Endpoint, localS3Port } from './local-settings.js';
import { ensureLocalTls } from './local-tls.js';
import { webhookConfigurations } from './webhook-configuration.js';
import { registrationsOfDocuments } from '../functions/registration/webhook-registration.js';
import { FLEET_FILE } from '../functions/admission/fleet/fleet-document.js';
import { localClusterTokens, uploadLocalFleet } from './local-fleet.js';
import { bucketReader, registrationsFromDocuments } from './rules-documents.js';
import { pushRules } from './rules-bucket.js';

// The AWS SDK warns about Node 20 on every S3 call; the functions run on Node 22 in Lambda.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const port = Number(process.env.PORT || 8443);
const directory = localDir();
const log = (line: string) => process.stdout.write(`[portcullis] ${line}\n`);

/** Relays a child's output as it comes, chunk by chunk; a closed terminal never reaches the child. */
function drain(stream: Readable, sink: Writable, onData: (text: string) => void = () => undefined) {
  stream.on('data', (chunk: Buffer) => {
    if (sink.writable) sink.write(chunk);
    onData(chunk.toString());
  });
}
process.stdout.on('error', () => undefined); // a closed terminal must not take the stack down
process.stderr.on('error', () => undefined);

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

let stopping = false;
const tls = await ensureLocalTls(directory);
mkdirSync(join(directory, 's3'), { recursive: true });
const s3rverCli = join(createRequire(import.meta.url).resolve('s3rver/package.json'), '..', 'bin', 's3rver.js');
const s3 = spawn(
  process.execPath,
  [s3rverCli, '--silent', '-d', join(directory, 's3'), '-a', '127.0.0.1', '-p', String(localS3Port()), '--configure-bucket', LOCAL_BUCKET],
  {
    stdio: ['ignore', 'pipe', 'pipe'],
  },
);
drain(s3.stdout!, process.stdout);
drain(s3.stderr!, process.stderr);
s3.on('exit', (code, signal) => {
  if (!stopping)
    log(`s3rver stopped (${signal ?? code}); the functions keep deciding with their last good rules, as in production when S3 fails`);
});
while (!(await portOpen(localS3Port()))) {
  if (s3.exitCode !== null) {
    log(`s3rver could not start (exit ${s3.exitCode}); is port ${localS3Port()} in use? Set S3_PORT`);
    process.exit(1);
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
}
log(
  `s3rver on ${localS3Endpoint()}, bucket ${LOCAL_BUCKET} (data in ${join(directory, 's3')}), pid ${s3.pid}: kill ${s3.pid} to see S3 fail`,
);

const target = localBucketTarget();
// The documents uploaded at start: the samples, or the folder POLICIES_DIR names (the tests' own).
const policiesDir = process.env.POLICIES_DIR || 'policies';
// The functions' own size limit: a document they would refuse is not uploaded.
const maxBytes = configFromEnv(process.env).RULES_MAX_BYTES;
for (const file of readdirSync(policiesDir)
  .filter((name) => name.endsWith('.yaml') && name !== FLEET_FILE)
  .sort()) {
  const policy = policyRegistry.find((candidate) => `${candidate.name}.yaml` === file);
  if (!policy) {
    log(`skipped ${join(policiesDir, file)}: no policy of that name`);
    continue;
  }
  const result = await pushRules(target, policy, readFileSync(join(policiesDir, file)), maxBytes);
  log(
    result.ok
      ? `uploaded ${join(policiesDir, file)} (ETag ${result.etag})`
      : `NOT uploaded ${join(policiesDir, file)}, invalid:\n  ${result.errors.join('\n  ')}`,
  );
}

const fleet = await uploadLocalFleet(policiesDir, target, maxBytes, log);
// Without a fleet, no tokens: callers are not checked (as WEBHOOK_TOKENS unset says). Given, it wins.
const tokens = fleet
  ? localClusterTokens(
      directory,
      fleet.clusters.map(({ cluster }) => cluster),
    )
  : undefined;
const webhookTokens =
  process.env.WEBHOOK_TOKENS ||
  Object.entries(tokens ?? {})
    .map(([cluster, token]) => `${cluster}=${token}`)
    .join(',');

let offline: ChildProcess | undefined;

/** Stops a child (with its process group when it has one) and waits for it, at most 5 s before SIGKILL. */
async function stopChild(child: ChildProcess | undefined, group: boolean): Promise<void> {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(group ? -child.pid! : child.pid!, name);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
  if (child.exitCode === null && child.signalCode === null) signal('SIGKILL');
}

async function stop(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    await Promise.all([stopChild(offline, true), stopChild(s3, false)]);
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
    WEBHOOK_TOKENS: webhookTokens,
    // The functions find s3rver's credentials through the usual chain: the environment.
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_SESSION_TOKEN: '',
    SLS_TELEMETRY_DISABLED: '1',
    // Its own build folder: `sls package`, `npm test` or a bench run elsewhere never empties the bundle it serves.
    ESBUILD_WORK_FOLDER: process.env.ESBUILD_WORK_FOLDER || '.esbuild-start',
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
const announceWhenReady = (text: string) => {
  if (!announced && text.includes('Server ready')) {
    announced = true;
    void printHowToUse();
  }
};
drain(offline.stdout!, process.stdout, announceWhenReady);
drain(offline.stderr!, process.stderr, announceWhenReady);

/** Each cluster's registration, with its own token, as `webhook-config --local --cluster <name>` prints it. */
function printClusterRegistrations(base: string, view: NonNullable<typeof fleet>, clusterTokens: Record<string, string>) {
  for (const { cluster, documents } of view.clusters) {
    const derived = registrationsOfDocuments(documents, []);
    if (!derived.ok) {
      log(`no webhook configuration for ${cluster}:\n  ${derived.errors.join('\n  ')}`);
      continue;
    }
    log(`cluster ${cluster} (token ${clusterTokens[cluster]}): its webhook configuration, only the policies placed on it:\n`);
    process.stdout.write(
      webhookConfigurations(derived.registrations, {
        baseUrl: base,
        caBundlePem: tls.caPem,
        name: `portcullis-local-${cluster}`,
        token: clusterTokens[cluster],
      }),
    );
  }
}

async function printHowToUse() {
  const base = `https://127.0.0.1:${port}`;
  log(`CA for caBundle: ${join(tls.directory, 'ca.pem')}\n${tls.caPem}`);
  log(
    `change rules: edit policies/<policy>.yaml, then npx portcullis policy push policies/<policy>.yaml --local (live within RULES_TTL_SECONDS)`,
  );
  log(`from a local cluster the API server must reach this host on port ${port}, under a name in the certificate (127.0.0.1, localhost, ${hostname()}, host.minikube.internal, host.docker.internal):
    minikube: use https://host.minikube.internal:${port}
    kind:     use https://${hostname()}:${port} if the kind node resolves it, else add the gateway of the "kind" docker network
              to LOCAL_TLS_SANS, delete ${tls.directory} and restart
  webhook configuration (kubectl apply -f -), with the URL host changed as above:\n`);
  if (fleet && tokens) printClusterRegistrations(base, fleet, tokens);
  else {
    // Derived from the documents now in the local bucket, as `npx portcullis webhook-config --local` derives it.
    const derived = await registrationsFromDocuments(bucketReader(target)).catch((error: Error) => ({
      ok: false as const,
      errors: [error.message],
    }));
    if (derived.ok)
      process.stdout.write(
        webhookConfigurations(derived.registrations, { baseUrl: base, caBundlePem: tls.caPem, name: 'portcullis-local' }),
      );
    else log(`no webhook configuration, the documents in the bucket are not usable:\n  ${derived.errors.join('\n  ')}`);
  }
  // Last, so whoever waits for it has everything above too.
  log(`ready: ${policyRegistry.map((policy) => `${base}${routeOf(policy)}`).join(', ')}`);
}
