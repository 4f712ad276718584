// What a rule evaluation asks of the world outside it and cannot wait for, being synchronous: Kyverno CEL's
// http.Get and http.Post (http-calls.ts), and images' data and verifications (image-lookups.ts: imageRegistry
// context entries, image.GetMetadata, an ImageValidatingPolicy's verify functions). The rule runs; what it
// asked for and got no answer to is fetched, all at once within the request's deadline; the rule runs again
// with the answers, round after round while it asks for new ones. Past the last round
// every new ask is answered with its error, and an evaluation still asking ends as an error: the rule's
// failure policy decides, as for every limit of ours.
import { deadlineSignal, type WorkDeadline } from '../../admission/decide/deadline.js';
import { httpCallsAllowed } from './http-call-hosts.js';
import { HttpCalls, withHttpCalls } from './http-calls.js';
import { ImageLookups, imageRegistriesRead, withImageLookups } from './image-lookups.js';
import { answerImageRound } from '../../admission/image-verification/image-data-round.js';

/** Rounds of lookups that depend on earlier answers, at most. */
export const MAX_LOOKUP_ROUNDS = 4;

/** A run of the evaluation: its value, or what it threw (a mutation throws where a validation reports). */
type Outcome<T> = { value: T } | { error: unknown };

const settled = <T>(outcome: Outcome<T>): T => {
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
};

/**
 * Runs `work` (a rule's evaluation) with its lookups answered: directly when nothing may be looked up
 * (no hosts allowed, a rule that reads no image registry) or the rule asked for nothing, else again after
 * each round of answers, all within the request's deadline.
 */
export function answeringLookups<T>(work: () => T, deadline: WorkDeadline | undefined, readsImageRegistries: boolean): T | Promise<T> {
  const calls = httpCallsAllowed() ? new HttpCalls() : undefined;
  const images = readsImageRegistries ? new ImageLookups(imageRegistriesRead()) : undefined;
  if (!calls && !images) return work();
  const run = (): Outcome<T> => {
    try {
      return { value: withImageLookups(images, () => withHttpCalls(calls, work)) };
    } catch (error) {
      return { error };
    }
  };
  const first = run();
  if (!calls?.pending.size && !images?.pending.size) return settled(first);
  discoverImages(run, images);
  return answerRounds(run, calls, images, deadlineSignal(deadline)).then(settled);
}

/**
 * With images to fetch, runs once more with stand-ins for the unanswered ones (image-lookups.ts) to note any
 * further images the rule reads, so that they are fetched in the same round; that run's outcome is dropped.
 */
function discoverImages(run: () => unknown, images: ImageLookups | undefined): void {
  if (!images?.pending.size) return;
  images.discovering = true;
  try {
    run();
  } finally {
    images.discovering = false;
  }
}

async function answerRounds<T>(
  run: () => Outcome<T>,
  calls: HttpCalls | undefined,
  images: ImageLookups | undefined,
  signal: AbortSignal,
): Promise<Outcome<T>> {
  for (let round = 1; ; round++) {
    await Promise.all([
      calls?.pending.size &&
        import('./answer-http-calls.js').then(({ answerHttpRound }) => answerHttpRound(calls, round, MAX_LOOKUP_ROUNDS, signal)),
      images?.pending.size && answerImageRound(images, round, MAX_LOOKUP_ROUNDS, signal),
    ]);
    const result = run();
    if (!calls?.pending.size && !images?.pending.size) return result;
    discoverImages(run, images);
    // Past the last round every ask is answered with its error, so none should be left; if one is, the
    // evaluation ends here as an error rather than run on.
    if (round > MAX_LOOKUP_ROUNDS)
      return { error: new Error(`the rule asked for lookups in more than ${MAX_LOOKUP_ROUNDS} rounds (a limit of Portcullis)`) };
  }
}
