import { describe, expect, it } from 'vitest';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import { readRulesData, validateRulesDataInSlices } from '../../functions/admission/rules/parse-rules-version.js';
import { duplicateJsonKey } from '../../functions/admission/rules/json-duplicate-key.js';
import { statedFailurePolicy } from '../../functions/admission/rules/rules-document-text.js';
import { DEFAULT_RULES_MAX_BYTES, type RawRules } from '../../functions/admission/rules/rules-source.js';
import type { ParsedRules } from '../../functions/admission/rules/validate-rules-data.js';
import type { Policy } from '../../functions/admission/policy.js';
import { trustedRegistryPolicy } from '../../functions/trusted-registry/policy.js';
import { celPolicy } from '../../functions/cel/policy.js';
import { policyRegistry } from '../../functions/registry.js';
import { readFileSync } from 'node:fs';

const parse = (text: string) => parseRulesDocument(trustedRegistryPolicy, text);

describe('rules documents', () => {
  // The samples are for people to edit: the tests never judge fixtures by them, only that they are valid.
  it.each(policyRegistry.map((policy) => [policy.name, policy] as const))('the sample policies/%s.yaml is valid', (name, policy) => {
    expect(parseRulesDocument(policy, readFileSync(`policies/${name}.yaml`, 'utf8'))).toMatchObject({ ok: true });
  });

  it('applies defaults: failurePolicy Ignore, mode enforce', () => {
    const result = parse('rules: [{ name: a, parameters: { forbiddenTags: [latest] } }]');
    expect(result).toMatchObject({ ok: true, document: { failurePolicy: 'Ignore', rules: [{ mode: 'enforce' }] } });
  });

  it('JSON is accepted as YAML', () => {
    expect(parse('{"rules": [{"name": "a", "parameters": {"forbiddenTags": ["latest"]}}]}').ok).toBe(true);
  });

  it.each([
    [
      'wrong type',
      'rules: [{ name: a, parameters: { allowedRegistries: docker.io } }]',
      'rules[0].parameters.allowedRegistries: expected array, received string',
    ],
    [
      'misspelt field',
      'rules: [{ name: a, match: { excludeNamespaces: [x] }, parameters: { forbiddenTags: [x] } }]',
      'rules[0].match: unknown field "excludeNamespaces"',
    ],
    [
      'every misspelt field at once',
      'rules: [{ name: a, match: { excludeNamespaces: [x], kind: [Pod] }, parameters: { forbiddenTags: [x] } }]',
      'rules[0].match: unknown field "excludeNamespaces"\nrules[0].match: unknown field "kind"',
    ],
    [
      'a list where a mapping belongs (never an empty match)',
      'rules: [{ name: a, match: [], parameters: { forbiddenTags: [x] } }]',
      'rules[0].match: expected object, received array',
    ],
    ['a list as parameters', 'rules: [{ name: a, parameters: [] }]', 'rules[0].parameters: expected object, received array'],
    [
      'an empty registry',
      'rules: [{ name: a, parameters: { allowedRegistries: [""] } }]',
      'rules[0].parameters.allowedRegistries[0]: expected at least 1 character',
    ],
    [
      'bad operation',
      'rules: [{ name: a, match: { operations: [PATCH] }, parameters: { forbiddenTags: [x] } }]',
      'rules[0].match.operations[0]:',
    ],
    ['bad failure policy', 'failurePolicy: Maybe\nrules: []', 'failurePolicy:'],
    ['bad mode', 'rules: [{ name: a, mode: warn, parameters: { forbiddenTags: [x] } }]', 'rules[0].mode:'],
    [
      'duplicate rule names',
      'rules: [{ name: a, parameters: { forbiddenTags: [x] } }, { name: a, parameters: { forbiddenTags: [y] } }]',
      'rules[1].name: duplicate rule name "a"',
    ],
    ['missing rules', 'failurePolicy: Fail', 'rules: required field is missing'],
    ['not a mapping', '- a\n- b', 'takes one rules document (failurePolicy and rules)'],
    ['YAML syntax', 'rules: [a, b', 'YAML:'],
    ['duplicate YAML keys', 'rules: []\nrules: []', 'YAML:'],
  ])('%s: names the field', (_case, text, expected) => {
    const result = parse(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.join('\n')).toContain(expected);
  });

  it('reports every bad field, not just the first', () => {
    const result = parse('rules: [{ name: "", parameters: { allowedRegistries: 1, forbiddenTags: 2 } }]');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.length).toBeGreaterThanOrEqual(3);
  });

  it('keeps the failurePolicy an otherwise invalid document states', () => {
    expect(parse('failurePolicy: Fail\nrules: 3')).toMatchObject({ ok: false, failurePolicy: 'Fail' });
  });
});

describe('statedFailurePolicy: what a document too broken to parse asks for', () => {
  it.each([
    ['failurePolicy: Fail\nrules: [', 'Fail'],
    ['# comment\nfailurePolicy: "Ignore"  # why\n', 'Ignore'],
    ["failurePolicy: 'Fail'\n", 'Fail'],
    ['{ "failurePolicy": "Fail", "rules": [', 'Fail'],
    ['rules:\n  failurePolicy: Fail\n', undefined], // not at the top level
    ['failurePolicy: Sometimes\n', undefined],
  ])('%j → %s', (text, expected) => {
    expect(statedFailurePolicy(text)).toBe(expected);
  });
});

