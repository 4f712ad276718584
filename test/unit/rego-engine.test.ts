// The Rego engine's own promises beyond the language cases: the input is read where it lies, a template is
// compiled once per rules version whatever the number of its constraints, and OPA's answers on the values
// Gatekeeper's policies meet most (null, missing fields, non-string keys).
import '../helpers/engines.js';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import { celPolicy } from '../../functions/cel/policy.js';
import { compileSources } from '../../functions/engines/rego/compile-sources.js';
import { evalDocument, evalQuery } from '../../functions/engines/rego/rego.js';
import { regoText } from '../../functions/engines/rego/builtins/format.js';
import type { Value } from '../../functions/engines/rego/values.js';
import { CostBudget, CostLimitExceededError } from '../../functions/engines/runtime/cost-budget.js';

const options = (input: unknown, budget = new CostBudget(Number.POSITIVE_INFINITY)) => ({
  input: input as Value,
  data: {},
  strictBuiltinErrors: false,
  now: new Date(),
  budget,
});

describe('the Rego engine', () => {
  it('a query reports each expression’s value as evaluated, inside its `with`s, and a false single expression as false', () => {
    const policy = compileSources([{ file: 'p.rego', source: 'package p\nimport rego.v1\nx := input.n * 2' }]);
    const [withInput] = evalQuery(policy, 'data.p.x with input as {"n": 21}', options(undefined));
    expect(withInput?.expressions).toEqual([42]);
    expect(evalQuery(policy, 'false', options(undefined)).map(({ expressions }) => expressions)).toEqual([[false]]);
    expect(evalQuery(policy, 'false; true', options(undefined))).toEqual([]);
    expect(evalQuery(policy, 'y := 2; y > 1', options(undefined))).toEqual([{ bindings: { y: 2 }, expressions: [true, true] }]);
  });

  it('reads the input where it lies: a document that is part of the input is that very object', () => {
    const policy = compileSources([
      { file: 'p.rego', source: 'package p\nobj := input.review.object\nfirst := input.review.object.spec.containers[0]' },
    ]);
    const input = { review: { object: { spec: { containers: [{ name: 'c' }] } } } };
    expect(evalDocument(policy, ['p', 'obj'], options(input))).toBe(input.review.object);
    expect(evalDocument(policy, ['p', 'first'], options(input))).toBe(input.review.object.spec.containers[0]);
  });

  it('an object a policy makes holds every key as data, `__proto__` as any other, and formats so', () => {
    const policy = compileSources([
      { file: 'p.rego', source: 'package p\nobj := {"__proto__": input.a, "b": 2}\nmsg := sprintf("%v", [obj])' },
    ]);
    const made = evalDocument(policy, ['p', 'obj'], options({ a: { polluted: true } })) as Record<string, unknown>;
    expect(Object.getPrototypeOf(made)).toBe(Object.prototype);
    expect(Object.keys(made)).toEqual(['__proto__', 'b']);
    expect((made as { polluted?: boolean }).polluted).toBeUndefined();
    expect(evalDocument(policy, ['p', 'msg'], options({ a: 1 }))).toBe('{"__proto__": 1, "b": 2}');
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
    ["replace with an empty old inserts around every character, as Go's strings.Replace", 'replace("ab", "", "-")', '"-a-b-"'],
    ['strings.replace_n takes the patterns in key order, as OPA sorts them', 'strings.replace_n({"ab": "X", "a": "Y"}, "ab")', '"Yb"'],
    ["strings.replace_n with an empty pattern, as Go's Replacer", 'strings.replace_n({"": "X", "o": "O"}, "oo")', '"XOXOX"'],
    ['indexof_n counts characters', 'indexof_n("žaža", "a")', '[1, 3]'],
    [
      'sprintf: a width or precision Go refuses',
      'sprintf("%*d|%.*f|%c", [2000000, 1, -1, 2.5, 1114112])',
      '"%!(BADWIDTH)1|%!(BADPREC)2.500000|\ufffd"',
    ],
    ['sprintf: a negative width pads on the right', 'sprintf("%*d|", [-3, 7])', '"7  |"'],
    ['sprintf: a literal width Go stops reading, and a verb missing', 'sprintf("%99999999d a%", [1])', '"%!(NOVERB)%!(EXTRA int=1)"'],
  ])('%s', (_name, query, expected) => {
    const policy = compileSources([{ file: 'empty.rego', source: 'package empty' }]);
    const [result] = evalQuery(policy, `x := ${query}`, { ...options({}), strictBuiltinErrors: true });
    expect(regoText(result!.bindings.x!)).toBe(expected);
  });

  // Each would make gigabytes in one call: the budget stops it before the text is made.
  it.each([
    ['concat with a long delimiter', 'concat(input.text, input.list)'],
    ['replace with an empty old', 'replace(input.text, "", input.text)'],
    ['strings.replace_n with an empty pattern', 'strings.replace_n({"": input.text}, input.text)'],
    ['json.marshal_with_options with a long prefix', 'json.marshal_with_options(input.list, {"prefix": input.text, "indent": " "})'],
  ])('a built-in whose text would pass the cost budget stops before making it: %s', (_name, query) => {
    const policy = compileSources([{ file: 'empty.rego', source: 'package empty' }]);
    const budget = new CostBudget();
    const input = { text: 'x'.repeat(100_000), list: Array.from({ length: 100_000 }, () => '') };
    const evaluate = () => evalQuery(policy, `x := count(${query})`, options(input, budget));
    expect(evaluate).toThrow(CostLimitExceededError);
  });

  it('what a built-in walks and makes is charged by its size, as CEL charges a call', () => {
    const policy = compileSources([{ file: 'empty.rego', source: 'package empty' }]);
    const spent = (query: string) => {
      const budget = new CostBudget(Number.POSITIVE_INFINITY);
      evalQuery(policy, `x := ${query}`, options({ text: 'x'.repeat(10_000) }, budget));
      return budget.spent;
    };
    const small = spent('upper("x")');
    expect(spent('upper(input.text)') - small).toBeGreaterThanOrEqual(2 * 1000 - 2);
    expect(spent('concat("", [input.text, input.text])') - spent('concat("", ["x", "x"])')).toBeGreaterThanOrEqual(2000 + 2000 - 4);
  });

  it('rego.parse_module answers the module as OPA marshals its AST, and a parse error as an error', () => {
    const policy = compileSources([{ file: 'p.rego', source: 'package p' }]);
    const source = 'package foo.bar\n\nimport rego.v1\n\np if { input.a = true }\nq contains x if { some x in [1]; not x == 2 }';
    const module = evalQuery(policy, `x := rego.parse_module("m.rego", ${JSON.stringify(source)})`, {
      ...options({}),
      strictBuiltinErrors: true,
    })[0]?.bindings.x as { package: { path: { value: string }[] }; rules: { head: unknown; body: unknown[] }[] };
    const ref = (...names: string[]) => ({
      type: 'ref',
      value: names.map((name, index) => ({ type: index === 0 ? 'var' : 'string', value: name })),
    });
    expect(module.package.path.map(({ value }) => value)).toEqual(['data', 'foo', 'bar']);
    expect(module.rules[0]).toEqual({
      head: { name: 'p', ref: [{ type: 'var', value: 'p' }], value: { type: 'boolean', value: true } },
      body: [{ index: 0, terms: [ref('eq'), ref('input', 'a'), { type: 'boolean', value: true }] }],
    });
    expect(module.rules[1]!.body[1]).toEqual({
      index: 1,
      negated: true,
      terms: [ref('equal'), { type: 'var', value: 'x' }, { type: 'number', value: 2 }],
    });
    expect(() =>
      evalQuery(policy, `x := rego.parse_module("m.rego", ${JSON.stringify('package p\np {')})`, {
        ...options({}),
        strictBuiltinErrors: true,
      }),
    ).toThrow('rego.parse_module: 1 error occurred: m.rego:2:4: rego_parse_error');
  });
});
