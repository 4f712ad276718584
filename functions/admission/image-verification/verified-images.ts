// The verdicts on the images rules asked to be verified for one request, each image asked of its registry
// once however many rules ask, all within the request's deadline (`signal`). Loaded the first time a rule
// asks (image-verdicts.ts), so a function whose rules verify no image never loads the registry client or
// sigstore-js. What each attestor entry trusts is attestor-checks.ts's, beyond what it names itself the
// deployment's Sigstore root (deployment-trust-root.ts). A registry is reached with the
// deployment's credentials for it (anonymously without), trusting the system's certificate authorities and
// the deployment's REGISTRY_CA_PEM (registry-access.ts).
import type { TrustedRoot } from '@sigstore/protobuf-specs';
import { attestorSetOf, needsRe2 } from './attestor-checks.js';
import type { ReadBudget } from './cosign-attestations.js';
import { deploymentTrustRoot } from './deployment-trust-root.js';
import type { ImageCheck, ImageVerdict } from './image-check.js';
import type { RegistryAccess } from './registry-access.js';
import { clientOf } from './registry-client-of.js';
import { VerdictCache } from './verdict-cache.js';
import { digestOf, MAX_REQUEST_ATTESTATION_BYTES, verifyImage } from './verify-image.js';

const cache = new VerdictCache();
/** Images verified for one request at most, all at once: a Pod has a few; a request naming hundreds is refused. */
const MAX_IMAGES_PER_REQUEST = 64;

export async function verifiedImages(
  checks: readonly ImageCheck[],
  signal: AbortSignal,
  access: RegistryAccess,
): Promise<Map<string, ImageVerdict>> {
  const unique = new Map(checks.map((check) => [check.key, check]));
  if (unique.size > MAX_IMAGES_PER_REQUEST) {
    const message = `more than ${MAX_IMAGES_PER_REQUEST} images to verify in one request (a limit of Portcullis: the rule's failure policy decides)`;
    return new Map([...unique.keys()].map((key) => [key, { outcome: 'error', image: unique.get(key)!.reference.normalised, message }]));
  }
  const trust = await deploymentTrustRoot(signal);
  if ('error' in trust)
    return new Map(
      [...unique.values()].map((check) => [check.key, { outcome: 'error', image: check.reference.normalised, message: trust.error }]),
    );
  const budget = { remainingBytes: MAX_REQUEST_ATTESTATION_BYTES };
  const verdicts = await Promise.all(
    [...unique.values()].map(async (check) => [check.key, await verdictOf(check, signal, access, budget, trust)] as const),
  );
  return new Map(verdicts);
}

async function verdictOf(
  check: ImageCheck,
  signal: AbortSignal,
  access: RegistryAccess,
  budget: ReadBudget,
  trust: { root: TrustedRoot; version: string },
): Promise<ImageVerdict> {
  const client = clientOf(access);
  const re2 = needsRe2([...check.attestors, ...check.attestations.flatMap(({ attestors }) => attestors)])
    ? (await import('re2js')).RE2JS
    : undefined;
  const spec = {
    attestors: check.attestors.map((set) => attestorSetOf(set, re2, trust.root)),
    attestations: check.attestations.map(({ predicateType, attestors }) => ({
      predicateType,
      attestors: attestors.map((set) => attestorSetOf(set, re2, trust.root)),
    })),
    ...(check.repository ? { repository: check.repository } : {}),
  };
  if (!check.useCache) return verifyImage(client, check.reference, spec, signal, budget);
  // Kept by digest: a tag is resolved on every request, so a tag moved to another digest is verified anew.
  const digest = await digestOf(client, check.reference, signal);
  if (typeof digest !== 'string') return digest;
  // And by the trust root's version: a verdict under another root is not this one's.
  return cache.verdict(`${trust.version} ${check.key} ${digest}`, () =>
    verifyImage(client, { ...check.reference, digest }, spec, signal, budget),
  );
}
