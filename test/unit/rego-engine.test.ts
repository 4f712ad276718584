// The Rego engine's own promises beyond the language cases: the input is read where it lies, a template is
// compiled once per rules version whatever the number of its constraints, and OPA's answers on the values
// Gatekeeper's policies meet most (null, missing fields, non-string keys).
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import { celPolicy } from '../../functions/cel/policy.js';
import { compileSources } from '../../functions/engines/rego/compile-sources.js';
import { evaluateDocument, evaluateQuery } from '../../functions/engines/rego/eval/query.js';
import { regoText } from '../../functions/engines/rego/builtins/format.js';
import type { Value } from '../../functions/engines/rego/values.js';

const options = (input: unknown) => ({
  input: input as Value,
  data: {},
  strictBuiltinErrors: false,
  builtins: { now: new Date(), charge() {} },
});

describe('the Rego engine', () => {
  it('reads the input where it lies: a document that is part of the input is that very object', () => {
    const policy = compileSources([
      { file: 'p.rego', source: 'package p\nobj := input.review.object\nfirst := input.review.object.spec.containers[0]' },
    ]);
    const input = { review: { object: { spec: { containers: [{ name: 'c' }] } } } };
    expect(evaluateDocument(policy, ['p', 'obj'], options(input))).toBe(input.review.object);
    expect(evaluateDocument(policy, ['p', 'first'], options(input))).toBe(input.review.object.spec.containers[0]);
  });

  it('compiles a template once per rules version, however many constraints it has', () => {
    const template = {
      apiVersion: 'templates.gatekeeper.sh/v1',
      kind: 'ConstraintTemplate',
      metadata: { name: 'k8sonce' },
      spec: {
        crd: { spec: { names: { kind: 'K8sOnce' } } },
        targets: [{ target: 'admission.k8s.gatekeeper.sh', rego: 'package k8sonce\nviolation[{"msg": "m"}] { input.parameters.on }' }],
      },
    };
    const constraints = ['a', 'b', 'c'].map((name) => ({
      apiVersion: 'constraints.gatekeeper.sh/v1beta1',
      kind: 'K8sOnce',
      metadata: { name },
    }));
    const parsed = parseRulesDocument(celPolicy, [template, ...constraints].map((document) => stringify(document)).join('---\n'));
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    const policies = parsed.document.rules.map((rule) => (rule.parameters as { run: { rule: { policy: unknown } } }).run.rule.policy);
    expect(new Set(policies).size).toBe(1);
    expect(policies).toHaveLength(3);
  });

  it.each([
    ['object.get keeps a null value', 'object.get({"a": null}, "a", 1)', 'null'],
    ['object.get takes the default for a missing key', 'object.get({"a": 1}, "b", "d")', '"d"'],
    ['a missing field is undefined, not false', 'count([x | x := input.nope])', '0'],
    ['objects with non-string keys', '{1: "a", [2]: "b"}[[2]]', '"b"'],
    ['sets of objects compare by value', '{{"a": 1}} == {{"a": 1}}', 'true'],
    ['sprintf as Go formats OPA values', 'sprintf("%v %d %s %.1f", [{"k": ["v"]}, 7, "s", 2.25])', '"{\\"k\\": [\\"v\\"]} 7 s 2.2"'],
    ['string functions count characters', 'substring("žluťoučký", 2, 3)', '"uťo"'],
    ['units.parse_bytes', 'units.parse_bytes("1.5Gi")', '1610612736'],
  ])('%s', (_name, query, expected) => {
    const policy = compileSources([{ file: 'empty.rego', source: 'package empty' }]);
    const [result] = evaluateQuery(policy, `x := ${query}`, { ...options({}), strictBuiltinErrors: true });
    expect(regoText(result!.bindings.x!)).toBe(expected);
  });
});
