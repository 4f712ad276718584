// Uploaded manifests are read as Kubernetes reads YAML (go-yaml): what kubectl applies is accepted, what the
// API server refuses is refused. The one place the yaml library is stricter, a quoted scalar continued at its
// key's indentation, is the Gatekeeper library's httpsonly template, uploaded here as written.
import '../helpers/engines.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseKubernetesYaml } from '../../functions/admission/kubernetes/kubernetes-yaml.js';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import { celPolicy } from '../../functions/cel/policy.js';
import { CORPORA } from '../helpers/corpora.js';

const HTTPSONLY = join(CORPORA, 'gatekeeper-rego', 'library', 'general', 'httpsonly');
const read = (file: string) => readFileSync(join(HTTPSONLY, file), 'utf8');

/** The documents' values, or their errors' codes. */
const readAs = (text: string) =>
  parseKubernetesYaml(text).map((document) => (document.errors.length > 0 ? document.errors.map(({ code }) => code) : document.toJS()));

describe('YAML as Kubernetes reads it', () => {
  it("the Gatekeeper library's httpsonly template and its constraint, as written, are a valid bundle of the cel function", () => {
    const bundle = `${read('template.yaml')}\n---\n${read('samples/ingress-https-only/constraint.yaml')}`;
    const parsed = parseRulesDocument(celPolicy, bundle);
    expect(parsed.ok ? [] : parsed.errors).toEqual([]);
    const [template] = parseKubernetesYaml(read('template.yaml')).map((document) => document.toJS());
    expect(template.spec.crd.spec.validation.openAPIV3Schema.properties.tlsOptional.description).toBe(
      'When set to `true` the TLS {} is optional, defaults to false.',
    );
  });

  it.each([
    ['a double-quoted scalar continued at its key’s indentation', 'a:\n  b: "x\n  y"\n  c: 1\n', [{ a: { b: 'x y', c: 1 } }]],
    ['a single-quoted one, with an escaped quote', "a:\n  b: 'it''s\n  ok'\n", [{ a: { b: "it's ok" } }]],
    ['a sequence item', '- "a\n  b"\n- c\n', [['a b', 'c']]],
  ])('accepted, as go-yaml reads it: %s', (_case, text, expected) => {
    expect(readAs(text)).toEqual(expected);
  });

  it.each([
    ['a continuation indented less than its first line', 'a:\n  b: "x\n y"\n', 'MISSING_CHAR'],
    ['a quote never closed', 'a:\n  b: "x\n  y\n', 'MISSING_CHAR'],
    ['a duplicate key', 'a: 1\na: 2\n', 'DUPLICATE_KEY'],
    ['a tab as indentation', 'a:\n\tb: 1\n', 'TAB_AS_INDENT'],
  ])('refused, as the API server refuses it: %s', (_case, text, code) => {
    expect(readAs(text).flat()).toContain(code);
  });
});
