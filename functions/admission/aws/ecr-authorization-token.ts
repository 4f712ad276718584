// ECR GetAuthorizationToken with the function's own role: one signed JSON POST, answering the registry's
// username and password (`AWS` and a token) and when they expire. Errors come back as AwsErrors named by
// ECR's error type (AccessDeniedException, …); the token never appears in one.
import { AwsError, errorNameForStatus } from './aws-error.js';
import { endpointSuffix, readText, sendSigned, withOneRetry } from './signed-request.js';

export interface EcrAuthorization {
  username: string;
  password: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

/** Calls ECR's API in `region`, at `endpoint` when given (a local or compatible service). */
export function ecrAuthorizationReader({ endpoint }: { endpoint?: string } = {}) {
  async function attempt(registryId: string, region: string, signal: AbortSignal): Promise<EcrAuthorization> {
    const url = new URL(endpoint ?? `https://api.ecr.${region}.${endpointSuffix(region)}/`);
    const response = await sendSigned({
      signal,
      service: 'ecr',
      region,
      method: 'POST',
      url,
      headers: {
        'Content-Type': 'application/x-amz-json-1.1',
        'X-Amz-Target': 'AmazonEC2ContainerRegistry_V20150921.GetAuthorizationToken',
      },
      body: JSON.stringify({ registryIds: [registryId] }),
    });
    const status = response.statusCode ?? 0;
    const text = await readText(response, 64 * 1024);
    let answer: { __type?: string; message?: string; authorizationData?: { authorizationToken?: unknown; expiresAt?: unknown }[] } = {};
    try {
      answer = JSON.parse(text);
    } catch {
      // not JSON (a proxy's error page): described by its status below
    }
    if (status !== 200)
      throw new AwsError(answer.__type?.split('#').pop() || errorNameForStatus(status), answer.message ?? `HTTP ${status}`, status);
    const data = answer.authorizationData?.[0];
    const decoded = typeof data?.authorizationToken === 'string' ? Buffer.from(data.authorizationToken, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    if (colon <= 0 || typeof data?.expiresAt !== 'number')
      throw new AwsError('InvalidResponse', 'ECR answered no authorization token', status);
    return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1), expiresAt: data.expiresAt * 1000 };
  }
  // `signal`: the request's deadline, as this is read on a request's path.
  return (registryId: string, region: string, signal: AbortSignal) => withOneRetry(() => attempt(registryId, region, signal), signal);
}
