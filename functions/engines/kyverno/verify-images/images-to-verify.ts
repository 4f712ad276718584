// Which of a resource's images a verifyImages rule verifies, and how the rule fares on their verdicts, as
// Kyverno's image verifier judges them: an image is matched by `registry/path:tag` (latest when no tag) or
// `registry/path@digest`, against imageReferences and not skipImageReferences (Kyverno's wildcards: `*` any
// run, `?` one character). A failed image fails the rule with Kyverno's message; a verified one by tag, when
// verifyDigest holds, fails with "missing digest", and one whose attestations fail (attestation-conditions.ts)
// with Kyverno's message; a registry's error is the rule's error. With neither attestors nor attestations
// nothing verifies an image, so a required one fails as unverified, without asking the registry.
import type { ImageCheck, ImageVerdict } from '../../../admission/image-verification/image-check.js';
import { matchesGlob } from '../../../admission/kubernetes/glob.js';
import { type ImageReference, parseImageReference } from '../../../admission/kubernetes/image-reference.js';
import type { WorkDeadline } from '../../../admission/decide/deadline.js';
import type { ImageExtractors } from './image-extractor-schema.js';
import { imagesOf } from './image-extractors.js';
import type { VariableContext } from '../variables/variables.js';
import { attestationsFailure } from './attestation-conditions.js';
import type { ImageRule, ImageVerification } from './verify-images-rule.js';

const matchedName = (reference: ImageReference) =>
  `${reference.registry}/${reference.repository}${reference.digest ? `@${reference.digest}` : `:${reference.tag ?? 'latest'}`}`;

const applies = (verification: ImageVerification, name: string) =>
  verification.references.some((glob) => matchesGlob(name, glob)) && !verification.skip.some((glob) => matchesGlob(name, glob));

export interface ImageToVerify {
  /** As the container names it. */
  image: string;
  check: ImageCheck;
  verification: ImageVerification;
}

/** An image the rule names that is not an image reference: it cannot be verified, so it fails. */
export interface UnreadableImage {
  image: string;
  verification: ImageVerification;
}

/**
 * Each container image of the resource (a Pod, or a controller's pod template as a Pod; a kind's own
 * imageExtractors' images) that a verification applies to; an image that does not parse is unreadable, never skipped. On UPDATE, an image the old object
 * already had is not verified again, as Kyverno skips it: a registry outage must not block relabelling.
 */
export function imagesToVerify(
  kind: string,
  resource: unknown,
  rule: ImageRule,
  oldResource?: unknown,
  extractors?: ImageExtractors,
  deadline?: WorkDeadline,
): (ImageToVerify | UnreadableImage)[] {
  const found: (ImageToVerify | UnreadableImage)[] = [];
  const unchanged = new Set(oldResource ? imagesOf(kind, oldResource, extractors, deadline) : []);
  for (const image of imagesOf(kind, resource, extractors, deadline)) {
    if (unchanged.has(image)) continue;
    const reference = parseImageReference(image);
    if (!reference) {
      // As Kyverno: an image it cannot extract is the rule's failure, whatever the references name.
      for (const verification of rule.verifications) found.push({ image, verification });
      continue;
    }
    const name = matchedName(reference);
    for (const verification of rule.verifications) {
      if (!applies(verification, name)) continue;
      const check: ImageCheck = {
        key: `${verification.id} ${reference.normalised}`,
        reference,
        attestors: verification.attestors,
        attestations: verification.attestations.map(({ predicateType, attestors }) => ({ predicateType, attestors })),
        useCache: verification.useCache,
        ...(verification.repository ? { repository: verification.repository } : {}),
      };
      found.push({ image, check, verification });
    }
  }
  return found;
}

export type ImagesOutcome = { status: 'pass' | 'fail' | 'skip'; message: string };

/** Whether the verification asks the registry anything: with neither attestors nor attestations it does not. */
export const asksRegistry = (verification: ImageVerification) => verification.attestors.length > 0 || verification.attestations.length > 0;

/**
 * The rule's outcome on the verdicts, the attestations' conditions judged in the rule's `context`; throws the
 * registry's error, for the failure policy.
 */
export function judgeImages(
  images: readonly (ImageToVerify | UnreadableImage)[],
  verdicts: ReadonlyMap<string, ImageVerdict> | undefined,
  context: VariableContext,
): ImagesOutcome {
  if (images.length === 0) return { status: 'skip', message: 'no image of the resource is one the rule verifies' };
  const failures: string[] = [];
  for (const found of images) {
    if (!('check' in found)) {
      failures.push(`failed to verify image ${found.image}: not a valid image reference`);
      continue;
    }
    const { check, verification } = found;
    // Nothing to verify with (Kyverno verifies none, then its validate step finds the image unverified).
    if (!asksRegistry(verification)) {
      if (verification.required) failures.push(`unverified image ${check.reference.normalised}`);
      continue;
    }
    const verdict = verdicts?.get(check.key);
    // The function verifies what imagesToVerify names before the rule runs: a missing verdict is a defect.
    if (!verdict) throw new Error(`image ${check.reference.normalised} was not verified before the rule ran`);
    if (verdict.outcome === 'error') throw new Error(verdict.message);
    const attestationsFailed =
      verdict.outcome === 'verified'
        ? attestationsFailure(verification.attestations, verdict.attestations, found.image, context)
        : undefined;
    if (verdict.outcome === 'failed') failures.push(verdict.message);
    else if (attestationsFailed) failures.push(attestationsFailed);
    else if (verification.verifyDigest && !check.reference.digest) failures.push(`missing digest for ${check.reference.normalised}`);
  }
  return failures.length > 0 ? { status: 'fail', message: failures.join('; ') } : { status: 'pass', message: 'image verified' };
}
