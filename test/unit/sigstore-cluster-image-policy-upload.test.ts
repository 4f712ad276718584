// A ClusterImagePolicy bundle checked at upload, without a registry: what policy-controller's validating
// webhook refuses, with its messages, and what does not run here, with the reason; nothing malformed is
// dropped in silence (a dropped attestation would make the authority a signature-only one).
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { refusalOf } from '../helpers/cel-verdict.js';

const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ type: 'spki', format: 'pem' }) as string;
const inline = JSON.stringify(key);

const policy = (name: string, authorities: string, spec = '') => `apiVersion: policy.sigstore.dev/v1alpha1
kind: ClusterImagePolicy
metadata: {name: ${name}}
spec:
  images: [{glob: "ghcr.io/**"}]${spec}
  authorities:${authorities}
`;

describe('ClusterImagePolicy at upload', () => {
  it("refuses what policy-controller's webhook refuses, with its messages", () => {
    const errors = refusalOf(
      policy(
        'bad',
        `
    - keyless: {url: https://fulcio.sigstore.dev}
    - keyless: {url: https://fulcio.sigstore.dev, identities: [{subject: a, subjectRegExp: b, issuer: c}]}
    - key: {data: x, secretRef: {name: y}}
    - key: {data: ${inline}, hashAlgorithm: md5}
    - {}
    - static: {action: maybe}
      ctlog: {url: https://rekor.sigstore.dev}
    - key: {data: ${inline}}
      attestations: [{name: a, predicateType: notsupported}, {name: b}]
    - key: {data: not-a-key}
    - keyless: {identities: [{issuer: a, subject: b}]}`,
        '\n  mode: garbage\n  match: [{resource: configmaps}]',
      ).replace('[{glob: "ghcr.io/**"}]', '[{glob: "["}, {glob: ""}]'),
    );
    for (const message of [
      'ClusterImagePolicy bad: invalid value: [: spec.images[0].glob: glob is invalid: invalid glob "["',
      'missing field(s): spec.images[1].glob',
      'invalid value: garbage: spec.mode: unsupported mode',
      'invalid value: configmaps: spec.match[0].resource: unsupported resource name',
      'missing field(s): spec.authorities[0].keyless.identities',
      'expected exactly one, got both: spec.authorities[1].keyless.identities[0].subject, spec.authorities[1].keyless.identities[0].subjectRegExp',
      'expected exactly one, got both: spec.authorities[2].key.data, spec.authorities[2].key.kms, spec.authorities[2].key.secretref',
      'invalid value: md5: spec.authorities[3].key.hashAlgorithm',
      'expected exactly one, got neither: spec.authorities[4].key, spec.authorities[4].keyless, spec.authorities[4].rfc3161timestamp, spec.authorities[4].static',
      'expected exactly one, got both: spec.authorities[5].static, spec.authorities[5].ctlog',
      'invalid value: maybe: spec.authorities[5].static.action: unsupported action',
      'invalid value: notsupported: spec.authorities[6].attestations.predicateType: unsupported predicate type',
      'missing field(s): spec.authorities[6].attestations.predicateType',
      'invalid value: not-a-key: spec.authorities[7].key.data',
      'expected exactly one, got neither: spec.authorities[8].keyless.ca-cert, spec.authorities[8].keyless.url',
    ])
      expect(errors).toContain(message);
  });

  it('refuses what does not run here, with the reason', () => {
    const errors = refusalOf(
      policy(
        'unread',
        `
    - key: {kms: "awskms:///alias/x"}
    - key: {data: ${inline}}
      signatureFormat: bundle
      rfc3161timestamp: {trustRootRef: tsa}
      source: [{oci: ghcr.io/sigs, tagPrefix: p, signaturePullSecrets: [{name: s}]}]
      attestations: [{name: b, predicateType: custom, policy: {type: cue, data: x}}, {name: c, predicateType: custom, policy: {type: rego, configMapRef: {name: m, key: k}}}]
    - keyless: {ca-cert: {data: x}, identities: [{issuer: a, subject: b}]}
    - keyless: {url: https://fulcio.sigstore.dev, identities: [{issuer: a, subject: b}]}
      ctlog: {}
    - key: {data: ${inline}}
      ctlog: {url: https://rekor.example.com}
    - keyless: {url: https://fulcio.sigstore.dev, trustRootRef: private, identities: [{issuer: a, subject: b}]}`,
        '\n  policy: {type: rego, data: "package sigstore\\nisCompliant = true", fetchConfigFile: true}',
      ),
    );
    for (const message of [
      'spec.authorities[0].key.kms: cannot run here',
      'spec.authorities[1].signatureFormat: cannot run here',
      'spec.authorities[1].rfc3161timestamp: cannot run here',
      'spec.authorities[1].source[0].tagPrefix: cannot run here',
      'spec.authorities[1].source[0].signaturePullSecrets: cannot run here',
      'spec.authorities[1].attestations.policy.type: cannot run here: CUE is not evaluated here',
      'spec.authorities[1].attestations.policy.configMapRef: cannot run here',
      'spec.authorities[2].keyless.ca-cert: cannot run here',
      'spec.authorities[3].ctlog: cannot run here',
      'spec.authorities[4].ctlog.url: cannot run here',
      'spec.authorities[5].keyless.trustRootRef: trustRootRef private not found',
      "spec.policy.fetchConfigFile: cannot run here: the image's config file is not fetched for the policy yet",
    ])
      expect(errors).toContain(message);
  });

  it('never drops a malformed entry in silence', () => {
    const errors = refusalOf(
      policy('malformed', `\n    - key: {data: ${inline}}\n      attestations: [42]\n      source: ["ghcr.io/sigs"]`),
    );
    expect(errors).toContain('spec.authorities[0].attestations[0]: expected an object with name and predicateType');
    expect(errors).toContain('spec.authorities[0].source[0]: expected an object with oci');
  });

  it("refuses a policy named as the webhook's own rules, and one with no authorities", () => {
    expect(refusalOf(policy('no-match.policy.sigstore.dev', '\n    - static: {action: pass}'))).toContain(
      "metadata.name: no-match.policy.sigstore.dev is the name of the webhook's own rule here",
    );
    expect(refusalOf(policy('empty', ' []'))).toContain('missing field(s): spec.authorities');
  });

  it('compiles attestation policies as cosign does, Rego v0 as OPA reads it, with the error where it is', () => {
    const withPolicy = (rego: string) =>
      policy(
        'attested',
        `\n    - key: {data: ${inline}}\n      attestations: [{name: built, predicateType: custom, policy: {type: rego, data: ${JSON.stringify(rego)}}}]`,
      );
    expect(refusalOf(withPolicy('package sigstore\nisCompliant {'))).toMatch(
      /ClusterImagePolicy attested: spec\.authorities\[0\]\.attestations\[0\]\.policy: sigstore\.rego:2:14: rego_parse_error/,
    );
    expect(refusalOf(withPolicy('package sigstore\nisCompliant if { true }'))).toMatch(/attestations\[0\]\.policy: .*rego_parse_error/);
    expect(refusalOf(withPolicy('package sigstore\nimport future.keywords.if\nisCompliant if { true }'))).toBeUndefined();
    expect(
      refusalOf(policy('levels', `\n    - key: {data: ${inline}}`, '\n  policy: {type: rego, data: "package sigstore\\nisCompliant {"}')),
    ).toMatch(/ClusterImagePolicy levels: spec\.policy: sigstore\.rego:2:14: rego_parse_error/);
    expect(
      refusalOf(
        policy(
          'flags',
          `\n    - key: {data: ${inline}}`,
          '\n  policy: {type: rego, data: "package sigstore\\nisCompliant = true", includeSpec: "true"}',
        ),
      ),
    ).toContain('spec.policy.includeSpec: expected true or false');
  });

  it('a TrustRoot or config-policy-controller with no ClusterImagePolicy is an error: nothing would read it', () => {
    expect(
      refusalOf(`apiVersion: policy.sigstore.dev/v1alpha1
kind: TrustRoot
metadata: {name: private}
spec: {remote: {root: x, mirror: "https://tuf.example"}}
`),
    ).toMatch(
      /TrustRoot private: spec.remote and spec.repository: cannot run here[\s\S]*TrustRoot private: no ClusterImagePolicy in the bundle/,
    );
  });
});
