// Kyverno's autogen rewrites an autogen rule's text, `request.object.spec` and `request.object.metadata` (and
// oldObject's), to the pod template's, and nothing else (autogen.go's updateFields): written any other way,
// a path reads the controller itself. Outcomes through the cel function's evaluation of a ClusterPolicy.
import '../helpers/engines.js';
import { describe, expect, it } from 'vitest';
import { evaluateRules } from '../../functions/admission/decide/evaluate-rules.js';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import { celPolicy } from '../../functions/cel/policy.js';
import { admissionReviewFor } from '../../infra/admission-event.js';

/** A policy that denies Pods whose labels (read by `key`) lack team: web. */
const policy = (key: string) =>
  JSON.stringify({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'team' },
    spec: {
      validationFailureAction: 'Enforce',
      rules: [
        {
          name: 'team-web',
          match: { any: [{ resources: { kinds: ['Pod'] } }] },
          preconditions: { all: [{ key: `{{ ${key} || '' }}`, operator: 'NotEquals', value: 'web' }] },
          validate: { message: 'team {{ request.object.metadata.name }}', deny: {} },
        },
      ],
    },
  });

// The Deployment's own labels say web; its pod template's say nothing.
const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd', labels: { team: 'web' } },
  spec: { template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } } },
};
const cronJob = {
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: 'cj', labels: { team: 'web' } },
  spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { metadata: { labels: { app: 'cj' } }, spec: { containers: [] } } } } },
};

async function allowed(key: string, object: unknown): Promise<boolean> {
  const parsed = parseRulesDocument(celPolicy, policy(key));
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  return (await evaluateRules(celPolicy, parsed.document, admissionReviewFor(object).request as never)).verdict.allowed;
}

describe('autogen rewrites what Kyverno rewrites, and no more', () => {
  it.each([
    ['request.object.metadata.labels.team', deployment, false, 'rewritten: the template has no team label'],
    ['request."object".metadata.labels.team', deployment, true, "a quoted segment is not rewritten: the Deployment's own label"],
    ['request.object."metadata".labels.team', deployment, true, 'quoted after object: not rewritten either'],
    ['request.object.metadata.labels.team', cronJob, false, "a CronJob's: rewritten to the job template's pod template"],
    ['request."object".metadata.labels.team', cronJob, true, "a CronJob's, quoted: the CronJob's own label"],
  ])('%s on a %o', async (key, object, expected, _why) => {
    expect(await allowed(key, object)).toBe(expected);
  });

  it('a field the rewrite does not name reads the controller (request.object.kind is Deployment)', async () => {
    expect(await allowed("request.object.kind == 'Deployment' && 'web'", deployment)).toBe(true);
  });
});
