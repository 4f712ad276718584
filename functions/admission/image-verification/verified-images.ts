// The verdicts on the images rules asked to be verified for one request, each image asked of its registry
// once however many rules ask, all within the request's deadline (`signal`). Loaded the first time a rule
// asks (image-verdicts.ts), so a function whose rules verify no image never loads the registry client or
// sigstore-js. Transparency logs are checked against the Rekor key a rule names, or Sigstore's public-good
// root. A registry is reached with the deployment's credentials for it (anonymously without), trusting the
// system's certificate authorities and the deployment's REGISTRY_CA_PEM.
import type { TrustedRoot } from '@sigstore/protobuf-specs';
import { type RegistryClient, registryClient } from '../registry/registry-client.js';
import type { AttestorSetSpec, ImageCheck, ImageVerdict, KeyEntrySpec } from './image-check.js';
import type { CredentialsByRegistry } from './registry-credentials.js';
import { publicGoodRoot } from './public-good-root.js';
import { rekorKeyRoot } from './trusted-root.js';
import { VerdictCache } from './verdict-cache.js';
import type { ReadBudget } from './cosign-attestations.js';
import { type AttestorEntry, type AttestorSet, digestOf, MAX_REQUEST_ATTESTATION_BYTES, verifyImage } from './verify-image.js';

export interface RegistryAccess {
  /** The deployment's REGISTRY_CA_PEM, read when the function was. */
  ca: string | undefined;
  /** The deployment's registry credentials, as last read (registry-credentials.ts). */
  credentials: CredentialsByRegistry;
}

let client: RegistryClient | undefined;
let credentials: CredentialsByRegistry = new Map();
function clientOf(access: RegistryAccess): RegistryClient {
  credentials = access.credentials;
  return (client ??= registryClient({ ...(access.ca ? { ca: access.ca } : {}), credentialsFor: (registry) => credentials.get(registry) }));
}

// One trust root per Rekor key the rules name; bounded, as keys come from rules documents.
const MAX_ROOTS = 64;
const roots = new Map<string, TrustedRoot>();

function rootOf(pem: string): TrustedRoot {
  let root = roots.get(pem);
  if (!root) {
    const made = rekorKeyRoot(pem);
    // The rule's schema read the key when the rules were: a key that does not parse here is a defect.
    if (typeof made === 'string') throw new Error(made);
    if (roots.size >= MAX_ROOTS) roots.clear();
    roots.set(pem, (root = made));
  }
  return root;
}

const entryOf = (entry: KeyEntrySpec): AttestorEntry => ({
  check: {
    key: entry.key,
    signatureAlgorithm: entry.signatureAlgorithm,
    annotations: entry.annotations,
    ...(entry.transparencyLog
      ? { transparencyLogs: entry.transparencyLog.rekorPublicKey ? rootOf(entry.transparencyLog.rekorPublicKey) : publicGoodRoot() }
      : {}),
  },
  ...(entry.repository ? { repository: entry.repository } : {}),
});

const attestorSetOf = (set: AttestorSetSpec): AttestorSet => ({
  ...(set.count !== undefined ? { count: set.count } : {}),
  entries: set.entries.map(entryOf),
});

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
  const budget = { remainingBytes: MAX_REQUEST_ATTESTATION_BYTES };
  const verdicts = await Promise.all(
    [...unique.values()].map(async (check) => [check.key, await verdictOf(check, signal, access, budget)] as const),
  );
  return new Map(verdicts);
}

async function verdictOf(check: ImageCheck, signal: AbortSignal, access: RegistryAccess, budget: ReadBudget): Promise<ImageVerdict> {
  const client = clientOf(access);
  const spec = {
    attestors: check.attestors.map(attestorSetOf),
    attestations: check.attestations.map(({ predicateType, attestors }) => ({ predicateType, attestors: attestors.map(attestorSetOf) })),
    ...(check.repository ? { repository: check.repository } : {}),
  };
  if (!check.useCache) return verifyImage(client, check.reference, spec, signal, budget);
  // Kept by digest: a tag is resolved on every request, so a tag moved to another digest is verified anew.
  const digest = await digestOf(client, check.reference, signal);
  if (typeof digest !== 'string') return digest;
  return cache.verdict(`${check.key} ${digest}`, () => verifyImage(client, { ...check.reference, digest }, spec, signal, budget));
}
