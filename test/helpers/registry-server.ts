// A real OCI registry for the tests: Debian's docker-registry (distribution, the reference implementation;
// `.ci/run` installs it) started on loopback with TLS and distribution's token authentication, the token
// service a small HTTPS server here that checks a username and password and signs ES256 tokens, as Docker
// Hub's and GHCR's do. The certificates are made with openssl for each run. Images are pushed through the
// registry's own API (pushImage).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash, createPrivateKey, randomUUID, sign } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import { join } from 'node:path';
import { temporaryDirectory } from '../../infra/temporary-directory.js';
import { freePort } from './local-server.js';

export const REGISTRY_USER = { username: 'ci', password: 'registry-test-password' };

export interface TestRegistry {
  /** `127.0.0.1:<port>`, as an image reference names the registry. */
  host: string;
  /** The CA that signed its certificate (PEM). */
  ca: string;
  /** How many token requests the token service answered. */
  tokensIssued(): number;
  /** How many API requests the registry answered (its own log's count), its probes for readiness aside. */
  requestsServed(): number;
  stop(): Promise<void>;
}

export const registryInstalled = (): boolean => {
  try {
    execFileSync('docker-registry', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** A self-signed certificate for 127.0.0.1 and its key (PEM files in `folder`). */
export function selfSignedCertificate(folder: string, name: string): { cert: string; key: string } {
  const key = join(folder, `${name}-key.pem`);
  const cert = join(folder, `${name}.pem`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=portcullis test ${name}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const derOf = (pem: string) => pem.replace(/-----[^-]+-----|\s/g, '');

/** distribution's token: ES256, the signing certificate in x5c, the access the scope asks for. */
function signedToken(scope: string, signer: { cert: string; key: string }, service: string): string {
  const [type, name, actions] = scope.split(':');
  const now = Math.floor(Date.now() / 1000);
  const header = { typ: 'JWT', alg: 'ES256', x5c: [derOf(readFileSync(signer.cert, 'utf8'))] };
  const claims = {
    iss: 'portcullis-test-issuer',
    sub: REGISTRY_USER.username,
    aud: service,
    iat: now,
    nbf: now - 10,
    exp: now + 300,
    jti: randomUUID(),
    access: scope ? [{ type, name, actions: (actions ?? '').split(',') }] : [],
  };
  const signed = `${base64url(header)}.${base64url(claims)}`;
  const signature = sign('sha256', Buffer.from(signed), { key: createPrivateKey(readFileSync(signer.key)), dsaEncoding: 'ieee-p1363' });
  return `${signed}.${signature.toString('base64url')}`;
}

/** `anonymousPull`: the token service gives pull tokens without credentials, as a public repository's does. */
export async function startRegistry({ anonymousPull = false }: { anonymousPull?: boolean } = {}): Promise<TestRegistry> {
  const folder = temporaryDirectory('registry-');
  const tls = selfSignedCertificate(folder, 'tls');
  const signer = selfSignedCertificate(folder, 'token');
  const service = 'portcullis-test-registry';
  let issued = 0;
  const expected = `Basic ${Buffer.from(`${REGISTRY_USER.username}:${REGISTRY_USER.password}`).toString('base64')}`;
  const tokenServer: Server = createHttpsServer({ cert: readFileSync(tls.cert), key: readFileSync(tls.key) }, (request, response) => {
    const url = new URL(request.url ?? '/', 'https://127.0.0.1');
    const pullOnly = /^repository:[^:]+:pull$/.test(url.searchParams.get('scope') ?? '');
    if (request.headers.authorization !== expected && !(anonymousPull && pullOnly && !request.headers.authorization)) {
      response.writeHead(401).end('{"details":"wrong username or password"}');
      return;
    }
    issued++;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ token: signedToken(url.searchParams.get('scope') ?? '', signer, service), expires_in: 300 }));
  });
  await new Promise<void>((resolve) => tokenServer.listen(0, '127.0.0.1', resolve));
  const tokenPort = (tokenServer.address() as { port: number }).port;
  const port = await freePort();
  const config = join(folder, 'config.yml');
  writeFileSync(
    config,
    `version: 0.1
log: {level: info, accesslog: {disabled: true}}
storage:
  filesystem: {rootdirectory: ${join(folder, 'storage')}}
  delete: {enabled: true}
http:
  addr: 127.0.0.1:${port}
  tls: {certificate: ${tls.cert}, key: ${tls.key}}
auth:
  token:
    realm: https://127.0.0.1:${tokenPort}/token
    service: ${service}
    issuer: portcullis-test-issuer
    rootcertbundle: ${signer.cert}
`,
  );
  const child: ChildProcess = spawn('docker-registry', ['serve', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const ca = readFileSync(tls.cert, 'utf8');
  const host = `127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    try {
      const answer = await fetchStatus(`https://${host}/v2/`, ca);
      if (answer === 401) break;
    } catch (error) {
      if (attempt > 100 || child.exitCode !== null) throw new Error(`docker-registry did not start: ${stderr || (error as Error).message}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    host,
    ca,
    tokensIssued: () => issued,
    requestsServed: () =>
      stderr.split('\n').filter((line) => line.includes('msg="response completed"') && /http\.request\.uri="?\/v2\/[^"\s]/.test(line))
        .length,
    async stop() {
      child.kill();
      await new Promise((resolve) => tokenServer.close(resolve));
    },
  };
}

function fetchStatus(url: string, ca: string): Promise<number> {
  return new Promise((resolve, reject) => {
    import('node:https').then(({ request }) =>
      request(url, { ca }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      })
        .on('error', reject)
        .end(),
    );
  });
}

/** A registry API call of the tests' own, with a push token. */
async function call(
  registry: TestRegistry,
  repository: string,
  method: string,
  path: string,
  body?: Buffer,
  headers: Record<string, string> = {},
) {
  const { request } = await import('node:https');
  const token = signedTokenFor(registry, repository);
  return new Promise<{ status: number; location?: string }>((resolve, reject) => {
    const url = path.startsWith('https://') ? path : `https://${registry.host}/v2/${repository}/${path}`;
    const outgoing = request(url, { method, ca: registry.ca, headers: { authorization: `Bearer ${token}`, ...headers } }, (response) => {
      response.resume();
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, ...(response.headers.location ? { location: response.headers.location } : {}) }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const tokens = new Map<string, string>();
const signedTokenFor = (registry: TestRegistry, repository: string) => tokens.get(`${registry.host} ${repository}`)!;

const digestOf = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** Pushes a blob; its digest. */
export async function pushBlob(registry: TestRegistry, repository: string, bytes: Buffer): Promise<string> {
  await pushToken(registry, repository);
  const digest = digestOf(bytes);
  const started = await call(registry, repository, 'POST', 'blobs/uploads/');
  if (started.status !== 202 || !started.location) throw new Error(`starting an upload: ${started.status}`);
  const location = new URL(started.location, `https://${registry.host}`);
  location.searchParams.set('digest', digest);
  const done = await call(registry, repository, 'PUT', location.toString(), bytes, { 'content-type': 'application/octet-stream' });
  if (done.status !== 201) throw new Error(`uploading ${digest}: ${done.status}`);
  return digest;
}

/** Pushes a manifest under a tag (or by its digest); its digest. */
export async function pushManifest(registry: TestRegistry, repository: string, manifest: object, tag?: string): Promise<string> {
  await pushToken(registry, repository);
  const bytes = Buffer.from(JSON.stringify(manifest));
  const digest = digestOf(bytes);
  const mediaType = (manifest as { mediaType?: string }).mediaType ?? 'application/vnd.oci.image.manifest.v1+json';
  const done = await call(registry, repository, 'PUT', `manifests/${tag ?? digest}`, bytes, { 'content-type': mediaType });
  if (done.status !== 201) throw new Error(`pushing manifest ${tag ?? digest}: ${done.status}`);
  return digest;
}

/** A linux image's manifest, its config (the architecture, a `content` label) pushed. */
async function imageManifest(registry: TestRegistry, repository: string, architecture: string, content: string, layers: object[]) {
  const config = Buffer.from(JSON.stringify({ architecture, os: 'linux', config: { Labels: { content } } }));
  return {
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: {
      mediaType: 'application/vnd.oci.image.config.v1+json',
      digest: await pushBlob(registry, repository, config),
      size: config.length,
    },
    layers,
  };
}

/** An image of one layer: its manifest's digest. */
export async function pushImage(registry: TestRegistry, repository: string, tag: string, content = tag): Promise<string> {
  const layer = Buffer.from(`layer of ${repository}:${content}`);
  const layers = [
    { mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: await pushBlob(registry, repository, layer), size: layer.length },
  ];
  return pushManifest(registry, repository, await imageManifest(registry, repository, 'amd64', content, layers), tag);
}

/**
 * An index of one layerless linux image per architecture, each config labelled `content` (as pushImage's),
 * pushed under `tag`: the index's digest.
 */
export async function pushPlatformIndex(
  registry: TestRegistry,
  repository: string,
  tag: string,
  platforms: { architecture: string; content: string }[],
): Promise<string> {
  const manifests = [];
  for (const { architecture, content } of platforms) {
    const manifest = await imageManifest(registry, repository, architecture, content, []);
    manifests.push({
      mediaType: manifest.mediaType,
      digest: await pushManifest(registry, repository, manifest),
      size: JSON.stringify(manifest).length,
      platform: { os: 'linux', architecture },
    });
  }
  return pushManifest(registry, repository, { schemaVersion: 2, mediaType: 'application/vnd.oci.image.index.v1+json', manifests }, tag);
}

async function pushToken(registry: TestRegistry, repository: string) {
  const key = `${registry.host} ${repository}`;
  if (tokens.has(key)) return;
  const { request } = await import('node:https');
  const realm = await new Promise<string>((resolve, reject) =>
    request(`https://${registry.host}/v2/`, { ca: registry.ca }, (response) => {
      response.resume();
      resolve(/realm="([^"]+)"/.exec(String(response.headers['www-authenticate']))![1]!);
    })
      .on('error', reject)
      .end(),
  );
  const url = new URL(realm);
  url.searchParams.set('service', 'portcullis-test-registry');
  url.searchParams.set('scope', `repository:${repository}:pull,push`);
  const body = await new Promise<string>((resolve, reject) =>
    request(
      url,
      {
        ca: registry.ca,
        headers: { authorization: `Basic ${Buffer.from(`${REGISTRY_USER.username}:${REGISTRY_USER.password}`).toString('base64')}` },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve(text));
      },
    )
      .on('error', reject)
      .end(),
  );
  tokens.set(key, (JSON.parse(body) as { token: string }).token);
}
