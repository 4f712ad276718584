// esbuild plugins for the function bundles, read by serverless-esbuild (`plugins` in esbuild-config.cjs:
// a path, as plugin objects do not survive its merging of the options).
const { join } = require('node:path');

// @middy/core imports node:stream/web and node:stream/promises for streamed responses (streamifyResponse),
// which Portcullis never asks for, yet loading them cost every cold start. Its imports of those two
// resolve to functions/admission/middy-streams-on-demand.ts, which loads them when first used.
const middyStreamsOnDemand = {
  name: 'middy-streams-on-demand',
  setup(build) {
    build.onResolve({ filter: /^node:stream\/(web|promises)$/ }, ({ importer }) =>
      /[\\/]@middy[\\/]core[\\/]/.test(importer)
        ? { path: join(__dirname, '../functions/admission/middy-streams-on-demand.ts') }
        : undefined,
    );
  },
};

// aws4 requires node:crypto as it loads; it is in every function's entry, for the S3 and SSM calls made
// during init. Its require resolves to functions/admission/aws/aws4-crypto-on-demand.ts, which loads
// node:crypto on the first signature, so a function that never signs never loads it.
const aws4CryptoOnDemand = {
  name: 'aws4-crypto-on-demand',
  setup(build) {
    build.onResolve({ filter: /^crypto$/ }, ({ importer }) =>
      /[\\/]aws4[\\/]/.test(importer) ? { path: join(__dirname, '../functions/admission/aws/aws4-crypto-on-demand.ts') } : undefined,
    );
  },
};

module.exports = [middyStreamsOnDemand, aws4CryptoOnDemand];
