// Kyverno's ImageValidatingPolicy (policies.kyverno.io v1alpha1, v1beta1, v1: one spec) as one cel rule whose
// `imageValidation` parameter holds the policy's fields (engines/cel/image-validation), with the
// PolicyExceptions (policies.kyverno.io) that name it. As Kyverno: validationActions [Deny], failurePolicy
// Fail and for matchConditions only (an evaluation's error denies), autogen for Pod policies. A policy switched off for admission makes no rule; one in JSON mode judges
// payloads, not admission requests, and is refused, as are credentials from Secrets and what would let an
// image by tag in unpinned (mutateDigest is not run yet).
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

function rulesFromImagePolicy(policy: Manifest, exceptions: readonly Manifest[]): FormatResult {
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
  const { mutateDigest, verifyDigest, required } = spec.validationConfigurations ?? {};
  if (mutateDigest !== false && verifyDigest === false)
    errors.push(
      `${label}: spec.validationConfigurations.mutateDigest: tags are not pinned to digests here yet, and with verifyDigest false an image by tag would be admitted unpinned: set mutateDigest: false to accept that, or keep verifyDigest`,
    );
  if (errors.length > 0 || spec.evaluation?.admission?.enabled === false) return { rules: [], errors };
  const match = matchFromConstraints(spec.matchConstraints);
  const lists = celParameters(spec);
  const parameters: Record<string, unknown> = {
    imageValidation: {
      ...lists,
      ...(spec.matchImageReferences !== undefined ? { matchImageReferences: spec.matchImageReferences } : {}),
      ...(spec.images !== undefined ? { images: spec.images } : {}),
      ...(spec.attestors !== undefined ? { attestors: spec.attestors } : {}),
      ...(spec.attestations !== undefined ? { attestations: spec.attestations } : {}),
      ...(verifyDigest !== undefined ? { verifyDigest } : {}),
      ...(required !== undefined ? { required } : {}),
      ...(spec.failurePolicy !== undefined ? { failurePolicy: spec.failurePolicy } : {}),
      exceptions: exceptionsFor(name, exceptions, label, errors),
    },
  };
  withPodControllers(match, parameters, spec.autogen?.podControllers?.controllers);
  const rule = {
    name,
    mode: 'enforce',
    // As Kyverno's webhook: an error denies whatever the failurePolicy, which decides matchConditions' errors
    // only (the policy's own); otherwise an image a Pod names on a registry that errs would be admitted unverified.
    failurePolicy: 'Fail',
    validationActions: spec.validationActions ?? ['Deny'],
    origin: { kind: KIND, name },
    match,
    parameters,
  };
  return { rules: [{ rule, label, parametersAt: 'spec', parametersIn: 'imageValidation', matchAt: 'spec.matchConstraints' }], errors };
}

export const kyvernoImageValidatingPolicyFormat: PolicyFormat = {
  name: `Kyverno ${KIND}`,
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
    return joinResults([...policies.map((policy) => rulesFromImagePolicy(policy, exceptions)), { rules: [], errors: orphans }]);
  },
};
