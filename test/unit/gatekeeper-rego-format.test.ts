// Gatekeeper's Rego templates as the cel function reads and runs them: the framework's input and target,
// the webhook's wording, enforcement actions, code[] entries with a version, and what is refused at upload.
import '../helpers/engines.js';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { evaluateRules } from '../../functions/admission/decide/evaluate-rules.js';
import { parseRulesDocument } from '../../functions/admission/rules/parse-rules-document.js';
import { celPolicy } from '../../functions/cel/policy.js';
import type { Policy } from '../../functions/admission/policy.js';
import { admissionReviewFor, type ReviewOptions } from '../../infra/admission-event.js';
import { registrationsOf } from '../../functions/registration/webhook-registration.js';

interface TemplateOptions {
  rego?: string;
  libs?: string[];
  code?: Record<string, unknown>[];
}

function template({ rego, libs, code }: TemplateOptions) {
  return {
    apiVersion: 'templates.gatekeeper.sh/v1',
    kind: 'ConstraintTemplate',
    metadata: { name: 'k8sdemo' },
    spec: {
      crd: { spec: { names: { kind: 'K8sDemo' } } },
      targets: [{ target: 'admission.k8s.gatekeeper.sh', ...(rego ? { rego } : {}), ...(libs ? { libs } : {}), ...(code ? { code } : {}) }],
    },
  };
}

const constraint = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'constraints.gatekeeper.sh/v1beta1',
  kind: 'K8sDemo',
  metadata: { name },
  spec: { match: { kinds: [{ apiGroups: [''], kinds: ['Pod'] }] }, ...spec },
});

const bundle = (...documents: unknown[]) => documents.map((document) => stringify(document)).join('---\n');
const pod = (labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', labels },
  spec: { containers: [] },
});

async function verdictOf(text: string, object: unknown, options: ReviewOptions = {}) {
  const parsed = parseRulesDocument(celPolicy, text);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  return (await evaluateRules(celPolicy, parsed.document, admissionReviewFor(object, options).request as never)).verdict;
}

const refusalOf = (text: string) => {
  const parsed = parseRulesDocument(celPolicy, text);
  return parsed.ok ? undefined : parsed.errors.join('\n');
};

const LABELS = `package k8sdemo
violation[{"msg": msg, "details": {"missing": missing}}] {
  provided := {label | input.review.object.metadata.labels[label]}
  required := {label | label := input.parameters.labels[_]}
  missing := required - provided
  count(missing) > 0
  msg := sprintf("missing labels: %v", [missing])
}
violation[{"msg": "always"}] {
  input.parameters.always
}
violation[{"msg": "always", "details": {"other": true}}] {
  input.parameters.always
}`;

