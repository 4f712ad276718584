// An EKS bearer token, as aws-iam-authenticator and `aws eks get-token` make it: a presigned STS
// GetCallerIdentity request (GET, valid 60 s) whose signed headers include `x-k8s-aws-id: <cluster>`, its
// URL base64url-encoded without padding behind `k8s-aws-v1.`. The API server has STS verify it and maps the
// IAM identity it names (the function's role) to a Kubernetes user and groups: an EKS access entry, or
// aws-auth. Signed with the function's own credentials; no AWS SDK.
import aws4 from 'aws4';
import { credentialsFromEnv, endpointSuffix, regionFromEnv } from '../admission/aws/signed-request.js';

export const TOKEN_PREFIX = 'k8s-aws-v1.';
/** What the API server accepts at most, and what aws-iam-authenticator signs with. */
const EXPIRES_SECONDS = 60;

export interface EksTokenOptions {
  cluster: string;
  region?: string;
  /** An STS-compatible endpoint (tests); default the region's STS. */
  stsEndpoint?: string;
}

export function eksToken({ cluster, region = regionFromEnv(), stsEndpoint }: EksTokenOptions): string {
  const sts = new URL(stsEndpoint ?? `https://sts.${region}.${endpointSuffix(region)}`);
  const signed = aws4.sign(
    {
      service: 'sts',
      region,
      method: 'GET',
      host: sts.host,
      path: `/?Action=GetCallerIdentity&Version=2011-06-15&X-Amz-Expires=${EXPIRES_SECONDS}`,
      headers: { 'x-k8s-aws-id': cluster },
      signQuery: true,
    },
    credentialsFromEnv(),
  );
  const url = `${sts.protocol}//${sts.host}${signed.path}`;
  return `${TOKEN_PREFIX}${Buffer.from(url).toString('base64url')}`;
}
