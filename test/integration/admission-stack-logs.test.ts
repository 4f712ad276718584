// The shared stack's logs, driven through a real handler with rules in a real directory: the decision log
// and the audit-log decision line (never a Secret, an env value or the object), and the HTTP layer's answer
// to an unexpected error (no message, no stack).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventFor, type Handler, invoke } from '../helpers/invoke.js';
import { portcullis } from '../helpers/portcullis-cli.js';
import { rulesFolderPerTest } from '../helpers/rules-folder.js';

const rules = rulesFolderPerTest();
const writeRules = rules.write;
const SEED_RULES = 'rules: [{ name: seed, parameters: { allowedRegistries: ["192.168.64.1"], forbiddenTags: [latest] } }]';

describe('the decision log', () => {
  // In a process of its own, as in Lambda: the logger's level and event logging are fixed at init.
  it('writes one JSON line per decision with the rules version, and never the object, even with event logging on', async () => {
    writeRules('trusted-registry', SEED_RULES);
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'app', image: 'nginx:1', env: [{ name: 'TOKEN', value: 's3cr3t-t0ken' }] }] },
    };
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: { password: 'c3VwZXItc2VjcmV0' },
      stringData: { token: 'plain-s3cret' },
    };
    const lines: string[] = [];
    for (const [name, object] of [
      ['pod', pod],
      ['secret', secret],
    ] as const) {
      const eventFile = join(rules.dir(), `${name}.json`);
      writeFileSync(eventFile, JSON.stringify(eventFor(object, { namespace: 'shop' })));
      // The CLI prints the answer on stdout and everything the stack writes (logs, metrics) on stderr.
      const { stderr } = await portcullis(['invoke', 'trusted-registry', eventFile], {
        RULES_DIR: rules.dir(),
        POWERTOOLS_LOG_LEVEL: 'INFO',
        POWERTOOLS_LOGGER_LOG_EVENT: 'true',
      });
      lines.push(...stderr.split('\n').filter((line) => line.startsWith('{"level"')));
    }
    const entries = lines.map((line) => JSON.parse(line));
    expect(entries.map((entry) => entry.message)).toEqual(['admission decision', 'admission decision']);
    expect(entries[0]).toMatchObject({
      policy: 'trusted-registry',
      kind: 'Pod',
      namespace: 'shop',
      name: 'p',
      operation: 'CREATE',
      outcome: 'denied',
      failedOpen: false,
      rule: 'seed',
      rulesVersion: expect.stringMatching(/^fnv1a:[0-9a-f]{8}-\d+$/),
      durationMs: expect.any(Number),
    });
    expect(entries[1]).toMatchObject({ kind: 'Secret', outcome: 'allowed' });
    for (const value of ['s3cr3t-t0ken', 'c3VwZXItc2VjcmV0', 'plain-s3cret']) expect(lines.join('\n')).not.toContain(value);
  }, 30_000);
});

describe('the audit-log decision line', () => {
  it('carries who, what and a summary, and no Secret or env value even with includeObject', async () => {
    writeRules('audit-log', 'rules: [{ name: all, parameters: { includeObject: true } }]');
    const lines: string[] = [];
    for (const name of ['secret-create.json', 'pod-with-env.json', 'pod-delete.json']) {
      const { stderr } = await portcullis(['invoke', 'audit-log', `events/audit-log/${name}`], {
        RULES_DIR: rules.dir(),
        POWERTOOLS_LOG_LEVEL: 'INFO',
        POWERTOOLS_LOGGER_LOG_EVENT: 'true',
      });
      lines.push(...stderr.split('\n').filter((line) => line.startsWith('{"level"')));
    }
    const entries = lines.map((line) => JSON.parse(line));
    expect(entries.map((entry) => [entry.message, entry.kind, entry.operation])).toEqual([
      ['admission decision', 'Secret', 'CREATE'],
      ['admission decision', 'Pod', 'CREATE'],
      ['admission decision', 'Pod', 'DELETE'],
    ]);
    expect(entries[0].details).toMatchObject({ user: { username: 'kubernetes-admin' }, object: { data: { password: '<redacted>' } } });
    for (const secretValue of ['aHVudGVyMg==', 'plain-text-token', 's3cr3t-value']) expect(lines.join('\n')).not.toContain(secretValue);
  }, 30_000);
});

describe('jsonHttpResponse, around an identity handler', () => {
  it('turns an unexpected error into a bare 500 without its message or stack', async () => {
    const { default: middy } = await import('@middy/core');
    const { jsonHttpResponse } = await import('../../functions/admission/http/middlewares.js');
    const handler = middy(() => {
      throw new Error('secret detail at /var/task/x.js:1');
    }).use(jsonHttpResponse());
    const answer = await invoke(handler as unknown as Handler, {});
    expect(answer).toMatchObject({ statusCode: 500, body: { error: 'internal error; see the function log' } });
    expect(JSON.stringify(answer.body)).not.toContain('secret detail');
  });
});
