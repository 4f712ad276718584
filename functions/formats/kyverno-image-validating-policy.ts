// Kyverno's ImageValidatingPolicy (policies.kyverno.io v1alpha1, v1beta1, v1: one spec), with the
// PolicyExceptions (policies.kyverno.io) that name it: one cel rule whose `imageValidation` parameter holds
// the policy's fields (engines/cel/image-validation), and one mutations rule (`imageDigests`) for its
// mutateDigest, pinning tags to digests, as Kyverno's validating and mutating webhooks split it. As Kyverno:
// validationActions [Deny], failurePolicy Fail and for matchConditions only (an evaluation's error denies),
// autogen for Pod policies. A policy switched off for admission makes no rule; one in JSON mode judges
// payloads, not admission requests, and is refused, as are registry credentials from Secrets.
import { celEngine } from '../engines/cel/index.js';
import { celParameters, matchFromConstraints, withPodControllers } from './cel-rule-parts.js';
import { type FormatResult, groupOf, joinResults, type Manifest, nameOf, type PolicyFormat } from './policy-format.js';

const KIND = 'ImageValidatingPolicy';
const isImagePolicy = (manifest: Manifest) => groupOf(manifest) === 'policies.kyverno.io' && manifest.kind === KIND;

type ExceptionSpec = {
  policyRefs?: { name?: string; kind?: string }[];
  matchConditions?: unknown;
  images?: unknown;
  allowedValues?: unknown;
};

/** The PolicyExceptions (policies.kyverno.io) that name an ImageValidatingPolicy. */
const namesAnImagePolicy = (manifest: Manifest) =>
  groupOf(manifest) === 'policies.kyverno.io' &&
  manifest.kind === 'PolicyException' &&
  ((manifest.spec as ExceptionSpec | undefined)?.policyRefs ?? []).some((ref) => ref?.kind === KIND);

function exceptionsFor(name: string, exceptions: readonly Manifest[], label: string, errors: string[]) {
  return exceptions.flatMap((exception) => {
    const spec = (exception.spec ?? {}) as ExceptionSpec;
    if (!(spec.policyRefs ?? []).some((ref) => ref?.kind === KIND && ref.name === name)) return [];
    // Kyverno's newest engine leaves partial exceptions out of image policies; saying so beats a silent no-op.
    if (spec.images !== undefined || spec.allowedValues !== undefined) {
      errors.push(`${label}: PolicyException ${nameOf(exception)}: images and allowedValues do not apply to an ImageValidatingPolicy`);
      return [];
    }
    return [{ name: nameOf(exception), ...(spec.matchConditions !== undefined ? { matchConditions: spec.matchConditions } : {}) }];
  });
}

type Spec = Record<string, unknown> & {
  evaluation?: { mode?: string; admission?: { enabled?: boolean } };
  validationConfigurations?: { mutateDigest?: boolean; verifyDigest?: boolean; required?: boolean };
  credentials?: { secrets?: unknown[]; allowInsecureRegistry?: boolean };
  autogen?: { podControllers?: { controllers?: string[] } };
};

/** What both rules read of the policy, or why it cannot run (undefined rules: switched off for admission). */
function policyParts(policy: Manifest, exceptions: readonly Manifest[]) {
  const name = nameOf(policy);
  const spec = (policy.spec ?? {}) as Spec;
  const label = `${KIND} ${name}`;
  const errors: string[] = [];
  const mode = spec.evaluation?.mode;
  if (mode !== undefined && mode !== 'Kubernetes')
    errors.push(`${label}: spec.evaluation.mode ${String(mode)} judges payloads, not admission requests; not supported`);
  if (spec.credentials?.secrets?.length)
    errors.push(`${label}: spec.credentials.secrets: registry credentials from Secrets are not read (the deployment's are used)`);
  if (spec.credentials?.allowInsecureRegistry)
    errors.push(`${label}: spec.credentials.allowInsecureRegistry: registries are reached over HTTPS only`);
  const runs = errors.length === 0 && spec.evaluation?.admission?.enabled !== false;
  const common = {
    ...(spec.matchConditions !== undefined ? { matchConditions: spec.matchConditions } : {}),
    ...(spec.matchImageReferences !== undefined ? { matchImageReferences: spec.matchImageReferences } : {}),
    ...(spec.failurePolicy !== undefined ? { failurePolicy: spec.failurePolicy } : {}),
    exceptions: runs ? exceptionsFor(name, exceptions, label, errors) : [],
  };
  const rule = (parameters: Record<string, unknown>) => {
    const match = matchFromConstraints(spec.matchConstraints);
    withPodControllers(match, parameters, spec.autogen?.podControllers?.controllers);
    // As Kyverno's webhooks: an error denies whatever the failurePolicy, which decides matchConditions' errors
    // only (the policy's own); otherwise an image a Pod names on a registry that errs would be admitted unverified.
    return { name, mode: 'enforce', failurePolicy: 'Fail', origin: { kind: KIND, name }, match, parameters };
  };
  return { name, spec, label, errors, runs, common, rule };
}

