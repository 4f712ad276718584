// Kyverno's condition operators and variables, on cases from Kyverno's own tests
// (pkg/engine/variables/operator: anyin_test.go, allnotin_test.go, anynotin_test.go, equal.go and
// numeric.go's comparisons) and its documentation's variable forms.
import { beforeAll, describe, expect, it } from 'vitest';
import { CostBudget, CostLimitExceededError } from '../../functions/engines/runtime/cost-budget.js';
import { loadRegexEngine } from '../../functions/engines/runtime/re2.js';
import { evaluateCondition, evaluateConditions } from '../../functions/engines/kyverno/variables/conditions.js';
import { searchJmesPath } from '../../functions/engines/kyverno/jmespath/jmespath.js';
import { expressionProblems } from '../../functions/engines/kyverno/policy/expression-problems.js';
import { substituteVariables } from '../../functions/engines/kyverno/variables/variables.js';

beforeAll(loadRegexEngine);

const scope = () => ({ budget: new CostBudget(), now: new Date('2026-11-25T10:30:00Z') });

describe('AnyIn (anyin_test.go)', () => {
  it.each([
    ['kyverno', 'kyverno', true],
    ['kube-system', ['default', 'kube-*'], true],
    ['kyverno', 'default', false],
    [64, '64', true],
    [1, [1, 2, 3], true],
    [64, 'default', false],
    [3.14, '3.14', true],
    [2.2, [1.1, 2.2, 3.3], true],
    [3.14, 'default', false],
    [true, 'true', true],
    [['kube-system', 'kube-public'], 'kube-*', true],
    [['kube-system', 'default'], 'kube-system', true],
    [['default', 'kyverno'], 'kube-*', false],
    [['default', 'kyverno'], ['kube-*', 'ky*'], true],
    [['default', 'kyverno'], ['kube-*', 'kube-system'], false],
    [[], ['default', 'kyverno'], false],
    ['', ['default', 'kyverno'], false],
    [{ foo: 'bar' }, 'test', false],
    ['5', '1-10', true],
    ['0', '1-10', false],
    [['0', '5'], '1-10', true],
    [['0', '20'], '1-10', false],
    ['apple', '["apple", "banana"]', true],
    ['cherry', '["apple", "banana"]', false],
    [['apple', 'cherry'], '["apple", "banana"]', true],
    [['cherry', 'date'], '["apple", "banana"]', false],
  ])('%j AnyIn %j is %s', (key, value, expected) => {
    expect(evaluateCondition('AnyIn', key, value)).toBe(expected);
  });
});

describe('AllNotIn (allnotin_test.go)', () => {
  it.each([
    ['kyverno', 'kyverno', false],
    ['kube-system', ['default', 'kube-*'], false],
    ['kyverno', 'default', true],
    [64, '64', false],
    [64, 'default', true],
    [['kube-system', 'kube-public'], 'kube-*', false],
    [['kube-system', 'default'], 'kube-system', false],
    [['default', 'kyverno'], 'kube-*', true],
    [['default', 'kyverno'], ['kube-*', 'kube-system'], true],
    [['default', 'kyverno'], ['kube-*', 'ky*'], false],
  ])('%j AllNotIn %j is %s', (key, value, expected) => {
    expect(evaluateCondition('AllNotIn', key, value)).toBe(expected);
  });
});

