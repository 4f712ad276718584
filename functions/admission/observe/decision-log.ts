// The decision line, written once per request through the stack's logger (INFO, so it obeys the log
// level): what was decided and why, never the object, so a Secret's data cannot reach the logs. Fields
// with no value are left out, as on every line.
import { logger } from './logger.js';

export const DECISION_MESSAGE = 'admission decision';

export type DecisionFields = Record<string, string | number | boolean | object | undefined>;

export function writeDecision(fields: DecisionFields): void {
  logger.info(DECISION_MESSAGE, fields);
}