function validationRule(policy: Manifest, exceptions: readonly Manifest[]): FormatResult {
  const { spec, label, errors, runs, common, rule } = policyParts(policy, exceptions);
  if (!runs) return { rules: [], errors };
  const { verifyDigest, required } = spec.validationConfigurations ?? {};
  const imageValidation = {
    ...celParameters(spec),
    ...common,
    ...(spec.images !== undefined ? { images: spec.images } : {}),
    ...(spec.attestors !== undefined ? { attestors: spec.attestors } : {}),
    ...(spec.attestations !== undefined ? { attestations: spec.attestations } : {}),
    ...(verifyDigest !== undefined ? { verifyDigest } : {}),
    ...(required !== undefined ? { required } : {}),
  };
  const made = { ...rule({ imageValidation }), validationActions: spec.validationActions ?? ['Deny'] };
  return {
    rules: [{ rule: made, label, parametersAt: 'spec', parametersIn: 'imageValidation', matchAt: 'spec.matchConstraints' }],
    errors,
  };
}

function digestRule(policy: Manifest, exceptions: readonly Manifest[]): FormatResult {
  const { spec, label, errors, runs, common, rule } = policyParts(policy, exceptions);
  if (!runs || spec.validationConfigurations?.mutateDigest === false) return { rules: [], errors };
  // Kyverno registers its mutating webhook with reinvocationPolicy IfNeeded.
  const made = { ...rule({ imageDigests: common }), reinvocationPolicy: 'IfNeeded' };
  return { rules: [{ rule: made, label, parametersAt: 'spec', parametersIn: 'imageDigests', matchAt: 'spec.matchConstraints' }], errors };
}

/** A format of the policies and their exceptions, each policy made into rules by `rulesOf`. */
function imagePolicyFormat(name: string, rulesOf: (policy: Manifest, exceptions: readonly Manifest[]) => FormatResult): PolicyFormat {
  return {
    name,
    // The CEL engine's ImageValidatingPolicy part is loaded before such a document is read.
    engines: () => [celEngine],
    claims: (manifest) => isImagePolicy(manifest) || namesAnImagePolicy(manifest),
    rulesOf: (claimed) => {
      const exceptions = claimed.filter(namesAnImagePolicy);
      const policies = claimed.filter(isImagePolicy);
      const names = new Set(policies.map(nameOf));
      const orphans = exceptions.flatMap((exception) =>
        ((exception.spec as ExceptionSpec).policyRefs ?? [])
          .filter((ref) => ref?.kind === KIND && !names.has(ref.name ?? ''))
          .map((ref) => `PolicyException ${nameOf(exception)}: names ${KIND} ${ref.name}, which is not in the bundle`),
      );
      return joinResults([...policies.map((policy) => rulesOf(policy, exceptions)), { rules: [], errors: orphans }]);
    },
  };
}

/** The cel function's: the policy's validation. */
export const kyvernoImageValidatingPolicyFormat = imagePolicyFormat(`Kyverno ${KIND}`, validationRule);
/** The mutations function's: the policy's mutateDigest. */
export const kyvernoImageDigestFormat = imagePolicyFormat(`Kyverno ${KIND} (mutateDigest)`, digestRule);
