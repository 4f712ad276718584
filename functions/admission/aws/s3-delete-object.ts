// S3 DeleteObject as the background audit needs it, for a namespace's report that has no findings any more:
// S3's error codes as AwsErrors; deleting an object that is not there is not an error (S3 answers 204 too).
import { s3Error, s3ObjectUrl } from './s3-get-object.js';
import { regionFromEnv, sendSigned, withOneRetry } from './signed-request.js';

/** Calls in `region` (default: Lambda's own), at `endpoint` when given (a local or compatible service). */
export function s3ObjectDeleter({ region = regionFromEnv(), endpoint }: { region?: string; endpoint?: string } = {}) {
  async function attempt({ bucket, key }: { bucket: string; key: string }): Promise<void> {
    const response = await sendSigned({
      service: 's3',
      region,
      method: 'DELETE',
      url: s3ObjectUrl(bucket, key, region, endpoint),
      headers: {},
    });
    if (response.statusCode !== 204 && response.statusCode !== 200) throw await s3Error(response);
    response.resume();
  }
  return (input: { bucket: string; key: string }) => withOneRetry(() => attempt(input));
}
