// End to end through the deployment artifact: the zip `sls package` wrote, unpacked and imported as the
// Lambda runtime would, called with every fixture under events/trusted-registry/.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { fixture, type Handler, invoke } from '../helpers/invoke.js';
import { policyRegistry } from '../../functions/registry.js';
import { importPackagedHandler } from '../../infra/packaged-function.js';
import { TEST_PACKAGE } from '../helpers/package-once.js';
import { TEST_RULES } from '../helpers/test-rules.js';

const { handler, root } = await importPackagedHandler('trusted-registry', { RULES_DIR: TEST_RULES });

// What each fixture must produce with test/fixtures/rules/trusted-registry.yaml.
const EXPECTED: Record<string, { status: number; allowed?: boolean; apiVersion?: string; message?: RegExp }> = {
  'pod-bad-repo.json': { status: 200, allowed: false, message: /container "nginx" image "nginx:1.21.1" is not from an allowed registry/ },
  'pod-bad-tag.json': { status: 200, allowed: false, message: /image "192.168.64.1:5000\/nginx:latest" uses forbidden tag "latest"/ },
  'pod-bad-tag-base64.json': { status: 200, allowed: false, message: /forbidden tag "latest"/ },
  'pod-allowed.json': { status: 200, allowed: true },
  'deployment-bad-repo.json': {
    status: 200,
    allowed: false,
    message:
      /container "web" image "docker.io\/library\/nginx:1.21.1".*container "sidecar" image "192.168.64.1:5000\/envoy" uses forbidden tag/,
  },
  'pod-update-bad-tag.json': { status: 200, allowed: false, message: /forbidden tag "latest"/ },
  'pod-v1beta1-bad-repo.json': { status: 200, allowed: false, apiVersion: 'admission.k8s.io/v1beta1' },
  'pod-delete.json': { status: 200, allowed: true },
  'pod-kube-system-excluded.json': { status: 200, allowed: true },
  'malformed-body.json': { status: 400, message: /body is not valid JSON/ },
};

describe('the packaged trusted-registry function', () => {
  it('every fixture has an expectation', () => {
    expect(
      readdirSync('events/trusted-registry')
        .filter((file) => file.endsWith('.json'))
        .sort(),
    ).toEqual(Object.keys(EXPECTED).sort());
  });

  // Size is measured and reported by `npm run bench`, not asserted here.
  it('the bundle is an ESM .js file with "type": "module" beside it', () => {
    expect(readFileSync(`${root}/functions/trusted-registry/handler.js`, 'utf8')).toMatch(/^import|\bexport\s*\{/m);
    expect(JSON.parse(readFileSync(`${root}/functions/package.json`, 'utf8')).type).toBe('module');
  });

  it('every policy has a zip that holds only its own function (code splitting must not leak chunks across zips)', async () => {
    for (const { name: policy } of policyRegistry) {
      const names = Object.keys((await JSZip.loadAsync(readFileSync(join(TEST_PACKAGE, `${policy}.zip`)))).files).filter(
        (name) => !name.endsWith('/'),
      );
      expect(
        names.filter(
          (name) => !name.startsWith(`functions/${policy}/`) && name !== 'functions/package.json' && !name.startsWith('policies/'),
        ),
      ).toEqual([]);
      expect(names).toContain(`functions/${policy}/handler.js`);
    }
  });

  it.each(Object.entries(EXPECTED))('%s', async (name, expected) => {
    const event = fixture('trusted-registry', name);
    const answer = await invoke(handler as Handler, event);
    expect(answer.statusCode).toBe(expected.status);
    if (expected.status !== 200) {
      expect(answer.body.error).toMatch(expected.message!);
      return;
    }
    const request = JSON.parse(event.isBase64Encoded ? Buffer.from(event.body!, 'base64').toString() : event.body!).request;
    expect(answer.body.apiVersion).toBe(expected.apiVersion ?? 'admission.k8s.io/v1');
    expect(answer.body.response.uid).toBe(request.uid);
    expect(answer.body.response.allowed).toBe(expected.allowed);
    if (expected.message) expect(answer.body.response.status.message).toMatch(expected.message);
    if (!expected.allowed) expect(answer.body.response.status).toMatchObject({ code: 403, reason: 'Forbidden' });
  });
});
