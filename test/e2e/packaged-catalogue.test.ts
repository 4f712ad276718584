// End to end through the deployment artifacts of the catalogue's validating functions, with every fixture
// and the sample rules in policies/.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importPackagedHandler } from '../../infra/packaged-function.js';
import { fixture, type Handler, invoke } from '../helpers/invoke.js';
import { TEST_RULES } from '../helpers/test-rules.js';

// allowed: the decision; undefined: depends on the wall clock (deploy-windows), so only the answer's shape.
const EXPECTED: Record<string, Record<string, { allowed?: boolean; message?: RegExp }>> = {
  'replica-limits': {
    'deployment-3.json': { allowed: true },
    'deployment-100.json': { allowed: false, message: /Deployment "web": replicas 100 is outside the allowed range 2-50/ },
    'deployment-no-replicas.json': { allowed: false, message: /replicas 1 is outside/ },
    'statefulset-60.json': { allowed: false, message: /StatefulSet "db": replicas 60/ },
    'scale-deployment-100.json': { allowed: false, message: /scaling deployments "web": replicas 100/ },
  },
  'required-labels': {
    'namespace-labelled.json': { allowed: true },
    'pod-no-labels.json': { allowed: false, message: /missing label "app.kubernetes.io\/name".*missing label "owner"/ },
    'service-bad-owner.json': { allowed: false, message: /label "owner" has value "alice"; allowed: team-\*/ },
  },
  cel: {
    'deployment-2.json': { allowed: true },
    'deployment-3.json': { allowed: false, message: /rule small-deployments: Deployments may have at most 2 replicas/ },
    'pod-latest.json': { allowed: false, message: /images must be pinned, not :latest: nginx:latest$/ },
  },
  'deploy-windows': {
    'deployment-create.json': {},
    'deployment-break-glass.json': { allowed: true },
  },
  'audit-log': {
    'secret-create.json': { allowed: true },
    'pod-with-env.json': { allowed: true },
    'pod-delete.json': { allowed: true },
  },
};

for (const [policy, cases] of Object.entries(EXPECTED)) {
  describe(`the packaged ${policy} function`, async () => {
    const { handler } = await importPackagedHandler(policy, { RULES_DIR: TEST_RULES });

    it('every fixture has an expectation', () => {
      expect(
        readdirSync(`events/${policy}`)
          .filter((file) => file.endsWith('.json'))
          .sort(),
      ).toEqual(Object.keys(cases).sort());
    });

    it.each(Object.entries(cases))('%s', async (name, expected) => {
      const event = fixture(policy, name);
      const { statusCode, body } = await invoke(handler as Handler, event);
      expect(statusCode).toBe(200);
      expect(body.response.uid).toBe(JSON.parse(event.body!).request.uid);
      expect(body.response).not.toHaveProperty('patch');
      if (expected.allowed !== undefined) expect(body.response.allowed).toBe(expected.allowed);
      if (expected.message) expect(body.response.status.message).toMatch(expected.message);
      if (body.response.allowed === false && policy === 'deploy-windows')
        expect(body.response.status.message).toMatch(/the freeze ends \d{4}-\d{2}-\d{2} \d{2}:\d{2} Europe\/Berlin/);
    });
  });
}
