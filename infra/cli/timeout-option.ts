// `--timeout <duration>`: how long each test case of `policy test` may run, as `opa test --timeout` (5s by
// default), written as Go writes durations (`500ms`, `5s`, `1m`).
import { parseGoDuration } from '../../functions/admission/kubernetes/go-duration.js';
import { UsageError } from './cli-errors.js';

export const DEFAULT_TEST_TIMEOUT = '5s';

export function parseTimeout(text: string): number {
  const nanoseconds = parseGoDuration(text);
  if (nanoseconds === undefined || nanoseconds <= 0n)
    throw new UsageError(`--timeout ${text}: not a duration; expected a positive one such as 5s, 500ms or 1m`);
  return Number(nanoseconds / 1_000_000n) || 1;
}
