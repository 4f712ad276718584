// One Powertools logger for the stack: structured JSON lines in CloudWatch, level from POWERTOOLS_LOG_LEVEL.
import { Logger } from '@aws-lambda-powertools/logger';

/** The `service` of every log line, and the dimension of that name Powertools adds to every metric. */
export const SERVICE_NAME = 'portcullis';

export const logger = new Logger({ serviceName: SERVICE_NAME });
