// `--now <time>`: the clock handed to policies (deploy-windows), for `invoke` and `audit`.
import { UsageError } from './cli-errors.js';

export function parseNow(text: string | undefined): Date | undefined {
  if (text === undefined) return undefined;
  const now = new Date(text);
  if (Number.isNaN(now.getTime())) throw new UsageError(`--now ${text}: not a time; expected ISO 8601 such as 2026-12-24T10:00:00Z`);
  return now;
}
