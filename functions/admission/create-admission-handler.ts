// Assembles one policy's Lambda handler. The onion, outermost first:
//   injectLambdaContext  before: adds the Lambda request id, function name and cold start to every log line
//                        (never the event: it holds the object, and a Secret's data must not reach the logs)
//   jsonHttpResponse     after: result → 200 JSON; onError: HttpError → its status, anything else → bare 500
//   normaliseEvent       before: API Gateway v1/v2 event → { body, receivedAtMs, apiserverTimeoutMs } (405/413/415/400)
//   parseAdmissionReview before: body → AdmissionReview (400 naming the field)
//   decideAdmission      handler: rules + policy under the deadline, failure policy, decision log
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import type { ApiGatewayEvent } from './api-gateway-event.js';
import { type Config, configFromEnv } from './config.js';
import { createDecideAdmission } from './decide-admission.js';
import { directoryRulesSource } from './directory-rules-source.js';
import { logger } from './logger.js';
import { type AdmissionEvent, jsonHttpResponse, normaliseEvent, parseAdmissionReview } from './middlewares.js';
import type { Policy } from './policy.js';
import { createRulesLoader } from './rules-loader.js';
import type { RulesSource } from './rules-source.js';

export interface HandlerOptions {
  config?: Config;
  rulesSource?: RulesSource;
}

export type AdmissionHandler = (event: ApiGatewayEvent, context: Context) => Promise<APIGatewayProxyResult>;

export function createAdmissionHandler<P>(policy: Policy<P>, options: HandlerOptions = {}): AdmissionHandler {
  const config = options.config ?? configFromEnv();
  const rulesSource = options.rulesSource ?? directoryRulesSource(config.RULES_DIR);
  const decide = createDecideAdmission(policy, createRulesLoader(policy, rulesSource), config);
  const handler = middy()
    .use(injectLambdaContext(logger, { logEvent: false }))
    .use(jsonHttpResponse())
    .use(normaliseEvent())
    .use(parseAdmissionReview())
    .handler((event: unknown, context: Context) => decide(event as AdmissionEvent, context));
  return handler as unknown as AdmissionHandler;
}
