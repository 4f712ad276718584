// What an AWS call failed with, as people read it in logs and fail-open messages: the service's error code,
// the HTTP status and the service's message; never a stack. Works for the functions' own calls (AwsError)
// and for the AWS SDK's errors, which the policy CLI gets.

/** An AWS API answered with an error: `name` is its error code (NoSuchKey, SlowDown, ParameterNotFound). */
export class AwsError extends Error {
  constructor(
    name: string,
    message: string,
    readonly statusCode: number,
  ) {
    super(message);
    this.name = name;
  }
}

/** The name of an error answer that carries no error code (a proxy's bare 503): `ServiceUnavailable`. */
export function errorNameForStatus(status: number): string {
  // node:http taken when needed: it loads only for the first call (signed-request.ts).
  const { STATUS_CODES } = process.getBuiltinModule('node:http') as typeof import('node:http');
  return (STATUS_CODES[status] ?? 'Error').replace(/\W/g, '');
}

/** The HTTP status an AWS error carries, if any (ours, or the SDK's `$metadata`). */
export function httpStatusOf(error: unknown): number | undefined {
  if (error instanceof AwsError) return error.statusCode;
  return (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

/** `SlowDown (HTTP 503): Please reduce your request rate.`, or `Error: connect ECONNREFUSED …`. */
export function describeAwsError(error: unknown): string {
  const status = httpStatusOf(error);
  const name = (error as Error)?.name ?? 'Error';
  const message = (error as Error)?.message || name;
  return status ? `${name} (HTTP ${status}): ${message}` : `${name}: ${message}`;
}
