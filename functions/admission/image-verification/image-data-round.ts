// One round of image data for the references a rule evaluation asked for (Kyverno's imageRegistry context
// entries, image-lookups.ts), fetched all at once within the request's deadline with the deployment's
// registry access; past our limits, each answered with its error, which the rule's failure policy resolves.
// The fetching itself (image-data.ts) loads the first time a rule asks.
import { parseImageReference } from '../kubernetes/image-reference.js';
import type { ImageLookupAnswer, ImageLookups } from '../../engines/runtime/image-lookups.js';
import { REGISTRY_CA_PEM } from './image-verdicts.js';
import { registryAccess } from './registry-access.js';

/** Distinct image references one rule evaluation reads at most. */
export const MAX_IMAGE_LOOKUPS = 16;

const limit = (what: string): ImageLookupAnswer => ({
  ok: false,
  error: `${what} (a limit of Portcullis: the rule's failure policy decides)`,
});

/** Answers the references asked for since the last round; past the last round (`maxRounds`) or the limit, each with its error. */
export async function answerImageRound(lookups: ImageLookups, round: number, maxRounds: number, signal: AbortSignal): Promise<void> {
  const asked = [...lookups.pending].map((written) => ({ written, reference: parseImageReference(written) }));
  const room = Math.max(0, MAX_IMAGE_LOOKUPS - lookups.made);
  const registries = asked.flatMap(({ reference }) => reference?.registry ?? []);
  const [{ imageData }, access] = await Promise.all([
    import('./image-data.js'),
    // Credentials that cannot be read (SSM, ECR) are every image's error, not the evaluation's.
    registryAccess(registries, REGISTRY_CA_PEM, signal).catch((error: Error) => error),
  ]);
  const answers = await Promise.all(
    asked.map(({ written, reference }, index) =>
      round > maxRounds
        ? limit(`the rule read image data in more than ${maxRounds} rounds, each waiting for the last`)
        : index >= room
          ? limit(`more than ${MAX_IMAGE_LOOKUPS} images' data read in one evaluation`)
          : !reference
            ? { ok: false as const, error: `${JSON.stringify(written)} is not an image reference` }
            : access instanceof Error
              ? { ok: false as const, error: `registry credentials: ${access.message}` }
              : imageData(written, reference, access, signal),
    ),
  );
  for (const [index, { written }] of asked.entries()) lookups.settle(written, answers[index]!);
}
