// The deployment's registry credentials: a Docker config.json in an SSM SecureString, read by the function's
// own signed GetParameter call (a loopback SSM endpoint here) when a rule first verifies an image, and used
// for the registry they name only. Without them a private registry refuses; an SSM that fails is the rule's
// error, whose message names the parameter and never the secret.
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialsFromDockerConfig } from '../../functions/admission/image-verification/docker-config.js';
import '../helpers/engines.js';
import { podRunning } from '../helpers/invoke.js';
import { pushSignatures, signatureLayer } from '../helpers/cosign-signing.js';
import { REGISTRY_USER, pushImage, registryInstalled, startRegistry, type TestRegistry } from '../helpers/registry-server.js';

const basic = (user: string, password: string) => Buffer.from(`${user}:${password}`).toString('base64');

describe('Docker config.json', () => {
  it.each([
    [
      'auth, base64 of user:password',
      { auths: { 'ghcr.io': { auth: basic('me', 'p:w') } } },
      'ghcr.io',
      { username: 'me', password: 'p:w' },
    ],
    [
      'username and password',
      { auths: { 'registry.example.com:5000': { username: 'u', password: 'p' } } },
      'registry.example.com:5000',
      { username: 'u', password: 'p' },
    ],
    [
      "Docker Hub's legacy URL",
      { auths: { 'https://index.docker.io/v1/': { auth: basic('hub', 'x') } } },
      'docker.io',
      { username: 'hub', password: 'x' },
    ],
  ])('%s', (_what, config, host, expected) => {
    const read = credentialsFromDockerConfig(JSON.stringify(config));
    expect(typeof read === 'string' ? read : read.get(host)).toEqual(expected);
  });

  it('refuses what it cannot use, naming the registry and never the secret', () => {
    expect(credentialsFromDockerConfig('{')).toMatch(/not JSON/);
    expect(credentialsFromDockerConfig('{"auths": {"ghcr.io": {"identitytoken": "s3cret"}}}')).toMatch(
      /auths\.ghcr\.io: an identity token/,
    );
    expect(credentialsFromDockerConfig('{"auths": {"ghcr.io": {"identitytoken": "s3cret"}}}')).not.toMatch(/s3cret/);
  });
});

const signer = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const pem = signer.publicKey.export({ type: 'spki', format: 'pem' }) as string;
const policy = (references: string) => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: signed-images}
spec:
  rules:
    - name: verify-signature
      match: {any: [{resources: {kinds: [Pod]}}]}
      verifyImages:
        - imageReferences: [${JSON.stringify(references)}]
          failureAction: Enforce
          mutateDigest: false
          attestors: [{entries: [{keys: {publicKeys: ${JSON.stringify(pem)}, rekor: {ignoreTlog: true}}}]}]
`;
describe.runIf(registryInstalled())('a private registry, with the credentials from SSM', () => {
  let registry: TestRegistry;
  let ssm: Server;
  let signed: string;
  let answer: () => { status: number; body: unknown };
  beforeAll(async () => {
    registry = await startRegistry();
    signed = await pushImage(registry, 'private/app', 'v1');
    await pushSignatures(registry, 'private/app', signed, [await signatureLayer(registry, 'private/app', signed, signer.privateKey)]);
    const config = JSON.stringify({ auths: { [registry.host]: { auth: basic(REGISTRY_USER.username, REGISTRY_USER.password) } } });
    answer = () => ({ status: 200, body: { Parameter: { Name: '/portcullis/registries', Type: 'SecureString', Value: config } } });
    ssm = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        const { status, body } = answer();
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => ssm.listen(0, '127.0.0.1', resolve));
    Object.assign(process.env, {
      REGISTRY_CA_PEM: registry.ca,
      REGISTRY_CREDENTIALS_PARAMETER: '/portcullis/registries',
      SSM_ENDPOINT: `http://127.0.0.1:${(ssm.address() as { port: number }).port}`,
      AWS_ACCESS_KEY_ID: 'AKIDTEST',
      AWS_SECRET_ACCESS_KEY: 'test-secret',
    });
  });
  afterAll(async () => {
    await registry?.stop();
    await new Promise((resolve) => ssm?.close(resolve));
  });

  it('verifies an image the registry shows only to those credentials', async () => {
    // Imported now: the function reads its configuration from the environment when it is imported.
    const { verdictOf } = await import('../helpers/cel-verdict.js');
    expect((await verdictOf(policy(`${registry.host}/private/*`), podRunning(`${registry.host}/private/app@${signed}`))).allowed).toBe(
      true,
    );
  });
});

describe.runIf(registryInstalled())('an SSM that fails before the credentials were ever read', () => {
  it("is the rule's error, naming the parameter, never a secret", async () => {
    const { vi } = await import('vitest');
    vi.resetModules();
    const ssm = createServer((request, response) => {
      request.resume();
      request.on('end', () =>
        response
          .writeHead(400, { 'content-type': 'application/x-amz-json-1.1' })
          .end('{"__type":"AccessDeniedException","message":"not allowed"}'),
      );
    });
    await new Promise<void>((resolve) => ssm.listen(0, '127.0.0.1', resolve));
    process.env.SSM_ENDPOINT = `http://127.0.0.1:${(ssm.address() as { port: number }).port}`;
    process.env.REGISTRY_CREDENTIALS_PARAMETER = '/portcullis/missing';
    await import('../helpers/engines.js'); // the fresh modules' engines, loaded as the stack loads them
    const { verdictOf } = await import('../helpers/cel-verdict.js');
    const verdict = await verdictOf(policy('127.0.0.1:1/*'), podRunning(`127.0.0.1:1/private/app@sha256:${'a'.repeat(64)}`));
    expect(verdict.allowed).toBe(false);
    expect(verdict.status?.message).toMatch(/registry credentials could not be read\s+from SSM parameter \/portcullis\/missing/);
    await new Promise((resolve) => ssm.close(resolve));
  });
});
