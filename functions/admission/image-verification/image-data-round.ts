// One round of what a rule evaluation asked of registries since the last (image-lookups.ts): images' data
// (image-data.ts) and images verified by a check (verified-images.ts), all at once within the request's
// deadline with the deployment's registry access; past our limits, each answered with its error, which the
// rule's failure policy resolves. The fetching and verifying code loads the first time a rule asks.
import { parseImageReference } from '../kubernetes/image-reference.js';
import type { ImageAsk, ImageLookupAnswer, ImageLookups, ImageVerificationAnswer } from '../../engines/runtime/image-lookups.js';
import type { ImageCheck, ImageVerdict } from './image-check.js';
import { REGISTRY_CA_PEM, registriesOf } from './image-verdicts.js';
import { type RegistryAccess, registryAccess } from './registry-access.js';

/** Answers what was asked since the last round (pending-answers.ts), with the deployment's registry access. */
export async function answerImageRound(lookups: ImageLookups, round: number, maxRounds: number, signal: AbortSignal): Promise<void> {
  const asked = [...lookups.pending.values()];
  const checks = asked.flatMap((ask) => ('verify' in ask ? [ask.verify] : []));
  const registries = [
    ...asked.flatMap((ask) => ('data' in ask ? (parseImageReference(ask.data)?.registry ?? []) : [])),
    ...registriesOf(checks),
  ];
  const [{ imageData }, { verifiedImages }, access] = await Promise.all([
    import('./image-data.js'),
    checks.length > 0 ? import('./verified-images.js') : { verifiedImages: undefined },
    // Credentials that cannot be read (SSM, ECR) are every image's error, not the evaluation's.
    registryAccess(registries, REGISTRY_CA_PEM, signal).catch((error: Error) => error),
  ]);
  // Every ask of the round is handed to `fetch` before any of them resumes from its first await: the round's
  // checks are verified together, under one request's limits (images, attestation bytes) and reads.
  const batch = new Map<string, ImageCheck>();
  let verdicts: Promise<Map<string, ImageVerdict>> | undefined;
  const verify = async (check: ImageCheck): Promise<ImageVerificationAnswer> => {
    batch.set(check.key, check);
    await undefined;
    verdicts ??= verifiedImages!([...batch.values()], signal, access as RegistryAccess);
    const verdict = (await verdicts).get(check.key);
    return verdict ? { ok: true, verdict } : { ok: false, error: `no verdict for ${check.reference.normalised}` };
  };
  await lookups.answerRound(
    round,
    maxRounds,
    async (ask: ImageAsk): Promise<ImageLookupAnswer | ImageVerificationAnswer> => {
      if (access instanceof Error) return { ok: false, error: `registry credentials: ${access.message}` };
      if ('verify' in ask) return verify(ask.verify);
      const reference = parseImageReference(ask.data);
      if (!reference) return { ok: false, error: `${JSON.stringify(ask.data)} is not an image reference` };
      return imageData(ask.data, reference, access, signal);
    },
    (reached, most) =>
      reached === 'rounds'
        ? `the rule asked registries in more than ${most} rounds, each waiting for the last`
        : `more than ${most} images' data or verifications asked for in one evaluation`,
  );
}
