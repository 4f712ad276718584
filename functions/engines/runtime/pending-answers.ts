// What one rule evaluation asked of the world outside it and cannot wait for (HTTP calls, image data),
// keyed by what was asked: the answers it has, and what it asked for since the last round (lookups.ts). A
// round answers those all at once; past the last round, or past the most distinct asks one evaluation may
// make, each is answered with its error instead, which the rule's next run meets as the rule's error (its
// failure policy decides): a limit never stands in for an answer.

/** An answer, or why there is none. */
export type Answer = { ok: true } | { ok: false; error: string };

export class PendingAnswers<Asked, A extends Answer> {
  private readonly answers = new Map<string, A>();
  readonly pending = new Map<string, Asked>();

  /** `most`: distinct asks one evaluation may have answered. */
  constructor(private readonly most: number) {}

  /** The answer under `key`, or undefined after noting `asked` as one to answer (unless `note` is false). */
  protected answerOf(key: string, asked: Asked, note = true): A | undefined {
    const answer = this.answers.get(key);
    if (!answer && note) this.pending.set(key, asked);
    return answer;
  }

  /**
   * Answers what was asked since the last round, all at once by `fetch`; past round `maxRounds`, or past the
   * most distinct asks, each with the limit `limit` words.
   */
  async answerRound(
    round: number,
    maxRounds: number,
    fetch: (asked: Asked) => Promise<A>,
    limit: (reached: 'rounds' | 'asks', most: number) => string,
  ): Promise<void> {
    const asked = [...this.pending];
    const room = Math.max(0, this.most - this.answers.size);
    const limited = (reached: 'rounds' | 'asks') =>
      ({
        ok: false,
        error: `${limit(reached, reached === 'rounds' ? maxRounds : this.most)} (a limit of Portcullis: the rule's failure policy decides)`,
      }) as A;
    const answers = await Promise.all(
      asked.map(([, request], index) => (round > maxRounds ? limited('rounds') : index >= room ? limited('asks') : fetch(request))),
    );
    for (const [index, [key]] of asked.entries()) {
      this.pending.delete(key);
      this.answers.set(key, answers[index]!);
    }
  }
}