/** A new version read and validated, as the function's loader does (fleet/cluster-rules-loader.ts). */
async function parseRulesVersion<P>(policy: Policy<P>, raw: RawRules, maxBytes: number): Promise<ParsedRules<P>> {
  const data = await readRulesData(policy, raw, maxBytes);
  return data.ok ? validateRulesDataInSlices(policy, data.data) : data;
}

describe('parseRulesVersion: how the function parses a new version', () => {
  it('parses a large document in a worker thread (from source too) with the same result as the CLI', async () => {
    const registries = Array.from({ length: 3000 }, (_, i) => `        - registry${i}.example.com\n`).join('');
    const text = `rules:\n  - name: many\n    parameters:\n      allowedRegistries:\n${registries}`;
    expect(text.length).toBeGreaterThan(64 * 1024); // over the off-thread threshold
    const inWorker = await parseRulesVersion(trustedRegistryPolicy, { version: 'v1', bytes: Buffer.from(text) }, DEFAULT_RULES_MAX_BYTES);
    expect(inWorker).toEqual(parse(text));
    expect(inWorker.ok && inWorker.document.rules[0]!.parameters.allowedRegistries).toHaveLength(3000);
  });

  it('a large invalid document: every error, from the worker', async () => {
    const text = `failurePolicy: Fail\nrules: [{ name: a, parameters: { allowedRegistries: docker.io } }]\n# ${'x'.repeat(70_000)}\n`;
    const result = await parseRulesVersion(trustedRegistryPolicy, { version: 'v1', bytes: Buffer.from(text) }, DEFAULT_RULES_MAX_BYTES);
    expect(result).toEqual({
      ok: false,
      errors: ['rules[0].parameters.allowedRegistries: expected array, received string'],
      failurePolicy: 'Fail',
    });
  });

  it('a refused version keeps the failure policy its first bytes state', async () => {
    const result = await parseRulesVersion(
      trustedRegistryPolicy,
      { version: 'v1', refused: 'too large', head: Buffer.from('failurePolicy: Fail\nrules:') },
      10,
    );
    expect(result).toEqual({ ok: false, errors: ['too large'], failurePolicy: 'Fail' });
  });
});

describe('JSON documents (what policy push stores)', () => {
  const manifest = (name: string) => ({
    apiVersion: 'policies.kyverno.io/v1',
    kind: 'ValidatingPolicy',
    metadata: { name },
    spec: {
      validationActions: ['Deny'],
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
      validations: [{ expression: 'has(object.spec)' }],
    },
  });

  it('parses to the same rules as the YAML it was made from, on the function and in the CLI', async () => {
    const manifests = [manifest('a'), manifest('b')];
    const yamlText = manifests.map((m) => JSON.stringify(m)).join('\n---\n');
    const jsonText = JSON.stringify(manifests);
    const fromYaml = parseRulesDocument(celPolicy, yamlText);
    const fromJson = parseRulesDocument(celPolicy, jsonText);
    const onTheFunction = await parseRulesVersion(celPolicy, { version: 'v', bytes: Buffer.from(jsonText) }, DEFAULT_RULES_MAX_BYTES);
    expect(fromYaml.ok && fromJson.ok && onTheFunction.ok).toBe(true);
    const names = (result: typeof fromJson) => (result.ok ? result.document.rules.map((rule) => rule.name) : []);
    expect(names(fromJson)).toEqual(['a', 'b']);
    expect(names(onTheFunction)).toEqual(names(fromYaml));
  });

  it('a native document stored as JSON means what it means as YAML: a duplicate key is refused, on the function too', async () => {
    const text = '{"rules": [], "rules": [{"name": "a", "parameters": {"forbiddenTags": ["latest"]}}]}';
    for (const result of [
      parseRulesDocument(trustedRegistryPolicy, text),
      await parseRulesVersion(trustedRegistryPolicy, { version: 'v', bytes: Buffer.from(text) }, DEFAULT_RULES_MAX_BYTES),
    ]) {
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.errors.join('\n')).toMatch(/YAML: .*(duplicate|unique)/i);
    }
  });

  it('a YAML flow mapping that only looks like JSON is read as YAML', async () => {
    const result = await parseRulesVersion(
      trustedRegistryPolicy,
      { version: 'v', bytes: Buffer.from('{rules: [{name: a, parameters: {forbiddenTags: [latest]}}]}') },
      DEFAULT_RULES_MAX_BYTES,
    );
    expect(result).toMatchObject({ ok: true, document: { rules: [{ name: 'a' }] } });
  });
});

describe('duplicateJsonKey: a key twice in one object, which JSON.parse would let win silently', () => {
  it.each([
    ['none', '{"a": 1, "b": {"a": 2}, "c": [{"a": 1}, {"a": 2}]}', undefined],
    ['at the top', '{"a": 1, "a": 2}', 'a'],
    ['in a nested object', '{"rules": [{"name": "x", "name": "y"}]}', 'name'],
    ['after a nested container closes', '{"a": {"b": [1, {"c": 1}]}, "a": 2}', 'a'],
    ['spelt with an escape', '{"a": 1, "\\u0061": 2}', 'a'],
    ['quotes, colons and braces inside strings are not keys', '{"a": "\\"b\\": {", "b": "}, \\"a\\": ["}', undefined],
    ['a string value equal to a key', '{"a": "a", "b": "a"}', undefined],
  ])('%s', (_case, text, expected) => {
    JSON.parse(text); // the function only asks about text JSON.parse accepted
    expect(duplicateJsonKey(text)).toBe(expected);
  });
});
