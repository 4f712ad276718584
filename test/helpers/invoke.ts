// Calling a handler the way API Gateway does and reading its answer, for the stack and end-to-end tests.
import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEventV2, APIGatewayProxyResult, Context } from 'aws-lambda';
import { admissionReviewFor, httpApiEvent, type ReviewOptions } from '../../infra/admission-event.js';

export type Handler = (event: unknown, context: Context) => Promise<APIGatewayProxyResult>;

export interface Answer {
  statusCode: number;
  headers: Record<string, unknown>;
  body: any;
}

export function lambdaContext(remainingMs = 10_000): Context {
  const deadline = Date.now() + remainingMs;
  return { functionName: 'test', awsRequestId: 'test', getRemainingTimeInMillis: () => deadline - Date.now() } as unknown as Context;
}

export async function invoke(handler: Handler, event: unknown, context = lambdaContext()): Promise<Answer> {
  const result = await handler(event, context);
  return { statusCode: result.statusCode, headers: (result.headers ?? {}) as Record<string, unknown>, body: JSON.parse(result.body) };
}

export function fixture(policy: string, name: string): APIGatewayProxyEventV2 {
  return JSON.parse(readFileSync(`events/${policy}/${name}`, 'utf8')) as APIGatewayProxyEventV2;
}

export function podManifest(images: Record<string, string>, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'test-pod', labels: { app: 'test' } },
    spec: { containers: Object.entries(images).map(([name, image]) => ({ name, image })), ...extra },
  };
}

/** A Pod `web` in `default` running the images, one container each (`c0`, `c1`, …). */
export const podRunning = (...images: string[]) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default' },
  spec: { containers: images.map((image, index) => ({ name: `c${index}`, image })) },
});

export function eventFor(manifest: unknown, options: ReviewOptions = {}, timeout?: string): APIGatewayProxyEventV2 {
  return httpApiEvent(JSON.stringify(admissionReviewFor(manifest, options)), { timeout, timeEpoch: Date.now() });
}
