import { describe, expect, it } from 'vitest';
import { parseRulesDocument } from '../../functions/admission/parse-rules-document.js';
import { trustedRegistryPolicy } from '../../functions/trusted-registry/policy.js';
import { readFileSync } from 'node:fs';

const parse = (text: string) => parseRulesDocument(trustedRegistryPolicy, text);

describe('rules documents', () => {
  it('the sample in policies/ is valid', () => {
    expect(parse(readFileSync('policies/trusted-registry.yaml', 'utf8')).ok).toBe(true);
  });

  it('applies defaults: failurePolicy Ignore, mode enforce', () => {
    const result = parse('rules: [{ name: a, parameters: { forbiddenTags: [latest] } }]');
    expect(result).toMatchObject({ ok: true, document: { failurePolicy: 'Ignore', rules: [{ mode: 'enforce' }] } });
  });

  it('JSON is accepted as YAML', () => {
    expect(parse('{"rules": [{"name": "a", "parameters": {"forbiddenTags": ["latest"]}}]}').ok).toBe(true);
  });

  it.each([
    ['wrong type', 'rules: [{ name: a, parameters: { allowedRegistries: docker.io } }]', 'rules[0].parameters.allowedRegistries: expected array, received string'],
    ['misspelt field', 'rules: [{ name: a, match: { excludeNamespaces: [x] }, parameters: { forbiddenTags: [x] } }]', 'rules[0].match: unknown field "excludeNamespaces"'],
    ['bad operation', 'rules: [{ name: a, match: { operations: [PATCH] }, parameters: { forbiddenTags: [x] } }]', 'rules[0].match.operations[0]:'],
    ['bad failure policy', 'failurePolicy: Maybe\nrules: []', 'failurePolicy:'],
    ['bad mode', 'rules: [{ name: a, mode: warn, parameters: { forbiddenTags: [x] } }]', 'rules[0].mode:'],
    ['duplicate rule names', 'rules: [{ name: a, parameters: { forbiddenTags: [x] } }, { name: a, parameters: { forbiddenTags: [y] } }]', 'rules[1].name: duplicate rule name "a"'],
    ['missing rules', 'failurePolicy: Fail', 'rules: expected array, received undefined'],
    ['not a mapping', '- a\n- b', 'expected object, received array'],
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
