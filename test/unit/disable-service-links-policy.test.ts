import { describe, expect, it } from 'vitest';
import { disableServiceLinksPolicy } from '../../functions/disable-service-links/policy.js';
import { DisableServiceLinksParametersSchema } from '../../functions/disable-service-links/rules.js';
import { admissionReviewFor } from '../../infra/admission-event.js';
import * as v from '../../functions/admission/schema.js';

const mutate = (manifest: any, override: boolean) =>
  disableServiceLinksPolicy.mutate(
    admissionReviewFor(manifest).request,
    v.parse(DisableServiceLinksParametersSchema, { override }),
    structuredClone(manifest),
    { now: new Date() },
  ) as any;
const pod = (enableServiceLinks?: boolean) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p' },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...(enableServiceLinks === undefined ? {} : { enableServiceLinks }) },
});

describe('disable-service-links', () => {
  it.each([
    [undefined, false, false], // absent: set
    [true, false, true], // explicit true kept without override
    [true, true, false], // override forces false
    [false, false, false],
    [false, true, false],
  ])('enableServiceLinks %s with override %s → %s', (current, override, expected) => {
    expect(mutate(pod(current), override).spec.enableServiceLinks).toBe(expected);
  });

  it.each([
    ['Deployment', (spec: object) => ({ spec: { template: { spec } } }), (o: any) => o.spec.template.spec],
    [
      'CronJob',
      (spec: object) => ({ spec: { jobTemplate: { spec: { template: { spec } } } } }),
      (o: any) => o.spec.jobTemplate.spec.template.spec,
    ],
  ])('%s: sets the pod template', (kind, wrap, specOf) => {
    const result = mutate({ apiVersion: 'apps/v1', kind, metadata: { name: 'x' }, ...wrap({ containers: [] }) }, false);
    expect(specOf(result).enableServiceLinks).toBe(false);
  });

  it('defaults override to false and refuses unknown parameters', () => {
    expect(v.parse(DisableServiceLinksParametersSchema, {})).toEqual({ override: false });
    expect(v.safeParse(DisableServiceLinksParametersSchema, { overide: true }).success).toBe(false);
  });
});
