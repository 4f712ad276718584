// One Powertools logger for the stack: structured JSON lines in CloudWatch, level from POWERTOOLS_LOG_LEVEL.
import { Logger } from '@aws-lambda-powertools/logger';

export const logger = new Logger({ serviceName: 'portcullis' });
