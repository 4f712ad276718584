// End to end through the deployment artifacts of the mutating functions: each zip unpacked and imported as
// the Lambda runtime would, called with every fixture; every patch applied strictly (RFC 6902).
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importPackagedHandler } from '../../infra/packaged-function.js';
import { applyPatchStrictly } from '../helpers/apply-patch.js';
import { fixture, type Handler, invoke } from '../helpers/invoke.js';
import { TEST_RULES } from '../helpers/test-rules.js';

type Check = (patched: any) => void;
const MIRROR_RECORD = 'portcullis.io/registry-mirror';

// What each fixture must produce with test/fixtures/rules/<policy>.yaml: undefined = no patch, else a check of the patched object.
const EXPECTED: Record<string, Record<string, Check | undefined>> = {
  'registry-mirror': {
    'pod-tekton.json': (o) => {
      expect(o.spec.containers[0].image).toBe('registry.gitlab.cn/flomesh/registry-mirror/tekton-pipeline/controller:v0.28.1');
      expect(JSON.parse(o.metadata.annotations[MIRROR_RECORD])).toEqual({
        'tekton-pipelines-controller': 'gcr.io/tekton-releases/github.com/tektoncd/pipeline/cmd/controller:v0.28.1',
      });
    },
    'deployment-nginx.json': (o) => {
      expect(o.spec.template.spec.containers.map((c: any) => c.image)).toEqual([
        'mirror.example.com/library/nginx:1.21',
        'quay.io/prometheus/nginx-exporter:1.1',
      ]);
      expect(o.spec.template.spec.initContainers[0].image).toBe('mirror.example.com/library/busybox:1.36');
      expect(o.metadata.annotations['team.example.com/owner']).toBe('payments');
    },
    'cronjob-alpine.json': (o) =>
      expect(o.spec.jobTemplate.spec.template.spec.containers[0].image).toBe('mirror.example.com/library/alpine:3.20'),
    'pod-static.json': undefined,
    'pod-already-mirrored.json': undefined,
    'deployment-delete.json': undefined,
  },
  'disable-service-links': {
    'pod-no-field.json': (o) => expect(o.spec.enableServiceLinks).toBe(false),
    'pod-explicit-true.json': (o) => expect(o.spec.enableServiceLinks).toBe(false), // the sample rules override
    'pod-already-false.json': undefined,
    'deployment.json': (o) => expect(o.spec.template.spec.enableServiceLinks).toBe(false),
    'cronjob.json': (o) => expect(o.spec.jobTemplate.spec.template.spec.enableServiceLinks).toBe(false),
  },
  mutations: {
    'pod-unlabelled.json': (o) => expect(o.metadata.labels).toEqual({ 'example.com/environment': 'test' }),
    'pod-labelled.json': (o) => expect(o.metadata.labels).toEqual({ app: 'api', 'example.com/environment': 'test' }),
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

    it.each(Object.entries(cases))('%s', async (name, check) => {
      const event = fixture(policy, name);
      const request = JSON.parse(event.body!).request;
      const { statusCode, body } = await invoke(handler as Handler, event);
      expect(statusCode).toBe(200);
      expect(body.response).toMatchObject({ uid: request.uid, allowed: true });
      if (!check) {
        expect(body.response).not.toHaveProperty('patch');
        return;
      }
      expect(body.response.patchType).toBe('JSONPatch');
      check(applyPatchStrictly(request.object, body.response.patch));
    });
  });
}
