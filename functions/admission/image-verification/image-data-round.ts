// One round of image data for the references a rule evaluation asked for (Kyverno's imageRegistry context
// entries, image-lookups.ts), fetched all at once within the request's deadline with the deployment's
// registry access; past our limits, each answered with its error, which the rule's failure policy resolves.
// The fetching itself (image-data.ts) loads the first time a rule asks.
import { parseImageReference } from '../kubernetes/image-reference.js';
import type { ImageLookupAnswer, ImageLookups } from '../../engines/runtime/image-lookups.js';
import { REGISTRY_CA_PEM } from './image-verdicts.js';
import { registryAccess } from './registry-access.js';

/** Answers the references asked for since the last round (pending-answers.ts), with the deployment's registry access. */
export async function answerImageRound(lookups: ImageLookups, round: number, maxRounds: number, signal: AbortSignal): Promise<void> {
  const registries = [...lookups.pending.keys()].flatMap((written) => parseImageReference(written)?.registry ?? []);
  const [{ imageData }, access] = await Promise.all([
    import('./image-data.js'),
    // Credentials that cannot be read (SSM, ECR) are every image's error, not the evaluation's.
    registryAccess(registries, REGISTRY_CA_PEM, signal).catch((error: Error) => error),
  ]);
  await lookups.answerRound(
    round,
    maxRounds,
    async (written): Promise<ImageLookupAnswer> => {
      const reference = parseImageReference(written);
      if (!reference) return { ok: false, error: `${JSON.stringify(written)} is not an image reference` };
      if (access instanceof Error) return { ok: false, error: `registry credentials: ${access.message}` };
      return imageData(written, reference, access, signal);
    },
    (reached, most) =>
      reached === 'rounds'
        ? `the rule read image data in more than ${most} rounds, each waiting for the last`
        : `more than ${most} images' data read in one evaluation`,
  );
}
