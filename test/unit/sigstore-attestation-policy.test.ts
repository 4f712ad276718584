// A ClusterImagePolicy's Rego policy on an attestation, as cosign's rego package evaluates it
// (ValidateJSONWithModuleInput, evaluateRegoEvalMapResult): Rego v0 as OPA reads it, `data.sigstore.isCompliant`
// over the statement, `true` or a set (or array) of `{result, error, warning}` results, a warning failing as
// policy-controller counts it, a result that does not read as one failing with cosign's message.
import { describe, expect, it } from 'vitest';
import { compileSources } from '../../functions/engines/rego/compile-sources.js';
import { attestationPolicyOutcome } from '../../functions/engines/rego/sigstore-target/attestation-policy.js';

const QUERY = "policy is not compliant for query 'isCompliant = data.sigstore.isCompliant'";
const statement = { predicateType: 'https://cosign.sigstore.dev/attestation/v1', predicate: { Data: 'built by ci' } };
const context = { now: new Date(), podTemplate: false };
const outcome = (rego: string, input: unknown = statement) =>
  attestationPolicyOutcome(
    compileSources([{ file: 'sigstore.rego', source: `package sigstore\n${rego}`, strictV0: true }]),
    'built',
    input,
    context,
  );
const failure = (reason: string) => ({ error: `failed evaluating rego policy for type built: ${reason}` });

describe('an attestation policy, as cosign evaluates it', () => {
  it('true complies; false, undefined and any other value do not', () => {
    expect(outcome('isCompliant { input.predicate.Data == "built by ci" }')).toBeUndefined();
    expect(outcome('default isCompliant = false\nisCompliant { input.predicate.Data == "other" }')).toEqual(failure(QUERY));
    expect(outcome('isCompliant { false }')).toEqual(failure(QUERY));
    expect(outcome('isCompliant = "yes"')).toEqual(failure(QUERY));
  });

  it('a set of results: the first that complies (in OPA order) decides, else the last error', () => {
    expect(outcome('isCompliant[r] { r := {"result": false, "error": "a"} }\nisCompliant[r] { r := {"result": true} }')).toBeUndefined();
    expect(
      outcome('isCompliant[r] { r := {"result": false, "error": "a"} }\nisCompliant[r] { r := {"result": false, "error": "b"} }'),
    ).toEqual(failure(`${QUERY} with errors: b`));
    expect(outcome('isCompliant[r] { false; r := 1 }')).toEqual(
      failure('policy is not compliant for query "isCompliant = data.sigstore.isCompliant"'),
    );
  });

  it('an array of results reads as a set does', () => {
    expect(outcome('isCompliant = [{"result": true}]')).toBeUndefined();
    expect(outcome('isCompliant = [{"result": false, "error": "no"}]')).toEqual(failure(`${QUERY} with errors: no`));
  });

  it('a compliant result with a warning fails with the warning, unwrapped, as policy-controller counts it', () => {
    expect(outcome('isCompliant[r] { r := {"result": true, "warning": "old builder"} }')).toEqual({ warning: 'warning: old builder' });
  });

  it('a result that does not read as {result bool, error string, warning string} fails', () => {
    expect(outcome('isCompliant[r] { r := {"result": true, "warning": 1} }')).toEqual({
      error: expect.stringMatching(/due to parsing errors/),
    });
    expect(outcome('isCompliant[r] { r := {"result": "true"} }')).toEqual({
      error: expect.stringMatching(/^failed evaluating rego policy for type built: .* due to parsing errors/),
    });
    expect(outcome('isCompliant[r] { r := 7 }')).toEqual(failure('unexpected result type number'));
  });

  it("an evaluation error is the policy's failure, with OPA's message", () => {
    expect(outcome('isCompliant = x { x := {"a": 1}[input.k] }\nisCompliant = false { true }', { k: 'a' })).toEqual({
      error: expect.stringMatching(/^failed evaluating rego policy for type built: .*eval_conflict_error/),
    });
  });

  it('Rego v0 as OPA reads it: if, contains, in and every are keywords only where imported', () => {
    expect(() => compileSources([{ file: 'sigstore.rego', source: 'package sigstore\nisCompliant if { true }', strictV0: true }])).toThrow(
      /rego_parse_error/,
    );
    expect(outcome('import future.keywords.if\nisCompliant if { true }')).toBeUndefined();
  });
});
