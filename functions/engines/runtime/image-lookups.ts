// What a rule evaluation asks of registries, fetched between runs of the rule (lookups.ts): an image's data
// (Kyverno's imageRegistry context entries, Kyverno CEL's image.GetMetadata and getImageData), each
// reference's manifest and config, shaped by each format as its own loader shapes them; and an image's
// verification (an ImageValidatingPolicy's verifyImageSignatures and verifyAttestationSignatures). The
// functions read registries for both; `policy test` verifies images but reads no image data, as `kyverno
// test` without --registry: the suite's values or context stand in, and what they do not give is the rule's error.
import type { ImageCheck, ImageVerdict } from '../../admission/image-verification/image-check.js';
import { ambient } from './evaluation.js';
import { PendingAnswers } from './pending-answers.js';

/** An image as its registry gave it, its reference as written and as go-containerregistry parses it. */
export interface FetchedImage {
  written: string;
  /** As go-containerregistry names it: Docker Hub is `index.docker.io`. */
  registry: string;
  repository: string;
  /** As written; a reference with neither tag nor digest is `latest`. */
  tag?: string;
  digest?: string;
  /** The digest the registry answered the reference with (an index's, for an image of several platforms). */
  resolvedDigest: string;
  /** The index the reference names, if it names one. */
  index?: Record<string, unknown>;
  /** The image's manifest (an index's linux/amd64 image) and its config blob, as JSON. */
  manifest: Record<string, unknown>;
  config: unknown;
}

export type ImageLookupAnswer = { ok: true; image: FetchedImage } | { ok: false; error: string };
/** An image's verdict under a check, or why there is none (one of our limits). */
export type ImageVerificationAnswer = { ok: true; verdict: ImageVerdict } | { ok: false; error: string };

/** What a rule asked: a reference's data, or an image verified as a check says. */
export type ImageAsk = { data: string } | { verify: ImageCheck };

/** Distinct images' data and verifications one rule evaluation asks for at most. */
export const MAX_IMAGE_LOOKUPS = 16;

/** The image lookups of one rule evaluation: answered ones, and those asked for since the last round. */
export class ImageLookups extends PendingAnswers<ImageAsk, ImageLookupAnswer | ImageVerificationAnswer> {
  /**
   * A run made only to find more images to fetch in the same round (lookups.ts): a lookup not answered yet
   * gives a stand-in, so that a `map()` goes on to its next element where an error would end it.
   */
  discovering = false;

  /** `dataRead`: whether images' data is read (`policy test` reads none without --registry; verifications are made). */
  constructor(readonly dataRead = true) {
    super(MAX_IMAGE_LOOKUPS);
  }

  /** The data of `reference`, or undefined after noting it as one to fetch. */
  answer(reference: string): ImageLookupAnswer | undefined {
    return this.answerOf(`data ${reference}`, { data: reference }) as ImageLookupAnswer | undefined;
  }

  /** The verdict on the check's image, or undefined after noting it as one to verify. */
  verdict(check: ImageCheck): ImageVerificationAnswer | undefined {
    return this.answerOf(`verify ${check.key}`, { verify: check }) as ImageVerificationAnswer | undefined;
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
