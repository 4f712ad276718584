// Kyverno's imageverify library for CEL (pkg/cel/libs/imageverify), in an ImageValidatingPolicy's own
// environment: verifyImageSignatures and verifyAttestationSignatures count the attestors that verified an
// image (0 for an image matchImageReferences does not select), extractPayload gives the in-toto statement an
// attestation verified earlier in the same evaluation, getImageData the image's data. Verifications are made
// between runs of the rule (lookups.ts), each attestor's once per request; an image the registry cannot give
// is the evaluation's error, as in Kyverno, and an attestor that does not verify it counts nothing.
import { ClusterLookupError } from '../../../../admission/cluster/cluster-view.js';
import type { ImageCheck, ImageVerdict } from '../../../../admission/image-verification/image-check.js';
import { parseImageReference } from '../../../../admission/kubernetes/image-reference.js';
import { currentImageLookups } from '../../../runtime/image-lookups.js';
import { Attestor, currentImageEvaluation, type ImageEvaluation, selectsImage } from '../../image-validation/image-policy.js';
import { toCel } from '../../program.js';
import type { CelLibrary } from '../cel-library.js';
import { imageMetadata } from '../kyverno-imagedata/library.js';

function evaluationFor(name: string): ImageEvaluation {
  const evaluation = currentImageEvaluation();
  if (!evaluation) throw new ClusterLookupError(`${name} runs in an ImageValidatingPolicy's validations only`);
  return evaluation;
}

function attestorsOf(list: unknown, name: string): Attestor[] {
  const items = Array.isArray(list) ? list : [];
  if (!items.every((item) => item instanceof Attestor)) throw new Error(`${name}: expected a list of attestors (attestors.<name>)`);
  return items as Attestor[];
}

/** The image as parsed, or undefined when matchImageReferences does not select it (the functions then count 0). */
function selected(evaluation: ImageEvaluation, image: string) {
  if (!selectsImage(evaluation.policy, image)) return undefined;
  const reference = parseImageReference(image);
  if (!reference) throw new ClusterLookupError(`failed to get imagedata: could not parse reference: ${image}`);
  return reference;
}

/** The verdict on the check, or undefined in a run that only notes what to verify (lookups.ts). */
function verdictOf(check: ImageCheck): ImageVerdict | undefined {
  const lookups = currentImageLookups();
  if (!lookups) throw new ClusterLookupError('image verification reads a registry, which is not read here');
  const answer = lookups.verdict(check);
  if (!answer) {
    if (lookups.discovering) return undefined;
    // Not verified yet: the rule runs again once it is, and this run's result is dropped.
    throw new ClusterLookupError(`${check.reference.normalised}: not verified yet`);
  }
  if (!answer.ok) throw new ClusterLookupError(`failed to get imagedata: ${answer.error}`);
  if (answer.verdict.outcome === 'error') throw new ClusterLookupError(`failed to get imagedata: ${answer.verdict.message}`);
  return answer.verdict;
}

/** Kyverno's record for `required`: an image a call checked with attestors, verified once any of them did. */
function record(evaluation: ImageEvaluation, image: string, verified: boolean): void {
  evaluation.verified.set(image, (evaluation.verified.get(image) ?? false) || verified);
}

function verifyImageSignatures(image: string, list: unknown): bigint {
  const evaluation = evaluationFor('verifyImageSignatures');
  const attestors = attestorsOf(list, 'verifyImageSignatures');
  const reference = selected(evaluation, image);
  if (!reference) return 0n;
  let count = 0;
  for (const attestor of attestors) {
    const check = { key: `${attestor.id} ${reference.normalised}`, reference, attestors: [attestor.set], attestations: [], useCache: true };
    if (verdictOf(check)?.outcome === 'verified') count++;
  }
  if (attestors.length > 0) record(evaluation, image, count > 0);
  return BigInt(count);
}

function attestationNamed(evaluation: ImageEvaluation, name: string) {
  const attestation = evaluation.policy.attestations.get(name);
  if (!attestation) throw new Error(`attestation not found in policy: ${name}`);
  return attestation;
}

function verifyAttestationSignatures(image: string, name: string, list: unknown): bigint {
  const evaluation = evaluationFor('verifyAttestationSignatures');
  const { predicateType } = attestationNamed(evaluation, name);
  const attestors = attestorsOf(list, 'verifyAttestationSignatures');
  const reference = selected(evaluation, image);
  if (!reference) return 0n;
  let count = 0;
  for (const attestor of attestors) {
    const check = {
      key: `${attestor.id} ${predicateType} ${reference.normalised}`,
      reference,
      attestors: [],
      attestations: [{ predicateType, attestors: [attestor.set] }],
      useCache: true,
    };
    const verdict = verdictOf(check);
    const entries = verdict?.outcome === 'verified' ? (verdict.attestations?.[0]?.[0] ?? []) : [];
    const verified = entries.find((entry) => 'statements' in entry);
    if (!verified || !('statements' in verified)) continue;
    count++;
    evaluation.statements.set(`${image}\n${predicateType}`, verified.statements[0]);
  }
  if (attestors.length > 0) record(evaluation, image, count > 0);
  return BigInt(count);
}

function extractPayload(image: string, name: string): unknown {
  const evaluation = evaluationFor('extractPayload');
  const { predicateType } = attestationNamed(evaluation, name);
  const key = `${image}\n${predicateType}`;
  if (!evaluation.statements.has(key))
    throw new Error('failed to get payload: intoto attestation payload cannot be fetch before verifying intoto attestation');
  return toCel(evaluation.statements.get(key), `the ${name} attestation of ${image}`);
}

export const kyvernoImageVerifyLibrary: CelLibrary = {
  name: 'kyverno.imageverify',
  kyvernoOnly: true,
  types: { 'imageverify.attestor': Attestor },
  functions: {
    'verifyImageSignatures(string, list): int': verifyImageSignatures,
    'verifyAttestationSignatures(string, string, list): int': verifyAttestationSignatures,
    'extractPayload(string, string): dyn': extractPayload,
    'getImageData(string): dyn': imageMetadata,
  },
};
