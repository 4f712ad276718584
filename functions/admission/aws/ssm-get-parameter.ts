// SSM GetParameter (decrypted) for the webhook tokens: one signed JSON POST. Errors come back as AwsErrors
// named by SSM's error type (ParameterNotFound, AccessDeniedException, ThrottlingException, …).
import { AwsError, errorNameForStatus } from './aws-error.js';
import { endpointSuffix, readText, regionFromEnv, sendSigned, withOneRetry } from './signed-request.js';

/** Calls in `region` (default: Lambda's own), at `endpoint` when given (a local or compatible service). */
export function ssmParameterReader({ region = regionFromEnv(), endpoint }: { region?: string; endpoint?: string } = {}) {
  const url = new URL(endpoint ?? `https://ssm.${region}.${endpointSuffix(region)}/`);
  async function attempt(name: string, signal?: AbortSignal): Promise<string | undefined> {
    const response = await sendSigned({
      ...(signal ? { signal } : {}),
      service: 'ssm',
      region,
      method: 'POST',
      url,
      headers: { 'Content-Type': 'application/x-amz-json-1.1', 'X-Amz-Target': 'AmazonSSM.GetParameter' },
      body: JSON.stringify({ Name: name, WithDecryption: true }),
    });
    const status = response.statusCode ?? 0;
    const text = await readText(response, 1024 * 1024);
    let answer: { __type?: string; message?: string; Message?: string; Parameter?: { Value?: string } } = {};
    try {
      answer = JSON.parse(text);
    } catch {
      // not JSON (a proxy's error page): described by its status below
    }
    if (status !== 200) {
      // `__type` may carry a namespace: `com.amazonaws.ssm#ParameterNotFound`.
      const type = answer.__type?.split('#').pop() || errorNameForStatus(status);
      throw new AwsError(type, answer.message ?? answer.Message ?? `HTTP ${status}`, status);
    }
    return answer.Parameter?.Value;
  }
  // `signal`: the caller's deadline, for a read made on a request's path.
  return (name: string, signal?: AbortSignal) => withOneRetry(() => attempt(name, signal));
}