describe('Gatekeeper Rego templates: input, target and wording', () => {
  it('denies as the webhook words it: a line `[<constraint>] <msg>` per violation in the set’s order, identical messages once', async () => {
    const verdict = await verdictOf(
      bundle(template({ rego: LABELS }), constraint('must-have-owner', { parameters: { labels: ['owner', 'team'], always: true } })),
      pod({ team: 'a' }),
    );
    expect(verdict.allowed).toBe(false);
    expect(verdict.status?.message).toBe('[must-have-owner] missing labels: {"owner"}\n[must-have-owner] always');
  });

  it('several constraints of one template: each its own lines; a constraint without parameters reads {}', async () => {
    const text = bundle(
      template({ rego: LABELS }),
      constraint('owner', { parameters: { labels: ['owner'] } }),
      constraint('none'),
      constraint('warned', { enforcementAction: 'warn', parameters: { labels: ['app'] } }),
      constraint('audited', { enforcementAction: 'dryrun', parameters: { labels: ['tier'] } }),
    );
    const verdict = await verdictOf(text, pod());
    expect(verdict.status?.message).toBe('[owner] missing labels: {"owner"}');
    expect(verdict.warnings).toEqual(['[warned] missing labels: {"app"}']);
    expect(JSON.parse(verdict.auditAnnotations.validation_failure!)).toEqual([
      expect.objectContaining({ message: 'missing labels: {"tier"}', policy: 'audited' }),
    ]);
  });

  it('scoped enforcement: the actions of the webhook enforcement point, audit only without one', async () => {
    const scoped = (name: string, actions: { action: string; points: string[] }[]) =>
      constraint(name, {
        enforcementAction: 'scoped',
        scopedEnforcementActions: actions.map(({ action, points }) => ({
          action,
          enforcementPoints: points.map((point) => ({ name: point })),
        })),
        parameters: { labels: [name] },
      });
    const text = bundle(
      template({ rego: LABELS }),
      scoped('denied', [
        { action: 'deny', points: ['validation.gatekeeper.sh'] },
        { action: 'warn', points: ['audit.gatekeeper.sh'] },
      ]),
      scoped('everywhere', [{ action: 'warn', points: ['*'] }]),
      scoped('auditonly', [{ action: 'deny', points: ['audit.gatekeeper.sh'] }]),
    );
    const verdict = await verdictOf(text, pod());
    expect(verdict.status?.message).toBe('[denied] missing labels: {"denied"}');
    expect(verdict.warnings).toEqual(['[everywhere] missing labels: {"everywhere"}']);
    expect(JSON.parse(verdict.auditAnnotations.validation_failure!).map(({ policy }: { policy: string }) => policy)).toEqual(['auditonly']);
  });

  it('on DELETE, input.review.object is the old object, as Gatekeeper’s webhook sets it', async () => {
    const rego = `package k8sdemo
violation[{"msg": msg}] {
  msg := sprintf("%v %v", [input.review.operation, input.review.object.metadata.name])
}`;
    // Gatekeeper's webhook is registered for CREATE and UPDATE unless told otherwise (so are these rules):
    // the rule is asked directly, as a DELETE that reached it would be.
    const parsed = parseRulesDocument(celPolicy, bundle(template({ rego }), constraint('c')));
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    // The API server sends a DELETE with object null and the object deleted as oldObject.
    const request = admissionReviewFor({ ...pod(), metadata: { name: 'old' } }, { operation: 'DELETE' }).request as never;
    const findings = celPolicy.evaluate(request, parsed.document.rules[0]!.parameters, { now: new Date() });
    expect(findings).toEqual({ violations: ['DELETE old'] });
  });

  it('code[] with engine Rego and version v1, its libs imported as data.lib…, runs when there is no CEL', async () => {
    const rego = `package k8sdemo
import data.lib.names.bad_name
violation contains {"msg": msg} if {
  bad_name(input.review.object.metadata.name)
  msg := "bad name"
}`;
    const lib = `package lib.names
bad_name(name) if startswith(name, "bad")`;
    const text = bundle(template({ code: [{ engine: 'Rego', source: { rego, libs: [lib], version: 'v1' } }] }), constraint('names'));
    expect((await verdictOf(text, { ...pod(), metadata: { name: 'bad-pod' } })).status?.message).toBe('[names] bad name');
    expect((await verdictOf(text, pod())).allowed).toBe(true);
  });

  it('a template with CEL and Rego runs its CEL, as Gatekeeper does by default', async () => {
    const cel = { engine: 'K8sNativeValidation', source: { validations: [{ expression: 'false', message: 'from CEL' }] } };
    const rego = { engine: 'Rego', source: { rego: 'package k8sdemo\nviolation[{"msg": "from Rego"}] { true }' } };
    const verdict = await verdictOf(bundle(template({ code: [cel, rego] }), constraint('both')), pod());
    expect(verdict.status?.message).toBe('[both] from CEL');
  });
});

describe('Gatekeeper Rego templates: registration', () => {
  it('a webhook per constraint, for the kinds and namespaces its match names and no others (no pod templates)', () => {
    const text = bundle(
      template({ rego: LABELS }),
      constraint('pods-in-prod', { match: { kinds: [{ apiGroups: [''], kinds: ['Pod'] }], namespaces: ['prod'] } }),
    );
    const parsed = parseRulesDocument(celPolicy, text);
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    const derived = registrationsOf(celPolicy as unknown as Policy<never>, parsed.document);
    if (!derived.ok) throw new Error(derived.errors.join('\n'));
    expect(derived.registrations.map(({ name, path, failurePolicy, rules }) => ({ name, path, failurePolicy, rules }))).toEqual([
      {
        name: 'pods-in-prod.cel.portcullis.io',
        path: '/validate/cel/pods-in-prod',
        failurePolicy: 'Ignore',
        rules: [expect.objectContaining({ apiGroups: [''], resources: ['pods'], operations: ['CREATE', 'UPDATE'] })],
      },
    ]);
  });
});

