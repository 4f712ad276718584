// The fields cel expressions read, checked against the matched built-in kinds' OpenAPI schemas at
// validate/push: a field no matched kind has is a warning naming it, the schema that lacks it and the
// kinds; a field any matched kind has, or a kind without a known schema, is not. Kyverno's whole library
// must raise none: every warning there would be a false alarm on a policy its authors test.
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import type { Rule } from '../../functions/admission/rules/rules-document-schema.js';
import { celPolicy } from '../../functions/cel/policy.js';
import type { CelParameters } from '../../functions/cel/rules.js';
import { celSchemaWarnings } from '../../infra/cel-schema-check.js';
import { kyvernoSuites } from '../helpers/kyverno-vpol.js';

function rules(document: string): Rule<CelParameters>[] {
  const parsed = parseRulesDocument(celPolicy, document);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  return parsed.document.rules;
}

const native = (match: object, parameters: object) => stringify({ rules: [{ name: 'r', match, parameters }] });
const pods = { kinds: ['Pod'] };

describe('cel expressions against the OpenAPI schemas', () => {
  it.each([
    [
      'a typo on the object',
      pods,
      { validations: [{ expression: 'object.spec.containres.size() > 0' }] },
      'rule r: validations[0].expression: object.spec.containres: containres is not a field of PodSpec (the schema of Pod, Deployment',
    ],
    [
      'a typo through a comprehension variable',
      pods,
      { validations: [{ expression: "object.spec.containers.all(c, c.imagee != '')" }] },
      'object.spec.containers[].imagee: imagee is not a field of Container',
    ],
    [
      'a typo through a variable joining lists',
      pods,
      {
        variables: [{ name: 'all', expression: 'object.spec.containers + object.spec.?initContainers.orValue([])' }],
        validations: [{ expression: 'variables.all.all(c, has(c.securityContex.privileged))' }],
      },
      'variables.all[].securityContex: securityContex is not a field of Container',
    ],
    [
      'a typo after an index',
      pods,
      { validations: [{ expression: 'object.spec.containers[0].ports.exists(p, p.containerPortt > 1)' }] },
      'object.spec.containers[].ports[].containerPortt: containerPortt is not a field of ContainerPort',
    ],
    [
      'a typo in a messageExpression',
      { kinds: ['Deployment'] },
      { validations: [{ expression: 'true', messageExpression: "'replicas: ' + string(object.spec.replica)" }] },
      'validations[0].messageExpression: object.spec.replica: replica is not a field of DeploymentSpec (the schema of Deployment)',
    ],
  ])('warns about %s', (_case, match, parameters, warning) => {
    const warnings = celSchemaWarnings(rules(native(match, parameters)));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(warning);
  });

  it.each([
    [
      'map keys (labels) and fields present',
      pods,
      {
        validations: [
          {
            expression:
              "object.metadata.labels['app.kubernetes.io/name'] != '' && object.spec.containers.all(c, has(c.securityContext.runAsNonRoot))",
          },
        ],
      },
    ],
    [
      'a field one of the matched kinds has',
      { kinds: ['Deployment', 'Pod'] },
      { validations: [{ expression: 'has(object.spec.template) || has(object.spec.containers)' }] },
    ],
    [
      'a custom resource (no schema known)',
      { resourceRules: [{ apiGroups: ['cert-manager.io'], apiVersions: ['v1'], resources: ['certificates'] }] },
      { validations: [{ expression: 'object.spec.dnsNames.size() > 0' }] },
    ],
    [
      'request, params and oldObject',
      { kinds: ['Namespace'] },
      {
        params: { max: 3 },
        validations: [
          { expression: "request.operation == 'DELETE' || oldObject == null || oldObject.metadata.name == object.metadata.name" },
        ],
      },
    ],
  ])('says nothing about %s', (_case, match, parameters) => {
    expect(celSchemaWarnings(rules(native(match, parameters)))).toEqual([]);
  });

  it('names the manifest a warning comes from', () => {
    const policy = {
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'ValidatingPolicy',
      metadata: { name: 'probes' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
        validations: [{ expression: 'object.spec.containers.all(c, has(c.livenesProbe))' }],
      },
    };
    expect(celSchemaWarnings(rules(stringify(policy)))).toEqual([
      'ValidatingPolicy probes: validations[0].expression: object.spec.containers[].livenesProbe: livenesProbe is not a field of Container (the schema of Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob)',
    ]);
  });

  it("raises no warning on Kyverno's ValidatingPolicy library", () => {
    const bundle = kyvernoSuites()
      .map((suite) => suite.policyTexts.map(({ text }) => text).join('\n---\n'))
      .filter((text) => parseRulesDocument(celPolicy, text).ok);
    expect(bundle.length).toBeGreaterThan(50);
    expect(celSchemaWarnings(rules(bundle.join('\n---\n')))).toEqual([]);
  });
});