describe('AnyNotIn (anynotin_test.go)', () => {
  it.each([
    ['kyverno', 'kyverno', false],
    ['kube-system', ['default', 'kube-*'], false],
    ['kyverno', 'default', true],
    [64, '64', false],
    [1, [1, 2, 3], false],
    [64, 'default', true],
    [3.14, '3.14', false],
    [2.2, [1.1, 2.2, 3.3], false],
    [3.14, 'default', true],
    [true, true, false],
    [['kube-system', 'kube-public'], 'kube-*', false],
    [['kube-system', 'default'], 'kube-system', true],
    [['default', 'kyverno'], 'kube-*', true],
    [[1, 2, 3], 2, true],
    [[1, 2, 3], 4, true],
    [[1.1, 2.2, 3.3], 1.1, true],
    [[1.1, 2.2, 3.3], 4.4, true],
    [[true, false], true, true],
    [[true], false, true],
    [['default', 'kyverno'], ['kube-*', 'kube-system'], true],
    [['default', 'kyverno'], ['kube-*', 'ky*'], true],
    [[], ['default', 'kyverno'], false],
    ['', ['default', 'kyverno'], true],
  ])('%j AnyNotIn %j is %s', (key, value, expected) => {
    expect(evaluateCondition('AnyNotIn', key, value)).toBe(expected);
  });
});

describe('Equals and the numeric operators (equal.go, numeric.go)', () => {
  it.each([
    ['Equals', 'nginx:latest', '*:latest', true],
    ['Equals', '1Gi', '1024Mi', true],
    ['Equals', '1h', '60m', true],
    ['Equals', 3, '3', true],
    ['Equals', 3, 3.5, false],
    ['Equals', true, 'true', false],
    ['Equals', { a: 1 }, { a: 1 }, true],
    ['NotEquals', 'a', 'b', true],
    ['GreaterThan', '2Gi', '1Gi', true],
    ['GreaterThan', 3, '2.5', true],
    ['LessThanOrEquals', '1.2.3', '1.10.0', true],
    // Versions as numeric.go compares them (blang's Parse and Compare; numeric_test.go's semver cases).
    ['GreaterThan', '1.2.0', '1.1.0', true],
    ['LessThan', '2.0.0', '1.9.0', false],
    ['GreaterThanOrEquals', '1.5.0', '1.5.0', true],
    ['LessThan', '1.0.0-alpha', '1.0.0', true],
    ['GreaterThan', 'v1.2.0', '1.1.0', false],
    ['GreaterThanOrEquals', '90s', '1m', true],
    ['LessThan', 'abc', 1, false],
    ['DurationGreaterThan', '2h', '90m', true],
    ['DurationLessThanOrEquals', 3600, '1h', true],
  ])('%s %j %j is %s', (operator, key, value, expected) => {
    expect(evaluateCondition(operator, key, value)).toBe(expected);
  });

  it('any holds when one condition does, all when every one does, both when both are given', () => {
    const context = { data: { request: { operation: 'CREATE' } }, scope: scope() };
    const yes = { key: '{{ request.operation }}', operator: 'Equals', value: 'CREATE', message: 'created' };
    const no = { key: '{{ request.operation }}', operator: 'Equals', value: 'DELETE', message: 'deleted' };
    expect(evaluateConditions({ any: [no, yes] }, context)).toEqual({ holds: true, messages: ['created'] });
    expect(evaluateConditions({ all: [yes, no] }, context).holds).toBe(false);
    expect(evaluateConditions({ any: [yes], all: [no] }, context).holds).toBe(false);
    expect(evaluateConditions([yes], context).holds).toBe(true);
  });

  it("an expression that fails in a condition is the rule's error, as in Kyverno since its preconditions resolver stopped reading it as ''", () => {
    const context = { data: { request: { object: {} } }, scope: scope() };
    expect(() => evaluateConditions([{ key: "{{ to_boolean('maybe') }}", operator: 'Equals', value: null }], context)).toThrow();
    expect(() => evaluateConditions([{ key: '{{ request.object.spec.duration }}', operator: 'NotEquals', value: '' }], context)).toThrow(
      'Unknown key "spec" in path',
    );
  });

  it("a strict search that failed leaves the next search of the expression JMESPath's own (null for a missing key)", () => {
    for (const expression of ['a.b', 'a.b[0].c']) {
      expect(() => searchJmesPath(expression, { a: {} }, scope(), 'error')).toThrow('Unknown key "b" in path');
      expect(searchJmesPath(expression, { a: {} }, scope())).toBeNull();
    }
  });

  it('a condition never reached is never resolved: `all` stops at the first that fails, `any` at the first that holds', () => {
    const context = { data: { request: { object: { kind: 'Pod' } } }, scope: scope() };
    const missing = { key: '{{ request.object.spec.duration }}', operator: 'Equals' as const, value: '' };
    const isJob = { key: '{{ request.object.kind }}', operator: 'Equals' as const, value: 'Job' };
    const isPod = { key: '{{ request.object.kind }}', operator: 'Equals' as const, value: 'Pod' };
    expect(evaluateConditions({ all: [isJob, missing] }, context).holds).toBe(false);
    expect(evaluateConditions({ any: [isPod, missing] }, context).holds).toBe(true);
    // As Kyverno: `all` is judged whatever `any` gave, so its error is the rule's even when `any` failed.
    expect(() => evaluateConditions({ any: [isJob], all: [missing] }, context)).toThrow('Unknown key "spec" in path');
    expect(evaluateConditions({ any: [], all: [isPod] }, context).holds).toBe(false);
  });

  it('a missing key is null where JMESPath absorbs it (`||`, a function argument, a comparison, a filter), and a key holding null is null', () => {
    const context = { data: { request: { object: { metadata: { labels: null }, items: [{ a: 1 }, {}] } } }, scope: scope() };
    const value = (expression: string) => substituteVariables(`{{ ${expression} }}`, context);
    expect(value("request.object.spec.duration || 'none'")).toBe('none');
    expect(value('not_null(request.object.spec.duration, `5`)')).toBe(5);
    expect(value("request.object.spec.duration == 'x'")).toBe(false);
    expect(value('request.object.items[?a == `1`] | length(@)')).toBe(1);
    expect(value('request.object.metadata.labels.app')).toBeNull();
    expect(() => value('request.object.items[0].b.c')).toThrow('Unknown key "b" in path');
  });
});

