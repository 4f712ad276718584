// Where a policy's rules document comes from. A source hands back the raw text and a version that changes
// whenever the text does; parsing, validation and caching by version are the rules loader's.
export interface RawRules {
  text: string;
  /** Content hash (directory) or ETag / VersionId (S3): recorded with every decision. */
  version: string;
}

export interface RulesSource {
  /** Where the rules of `policyName` live, for messages. */
  describe(policyName: string): string;
  load(policyName: string): Promise<RawRules>;
}

/** The rules could not be had at all (missing object, unreadable file): never the same as "no rules". */
export class RulesUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RulesUnavailableError';
  }
}
