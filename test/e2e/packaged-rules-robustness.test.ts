// Rules documents that break the parser, are not UTF-8, are too large or take long to parse, on the packaged
// function (the zip `sls package` wrote): none of them turns enforcement off. Each is an invalid version,
// logged once, with the last good rules kept serving, or, with none, the document's own failure policy.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { importPackagedHandler } from '../../infra/packaged-function.js';
import { eventFor, type Handler, invoke, podManifest } from '../helpers/invoke.js';
import { type CapturedLogs, captureLogLines } from '../helpers/log-lines.js';
import { packagedWithRules as packagedPolicy, removeRulesFolders } from '../helpers/packaged-with-rules.js';
import { startTestS3, type TestS3 } from '../helpers/s3-server.js';

const GOOD = 'rules: [{ name: strict, parameters: { allowedRegistries: ["192.168.64.1"] } }]\n';
const badRepo = () => eventFor(podManifest({ app: 'nginx:1.21.1' })); // denied by GOOD
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `x: &a [1]` then 120 lists of 120 aliases: the YAML library throws at its alias limit. */
const ALIAS_BOMB = `failurePolicy: Fail\nx: &a [1]\n${Array.from({ length: 120 }, (_, i) => `y${i}: [${Array(120).fill('*a').join(', ')}]`).join('\n')}\n`;
/** A block mapping nested 3,000 deep (4.5 MB of indentation: over the size limit, refused unread). */
const DEEP_BLOCK = `failurePolicy: Fail\nrules:\n${Array.from({ length: 3000 }, (_, i) => `${' '.repeat(i + 1)}k${i}:\n`).join('')}${' '.repeat(3001)}x\n`;
/** A flow mapping nested 3,000 deep (18 KB): deep enough to exhaust the parser's stack. */
const DEEP_FLOW = `failurePolicy: Fail\nrules: ${'{a: '.repeat(3000)}1${'}'.repeat(3000)}\n`;
/** Valid, and large: about 1.9 MB of allowed registries, which takes the YAML parser about half a second. */
const LARGE_VALID = `rules:\n  - name: large\n    parameters:\n      allowedRegistries:\n${Array.from({ length: 47_000 }, (_, i) => `        - registry${i}.example.com/team\n`).join('')}        - docker.io\n`;

let logs: CapturedLogs;
let replaceRules: (document: string | Uint8Array) => void;
afterEach(() => {
  logs?.restore();
  removeRulesFolders();
});

async function packagedWithRules(document: string | Uint8Array | undefined, env: Record<string, string> = {}): Promise<Handler> {
  logs = captureLogLines(); // before the import: the first rules load starts at init
  const packaged = await packagedPolicy('trusted-registry', document, { POWERTOOLS_LOG_LEVEL: 'INFO', ...env });
  replaceRules = packaged.replaceRules;
  return packaged.handler;
}

describe('documents that make the parser throw are invalid versions, never a per-request failure', () => {
  it.each([
    ['an alias bomb', ALIAS_BOMB, /YAML: .*alias/i],
    ['a block mapping nested 3,000 deep', DEEP_BLOCK, /larger than the 2097152 bytes allowed/],
    ['a flow mapping nested 3,000 deep', DEEP_FLOW, /YAML: .*(stack|nest|depth)/i],
    [
      'invalid UTF-8',
      Buffer.concat([Buffer.from('failurePolicy: Fail\nrules:\n  - name: caf'), Buffer.from([0xe9]), Buffer.from(' \n')]),
      /not valid UTF-8: byte 0xe9 at offset 40 \(line 3, column 14\)/,
    ],
  ])(
    '%s, as the first document: its own failurePolicy Fail applies, and it is logged once, not re-parsed per request',
    async (_case, document, error) => {
      const handler = await packagedWithRules(document);
      for (let i = 0; i < 3; i++) {
        const { response } = (await invoke(handler, badRepo())).body;
        expect(response).toMatchObject({ allowed: false, status: { code: 500 } });
        expect(response.status.message).toMatch(/not evaluated \(invalid rules: .*\); denied \(failurePolicy Fail\)/);
        expect(response.status.message).toMatch(error);
      }
      const invalid = logs.withMessage('invalid rules document');
      expect(invalid).toHaveLength(1);
      expect(invalid[0]!.errors.join('\n')).toMatch(error);
    },
  );

  it.each([
    ['an alias bomb', ALIAS_BOMB],
    ['a block mapping nested 3,000 deep', DEEP_BLOCK],
    ['a flow mapping nested 3,000 deep', DEEP_FLOW],
    ['invalid UTF-8', Buffer.from([0x72, 0x75, 0x6c, 0x65, 0x73, 0x3a, 0x20, 0xff, 0xfe])],
  ])('%s, replacing good rules: the last good rules keep deciding', async (_case, document) => {
    const handler = await packagedWithRules(GOOD);
    const good = (await invoke(handler, badRepo())).body.response;
    expect(good.allowed).toBe(false);
    await sleep(20); // a new mtime
    replaceRules(document);
    for (let i = 0; i < 3; i++) {
      const { response } = (await invoke(handler, badRepo())).body;
      expect(response.allowed).toBe(false);
      expect(response.status.code).toBe(403);
      expect(response.auditAnnotations['rules-version']).toBe(good.auditAnnotations['rules-version']);
    }
    const invalid = logs.withMessage('invalid rules document');
    expect(invalid).toHaveLength(1);
    expect(invalid[0]!.servingVersion).toBe(good.auditAnnotations['rules-version']);
  });
});