describe('Gatekeeper Rego templates: refused at upload, saying why and where', () => {
  it.each([
    [
      'a compile error, with the file, row and column',
      'package k8sdemo\nviolation[{"msg": msg}] {\n  x := 1\n}',
      /ConstraintTemplate k8sdemo: spec\.targets\[0\]\.rego:2:1: rego_unsafe_var_error: var msg is unsafe/,
    ],
    ['a parse error', 'package k8sdemo\nviolation[{"msg": msg}] {\n  x := := 1\n}', /spec\.targets\[0\]\.rego:3:8: rego_parse_error: /],
    ['an unknown function', 'package k8sdemo\nviolation[{"msg": "m"}] { nope(1) }', /rego_type_error: undefined function nope/],
    [
      'an OPA built-in not implemented here',
      'package k8sdemo\nviolation[{"msg": "m"}] { cast_array(input.review.object.spec.containers) }',
      /cast_array is an OPA built-in that Portcullis does not implement/,
    ],
    [
      'http.send',
      'package k8sdemo\nviolation[{"msg": "m"}] { http.send({"url": "http://x"}) }',
      /http\.send reaches outside the evaluation.*\(an HTTP request\): refused/,
    ],
    [
      'external_data',
      'package k8sdemo\nviolation[{"msg": "m"}] { external_data({"provider": "p", "keys": []}) }',
      /external_data reaches outside .*external data providers; to verify image signatures as Ratify does, write a Kyverno verifyImages rule, an ImageValidatingPolicy or a Sigstore ClusterImagePolicy/,
    ],
    [
      'data.inventory',
      'package k8sdemo\nviolation[{"msg": "m"}] { data.inventory.namespace[_][_]["Service"][_] }',
      /reads data\.inventory, which nothing here provides: .*name the kinds it reads in the template's metadata\.gatekeeper\.sh\/requires-sync-data annotation/,
    ],
    ['no violation rule', 'package k8sdemo\ndeny[{"msg": "m"}] { true }', /no rule defines data\.k8sdemo\.violation/],
    [
      'a lib outside package lib',
      'package k8sdemo\nviolation[{"msg": "m"}] { true }',
      /libs\[0\]: a lib's package must be lib or begin with lib\./,
      ['package util\nx := 1'],
    ],
  ])('%s', (_name, rego, reason, libs?: string[]) => {
    expect(refusalOf(bundle(template({ rego, ...(libs ? { libs } : {}) }), constraint('c')))).toMatch(reason);
  });

  it("a referential template's requires-sync-data names what the snapshot must hold; one that is not JSON is refused", () => {
    const referential = template({ rego: 'package k8sdemo\nviolation[{"msg": "m"}] { data.inventory.namespace[_][_]["Service"][_] }' });
    const annotated = (text: string) => ({
      ...referential,
      metadata: { ...referential.metadata, annotations: { 'metadata.gatekeeper.sh/requires-sync-data': text } },
    });
    const parsed = parseRulesDocument(
      celPolicy,
      bundle(annotated('"[[{"groups": ["", "apps"], "versions": ["v1"], "kinds": ["Service"]}]]"'), constraint('c')),
    );
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    expect(celPolicy.clusterReads!(parsed.document.rules[0]!.parameters)).toEqual([
      { apiVersion: 'v1', resource: 'services' },
      { apiVersion: 'apps/v1', resource: 'services' },
    ]);
    expect(refusalOf(bundle(annotated('[{"kinds": "Service"}]'), constraint('c')))).toMatch(
      /metadata\.annotations\["metadata\.gatekeeper\.sh\/requires-sync-data"\]: expected JSON, a list of lists of \{groups, versions, kinds\}/,
    );
  });

  it('a target other than the admission target', () => {
    const other = template({ rego: 'package k8sdemo\nviolation[{"msg": "m"}] { true }' });
    other.spec.targets[0]!.target = 'audit.example.com';
    expect(refusalOf(bundle(other, constraint('c')))).toMatch(
      /spec\.targets\[0\]\.target audit\.example\.com is not Gatekeeper's admission target/,
    );
  });
});

describe("Gatekeeper's sync Config in the bundle", () => {
  it('syncs its kinds into data.inventory for a referential template without the annotation', () => {
    const referential = template({ rego: 'package k8sdemo\nviolation[{"msg": "m"}] { data.inventory.namespace[_][_]["Ingress"][_] }' });
    const config = {
      apiVersion: 'config.gatekeeper.sh/v1alpha1',
      kind: 'Config',
      metadata: { name: 'config', namespace: 'gatekeeper-system' },
      spec: { sync: { syncOnly: [{ group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' }] } },
    };
    const parsed = parseRulesDocument(celPolicy, bundle(referential, constraint('c'), config));
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    expect(celPolicy.clusterReads!(parsed.document.rules[0]!.parameters)).toEqual([
      { apiVersion: 'networking.k8s.io/v1', resource: 'ingresses' },
    ]);
    const broken = { ...config, spec: { sync: { syncOnly: [{ version: 'v1' }] } } };
    expect(refusalOf(bundle(referential, constraint('c'), broken))).toMatch(
      /Config config: spec\.sync\.syncOnly\[0\]: group, version and kind are required/,
    );
  });
});
