// The image data a rule evaluation asks of registries (Kyverno's imageRegistry context entries): the data of
// each reference, as Kyverno's context loader makes it, fetched between runs of the rule (lookups.ts). The
// functions read registries; `policy test` does not, as `kyverno test` without --registry: the suite's
// values stand in for the entry, and an entry they do not give is the rule's error.

/** Kyverno's image data for a reference (image, resolvedImage, registry, repository, identifier, manifest, configData), or why there is none. */
import { ambient } from './evaluation.js';
import { PendingAnswers } from './pending-answers.js';

export type ImageLookupAnswer = { ok: true; data: Record<string, unknown> } | { ok: false; error: string };

/** Distinct image references one rule evaluation reads at most. */
export const MAX_IMAGE_LOOKUPS = 16;

/** The image lookups of one rule evaluation: answered ones, and those asked for since the last round. */
export class ImageLookups extends PendingAnswers<string, ImageLookupAnswer> {
  constructor() {
    super(MAX_IMAGE_LOOKUPS);
  }

  /** The answer for `reference`, or undefined after noting it as one to fetch. */
  answer(reference: string): ImageLookupAnswer | undefined {
    return this.answerOf(reference, reference);
  }
}

/**
 * Thrown where a rule reads an image's data not fetched yet: its run ends there and is repeated once the
 * data is in. A foreach loop goes on to its next element first (foreachPending), so that one run notes every
 * element's image and they are fetched together.
 */
export class LookupPending extends Error {
  constructor() {
    super('image data is being fetched');
    this.name = 'LookupPending';
  }
}

/** Runs a foreach element's `work`; a pending lookup is noted in `pending` and the loop goes on. */
export function foreachPending<T>(pending: { found: boolean }, work: () => T): T | undefined {
  try {
    return work();
  } catch (error) {
    if (!(error instanceof LookupPending)) throw error;
    pending.found = true;
    return undefined;
  }
}

let registryReads = true;
/** `policy test` turns registry reads off, as `kyverno test` runs without --registry. */
export function readImageRegistries(allowed: boolean): void {
  registryReads = allowed;
}
export const imageRegistriesRead = (): boolean => registryReads;

const lookups = ambient<ImageLookups>();

/** The lookups of the evaluation in progress: absent where registries are not read (lookups.ts installs them). */
export const currentImageLookups = lookups.current;
export const withImageLookups = lookups.with;
