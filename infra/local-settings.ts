// The local stack's fixed settings, shared by `npm start` and `npm run policy -- ... --local`.
export const LOCAL_BUCKET = 'portcullis-rules';
export const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export function localS3Port(env: NodeJS.ProcessEnv = process.env): number {
  return Number(env.S3_PORT || 4568);
}

export function localS3Endpoint(env: NodeJS.ProcessEnv = process.env): string {
  return `http://127.0.0.1:${localS3Port(env)}`;
}

/** Where the local stack keeps its state (s3rver data, TLS material); git-ignored. */
export function localDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.LOCAL_DIR || '.local';
}