describe('variables', () => {
  const data = {
    request: { operation: 'DELETE', object: null, oldObject: { metadata: { name: 'old', labels: { 'corp.org/version': 'v1.2.3' } } } },
  };

  it('a whole-string variable keeps its type; inside text it is text', () => {
    const context = { data: { request: { object: { spec: { replicas: 3 } } } }, scope: scope() };
    expect(substituteVariables('{{ request.object.spec.replicas }}', context)).toBe(3);
    expect(substituteVariables('replicas: {{ request.object.spec.replicas }}', context)).toBe('replicas: 3');
    expect(substituteVariables('{{ request.object.spec }}', context)).toEqual({ replicas: 3 });
    expect(substituteVariables('kept \\{{ request.object }}', context)).toBe('kept {{ request.object }}');
  });

  it("a foreach element's field inside a filter's literal is compared as data (the upload check accepts it too)", () => {
    const object = { spec: { volumes: [{ name: 'data' }], mounts: [{ name: 'data' }, { name: 'logs' }] } };
    const context = { data: { request: { object }, element: { name: 'logs' } }, scope: scope() };
    expect(substituteVariables("{{ request.object.spec.mounts[?name == '{{element.name}}'] | length(@) }}", context)).toBe(1);
  });

  it('on DELETE, request.object reads request.oldObject', () => {
    expect(substituteVariables('{{ request.object.metadata.name }}', { data, scope: scope(), deleting: true })).toBe('old');
  });

  it('a nested variable written in quotes enters the outer expression as data, never as expression text', () => {
    const context = { data, scope: scope(), deleting: true };
    const pattern = "{{ regex_match('^v[0-9].[0-9].[0-9]$', '{{ request.object.metadata.labels.\"corp.org/version\" || 'empty' }}') }}";
    expect(substituteVariables(pattern, context)).toBe(true);
    const injected = { request: { object: { metadata: { labels: { v: "x') || `true` || ('" } } } } };
    expect(
      substituteVariables("{{ regex_match('^v', '{{ request.object.metadata.labels.v }}') }}", { data: injected, scope: scope() }),
    ).toBe(false);
  });

  it("Kyverno's functions: strings, arithmetic over quantities and durations, items, time on the request's clock", () => {
    const search = (expression: string, input: unknown = {}) => searchJmesPath(expression, input, scope());
    expect(search("split('a,b', ',')")).toEqual(['a', 'b']);
    expect(search("replace('aaa', 'a', 'b', `2`)")).toBe('bba');
    expect(search("divide('300Mi', '100Mi')")).toBe(3);
    expect(search("add('1Gi', '512Mi')")).toBe('1610612736');
    expect(search("subtract('2h', '30m')")).toBe('1h30m0s');
    expect(search("items(@, 'key', 'value')", { b: 2, a: 1 })).toEqual([
      { key: 'a', value: 1 },
      { key: 'b', value: 2 },
    ]);
    expect(search('time_now_utc()')).toBe('2026-11-25T10:30:00Z');
    // Go's replacement template: ${2} and $1.
    const goTemplate = ['$', '{2}-$1'].join('');
    expect(search(`regex_replace_all('([a-z]+)-(\\\\d+)', 'app-12', '${goTemplate}')`)).toBe('12-app');
    expect(search("label_match({app: 'a'}, {app: 'a', tier: 'b'})")).toBe(true);
  });

  it('a regular expression with catastrophic backtracking elsewhere runs in linear time on RE2', () => {
    const started = performance.now();
    expect(searchJmesPath(`regex_match('^(a+)+$', '${'a'.repeat(5000)}b')`, {}, scope())).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('an expression over a large list stops on its cost budget', () => {
    const list = Array.from({ length: 5000 }, (_, index) => ({ name: `c${index}` }));
    expect(() => searchJmesPath('a[].name[].length(@)', { a: list }, { budget: new CostBudget(1000), now: new Date() })).toThrow(
      CostLimitExceededError,
    );
  });

  it('an unknown or refused function is found when the rules are read', () => {
    const rule = (key: string) => ({ validate: { deny: { conditions: { any: [{ key, operator: 'Equals', value: true }] } } } });
    expect(expressionProblems(rule("{{ random('[a-z]{5}') }}"))).toEqual([expect.stringMatching(/random\(\) .*could not be reproduced/)]);
    expect(expressionProblems(rule('{{ no_such_function(`1`) }}'))).toEqual([
      expect.stringMatching(/no_such_function\(\) .* is not a JMESPath or Kyverno function/),
    ]);
    expect(expressionProblems(rule('{{ request.object.[ }}'))).toEqual([expect.stringMatching(/does not parse/)]);
    expect(expressionProblems(rule("{{ to_upper('a') }}"))).toEqual([]);
    // A variable inside a literal parses once it is substituted (Kyverno substitutes at admission; here a
    // quoted one enters as a JSON literal), so it is not refused; what never parses still is.
    const mounts = "{{ request.object.spec.containers[].volumeMounts[?name == '{{element.name}}'] | length(@) }}";
    expect(expressionProblems(rule(mounts))).toEqual([]);
    expect(expressionProblems(rule("{{ items[?name == 'pre-{{element.name}}'] }}"))).toEqual([]);
    expect(expressionProblems(rule('{{ items[?size == `{{element.size}}`] }}'))).toEqual([]);
    expect(expressionProblems(rule("{{ items[?name == '{{element.name}}' }}"))).toEqual([expect.stringMatching(/does not parse/)]);
    expect(expressionProblems(rule("{{ items[?name == '{{element.name}}] }}"))).toEqual([expect.stringMatching(/does not parse/)]);
    // Nested 20,000 deep: refused with the reason when the rules are read, never a crash at admission.
    expect(expressionProblems(rule(`{{ ${'('.repeat(20_000)}a${')'.repeat(20_000)} }}`))).toEqual([
      expect.stringMatching(/does not parse/),
    ]);
  });
});