describe('RULES_MAX_BYTES', () => {
  it('a file larger than the limit is an invalid version: the last good rules stay', async () => {
    const handler = await packagedWithRules(GOOD, { RULES_MAX_BYTES: '4096' });
    const good = (await invoke(handler, badRepo())).body.response;
    await sleep(20);
    replaceRules(`# ${'x'.repeat(5000)}\nrules: []\n`);
    const after = (await invoke(handler, badRepo())).body.response;
    expect(after).toMatchObject({ allowed: false, auditAnnotations: { 'rules-version': good.auditAnnotations['rules-version'] } });
    expect(logs.withMessage('invalid rules document')[0]!.errors).toEqual([
      expect.stringMatching(/is 5\d{3} bytes, larger than the 4096 bytes allowed \(RULES_MAX_BYTES\)/),
    ]);
  });

  it('defaults to 2 MiB', async () => {
    const handler = await packagedWithRules(`${GOOD}# ${'x'.repeat(2 * 1024 * 1024)}\n`, { FAILURE_POLICY: 'Fail' });
    const { response } = (await invoke(handler, badRepo())).body;
    expect(response.status.message).toMatch(/larger than the 2097152 bytes allowed/);
  });
});

describe('a large new version is parsed without stalling requests', () => {
  it('a request that arrives while it is parsed is answered from the last good rules within its deadline; the new version follows', async () => {
    const handler = await packagedWithRules(GOOD, { POLICY_TIMEOUT_MS: '400', RULES_FETCH_TIMEOUT_MS: '100' });
    const good = (await invoke(handler, badRepo())).body.response;
    await sleep(20);
    replaceRules(LARGE_VALID);
    const started = Date.now();
    const during = (await invoke(handler, badRepo())).body.response;
    expect(Date.now() - started).toBeLessThan(400 + 100);
    expect(during).toMatchObject({ allowed: false, auditAnnotations: { 'rules-version': good.auditAnnotations['rules-version'] } });
    expect(during.warnings).toBeUndefined(); // decided, not failed open
    // The new version (which allows docker.io) takes over once it is validated.
    const deadline = Date.now() + 15_000;
    let after = during;
    while (after.allowed === false && Date.now() < deadline) {
      await sleep(50);
      after = (await invoke(handler, badRepo())).body.response;
    }
    expect(after.allowed).toBe(true);
    expect(after.auditAnnotations['rules-version']).not.toBe(good.auditAnnotations['rules-version']);
  });
});

describe('from S3', () => {
  let s3: TestS3;
  let counter = 0;
  beforeAll(async () => {
    s3 = await startTestS3();
  });
  afterAll(async () => s3?.close());
  afterEach(() => s3.setMode('forward'));

  async function packagedFromS3(document: string, env: Record<string, string> = {}) {
    const prefix = `robust${++counter}/`;
    await s3.put(`${prefix}trusted-registry.yaml`, document);
    logs = captureLogLines();
    const { handler } = await importPackagedHandler('trusted-registry', {
      RULES_BUCKET: s3.bucket,
      RULES_S3_ENDPOINT: s3.endpoint,
      RULES_PREFIX: prefix,
      POWERTOOLS_LOG_LEVEL: 'INFO',
      ...env,
    });
    return { handler: handler as Handler, key: `${prefix}trusted-registry.yaml` };
  }

  it('an object served without an ETag gets its content hash as version, never "etag:"', async () => {
    s3.setMode('strip-etag');
    const { handler } = await packagedFromS3(GOOD);
    const { response } = (await invoke(handler, badRepo())).body;
    expect(response.allowed).toBe(false);
    expect(response.auditAnnotations['rules-version']).toMatch(/^fnv1a:[0-9a-f]{8}-\d+$/);
  });

  it('an object larger than RULES_MAX_BYTES is not read whole: the last good rules stay', async () => {
    const { handler, key } = await packagedFromS3(GOOD, { RULES_TTL_SECONDS: '0.2' });
    const good = (await invoke(handler, badRepo())).body.response;
    await s3.put(key, Buffer.alloc(50 * 1024 * 1024, 0x23)); // 50 MB of '#'
    await sleep(250);
    for (let i = 0; i < 3; i++) {
      const { response } = (await invoke(handler, badRepo())).body;
      expect(response).toMatchObject({ allowed: false, auditAnnotations: { 'rules-version': good.auditAnnotations['rules-version'] } });
    }
    const [large] = s3
      .gets(key)
      .filter((request) => request.status === 200)
      .slice(-1);
    expect(large!.bytesSent).toBeLessThan(8 * 1024 * 1024);
    expect(logs.withMessage('invalid rules document')[0]!.errors[0]).toMatch(/52428800 bytes, larger than the 2097152 bytes allowed/);
  });
});
