// replica-limits, required-labels, deploy-windows and audit-log, one behaviour per case.
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../functions/admission/review/admission-review-schema.js';
import { auditLogPolicy } from '../../functions/audit-log/policy.js';
import { redactObject } from '../../functions/audit-log/redact.js';
import { deployWindowsPolicy } from '../../functions/deploy-windows/policy.js';
import { DeployWindowsParametersSchema } from '../../functions/deploy-windows/rules.js';
import { replicaLimitsPolicy } from '../../functions/replica-limits/policy.js';
import { ReplicaLimitsParametersSchema } from '../../functions/replica-limits/rules.js';
import { requiredLabelsPolicy } from '../../functions/required-labels/policy.js';
import { RequiredLabelsParametersSchema } from '../../functions/required-labels/rules.js';
import { admissionReviewFor, type ReviewOptions } from '../../infra/admission-event.js';
import * as v from '../../functions/admission/schema.js';

const request = (manifest: unknown, options: ReviewOptions = {}) => admissionReviewFor(manifest, options).request as AdmissionRequest;
const at = (iso: string) => ({ now: new Date(iso) });
const deployment = (replicas?: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: { ...(replicas === undefined ? {} : { replicas }), template: { spec: { containers: [] } } },
});

describe('replica-limits', () => {
  const parameters = v.parse(ReplicaLimitsParametersSchema, {
    ranges: [
      { min: 3, max: 50 },
      { min: 100, max: 100 },
    ],
  });
  const evaluate = (req: AdmissionRequest) => replicaLimitsPolicy.evaluate(req, parameters, at('2026-01-01T00:00:00Z')) as string[];

  it.each([
    [3, true],
    [50, true],
    [51, false],
    [100, true], // in the second range
    [2, false],
    [undefined, false], // missing counts as 1
  ])('replicas %s → allowed %s', (replicas, allowed) => {
    expect(evaluate(request(deployment(replicas))).length === 0).toBe(allowed);
  });

  it('names the value and every allowed range', () => {
    expect(evaluate(request(deployment(60)))).toEqual(['Deployment "web": replicas 60 is outside the allowed ranges 3-50, 100-100']);
  });

  it('checks `kubectl scale`: an UPDATE of the scale subresource with an autoscaling/v1 Scale', () => {
    const scale = request(
      { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web' }, spec: { replicas: 200 } },
      { operation: 'UPDATE' },
    );
    expect(evaluate({ ...scale, resource: { group: 'apps', version: 'v1', resource: 'deployments' }, subResource: 'scale' })).toEqual([
      'scaling deployments "web": replicas 200 is outside the allowed ranges 3-50, 100-100',
    ]);
    // the scale of something that is not a scaled workload kind of ours is not judged
    expect(
      evaluate({ ...scale, resource: { group: '', version: 'v1', resource: 'replicationcontrollers' }, subResource: 'scale' }),
    ).toEqual([]);
  });

  it('refuses a range whose min exceeds its max, and no ranges', () => {
    expect(v.safeParse(ReplicaLimitsParametersSchema, { ranges: [{ min: 5, max: 2 }] }).success).toBe(false);
    expect(v.safeParse(ReplicaLimitsParametersSchema, { ranges: [] }).success).toBe(false);
    expect(v.safeParse(ReplicaLimitsParametersSchema, { ranges: [{ min: 1.5, max: 2 }] }).success).toBe(false);
  });
});

describe('required-labels', () => {
  const parameters = v.parse(RequiredLabelsParametersSchema, { labels: [{ key: 'owner', allowedValues: ['team-*'] }, { key: 'app' }] });
  const evaluate = (labels?: Record<string, string>) =>
    requiredLabelsPolicy.evaluate(
      request({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns', labels } }),
      parameters,
      at('2026-01-01T00:00:00Z'),
    ) as string[];

  it.each([
    [{ owner: 'team-a', app: 'x' }, []],
    [{ owner: 'team-a' }, ['Namespace "ns" is missing label "app"']],
    [{ owner: 'alice', app: 'x' }, ['Namespace "ns" label "owner" has value "alice"; allowed: team-*']],
    [undefined, ['Namespace "ns" is missing label "owner"', 'Namespace "ns" is missing label "app"']], // all problems listed
  ])('labels %j', (labels, expected) => {
    expect(evaluate(labels)).toEqual(expected);
  });
});

describe('deploy-windows', () => {
  const parameters = v.parse(DeployWindowsParametersSchema, {
    timezone: 'Europe/Berlin',
    freezes: [
      { days: ['Fri'], from: '16:00', to: '00:00' },
      { days: ['Sat', 'Sun'], from: '00:00', to: '00:00' },
      { from: '22:00', to: '06:00' },
    ],
    dates: [{ from: '2026-12-24', to: '2026-12-27' }],
    exemptGroups: ['portcullis:break-glass'],
    exemptUsers: ['system:serviceaccount:ci:*'],
  });
  const evaluate = (iso: string, options: ReviewOptions = {}) =>
    deployWindowsPolicy.evaluate(request(deployment(2), options), parameters, at(iso)) as string[];

  it.each([
    ['Wednesday 10:00 Berlin', '2026-11-18T09:00:00Z', undefined],
    ['Wednesday 23:30 Berlin: nightly window, ends 06:00 the next day', '2026-11-18T22:30:00Z', '2026-11-19 06:00'],
    ['Thursday 05:59 Berlin: the window that started the day before', '2026-11-19T04:59:00Z', '2026-11-19 06:00'],
    ['Thursday 06:00 Berlin: over', '2026-11-19T05:00:00Z', undefined],
    // the weekend runs into Sunday night's nightly window, so the freeze really ends Monday 06:00
    ['Friday 16:30 Berlin: through the weekend and the night after', '2026-11-20T15:30:00Z', '2026-11-23 06:00'],
    ['Friday 15:59 Berlin', '2026-11-20T14:59:00Z', undefined],
    ['Christmas Day: the date range, then the night window', '2026-12-25T09:00:00Z', '2026-12-28 06:00'],
    ['summer time: Wednesday 21:30 UTC is 23:30 in Berlin', '2026-07-15T21:30:00Z', '2026-07-16 06:00'],
  ])('%s', (_case, iso, endsAt) => {
    const violations = evaluate(iso);
    if (!endsAt) return expect(violations).toEqual([]);
    expect(violations.length).toBeGreaterThan(0);
    for (const violation of violations) expect(violation).toContain(`the freeze ends ${endsAt} Europe/Berlin`);
  });

  it.each([
    ['a break-glass group', { groups: ['system:authenticated', 'portcullis:break-glass'] }],
    ['an exempt user (glob)', { username: 'system:serviceaccount:ci:deployer' }],
  ])('%s may change things during a freeze', (_case, options) => {
    expect(evaluate('2026-12-25T09:00:00Z', options)).toEqual([]);
  });

  it.each([
    ['an unknown time zone', { timezone: 'Mars/Olympus' }, 'timezone'],
    ['a bad clock', { freezes: [{ from: '24:00', to: '06:00' }] }, 'freezes'],
    ['an unknown day', { freezes: [{ days: ['Friday'], from: '16:00', to: '18:00' }] }, 'freezes'],
    ['a date range backwards', { dates: [{ from: '2026-12-27', to: '2026-12-24' }] }, 'dates'],
    ['not a calendar date', { dates: [{ from: '2026-02-30', to: '2026-03-01' }] }, 'dates'],
  ])('refuses %s', (_case, input, field) => {
    const result = v.safeParse(DeployWindowsParametersSchema, input);
    expect(result.success).toBe(false);
    expect(result.issues![0]!.path![0]!.key).toBe(field);
  });
});

describe('audit-log', () => {
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"password":"aHVudGVyMg=="}}' } },
    data: { password: 'aHVudGVyMg==' },
    stringData: { token: 'plain-token' },
  };
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: {
      containers: [
        {
          name: 'c',
          image: 'nginx',
          env: [
            { name: 'API_TOKEN', value: 's3cr3t' },
            { name: 'DB', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
          ],
        },
      ],
    },
  };

  it('admits everything, on every kind and operation by default', () => {
    expect(auditLogPolicy.evaluate(request(secret), { includeObject: true }, at('2026-01-01T00:00:00Z'))).toEqual([]);
    expect(auditLogPolicy.defaultKinds).toEqual(['*']);
    expect(auditLogPolicy.defaultOperations).toContain('DELETE');
  });

  it.each([
    ['a Secret, whole object', secret, true],
    ['a Secret, summary', secret, false],
    ['a Pod with env values, whole object', pod, true],
    ['a Pod with env values, summary', pod, false],
  ])('never logs secret values: %s', (_case, object, includeObject) => {
    const details = JSON.stringify(auditLogPolicy.logDetails!(request(object, { username: 'alice' }), { includeObject }));
    for (const value of ['aHVudGVyMg==', 'plain-token', 's3cr3t']) expect(details).not.toContain(value);
    expect(details).toContain('alice');
  });

  it('keeps what an audit needs: keys, names, images, the secret reference', () => {
    expect(redactObject(secret)).toMatchObject({ data: { password: '<redacted>' }, stringData: { token: '<redacted>' } });
    const redactedPod = redactObject(pod) as typeof pod;
    expect(redactedPod.spec.containers[0]!.env).toEqual([
      { name: 'API_TOKEN', value: '<redacted>' },
      { name: 'DB', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
    ]);
    expect(auditLogPolicy.logDetails!(request(pod), { includeObject: false })).toMatchObject({
      summary: { containers: [{ kind: 'container', name: 'c', image: 'nginx' }] },
    });
  });
});
