// Builds what the apiserver would send for a manifest: the AdmissionReview (functions/audit/admission-review-for.ts),
// wrapped in an API Gateway HTTP API (payload 2.0) event. Used by `portcullis event`, the tests and the benchmarks alike.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

export { admissionReviewFor, type ReviewOptions } from '../functions/audit/admission-review-for.js';

export interface EventOptions {
  policy?: string;
  path?: string;
  /** The apiserver's `?timeout=` (e.g. `10s`); fixtures leave it out so they never go stale. */
  timeout?: string;
  timeEpoch?: number;
}

export function httpApiEvent(body: string, options: EventOptions = {}): APIGatewayProxyEventV2 {
  const path = options.path ?? `/validate/${options.policy ?? 'trusted-registry'}`;
  const timeEpoch = options.timeEpoch ?? Date.UTC(2026, 0, 1);
  return {
    version: '2.0',
    routeKey: `POST ${path}`,
    rawPath: path,
    rawQueryString: options.timeout ? `timeout=${options.timeout}` : '',
    ...(options.timeout ? { queryStringParameters: { timeout: options.timeout } } : {}),
    headers: {
      'content-type': 'application/json',
      'user-agent': 'kube-apiserver-admission',
      'content-length': String(Buffer.byteLength(body)),
    },
    requestContext: {
      accountId: '123456789012',
      apiId: 'portcullis',
      domainName: 'portcullis.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'portcullis',
      http: { method: 'POST', path, protocol: 'HTTP/1.1', sourceIp: '192.0.2.10', userAgent: 'kube-apiserver-admission' },
      requestId: 'fixture',
      routeKey: `POST ${path}`,
      stage: '$default',
      time: new Date(timeEpoch).toUTCString(),
      timeEpoch,
    },
    body,
    isBase64Encoded: false,
  };
}
