// esbuild plugins for the function bundles, read by serverless-esbuild (`plugins` in esbuild-config.cjs:
// a path, as plugin objects do not survive its merging of the options).
const { readFile } = require('node:fs/promises');
const { dirname, join } = require('node:path');

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

// esbuild puts the code a function's entry shares with its lazy modules into one chunk per set of importers.
// A lazy module (each engine's evaluator, CEL's mutation, Rego's GraphQL built-ins, the image verification
// that shares rule-reading helpers with the Kyverno engine, Kyverno CEL's HTTP calls) that reached only its
// own engine split the engines' code on the cold path into a chunk per engine and one for the runtime they
// share. Each is given
// here, at build time, the imports that give every lazy module the same importers: the stack's shared chunk
// and the engines' registry (every engine's entry), with the image lookups the stack installs and Kyverno's
// lazily loaded context loader reads (which the registry does not reach). Costless at run time (the entry
// has evaluated those before any lazy module loads), and no engine's source reaches the registry
// (test/unit/engine-boundaries).
// test/e2e/packaged-bundles.test.ts counts the chunks.
const LAZY_MODULES =
  /[\\/]functions[\\/](?:engines[\\/](?:[^\\/]+[\\/]evaluator|cel[\\/](?:mutate|image-validation[\\/]image-validation)|rego[\\/](?:builtins[\\/]graphql[\\/]documents|sigstore-target[\\/]sigstore-target)|runtime[\\/]answer-http-calls)|admission[\\/]image-verification[\\/](?:verified-images|image-data))\.ts$/;
const LAYOUT_IMPORTS = ['admission/shared-chunk.ts', 'engines/registry.ts', 'engines/runtime/image-lookups.ts']
  .map((file) => `import ${JSON.stringify(join(__dirname, '../functions', file))};`)
  .join(' ');
const engineLazyModulesShareOneChunk = {
  name: 'engine-lazy-modules-share-one-chunk',
  setup(build) {
    build.onLoad({ filter: LAZY_MODULES }, async ({ path }) => ({
      // On the first line, so that the source's own lines keep their numbers in the source map.
      contents: `${LAYOUT_IMPORTS} ${await readFile(path, 'utf8')}`,
      loader: 'ts',
      resolveDir: dirname(path),
    }));
  },
};

module.exports = [middyStreamsOnDemand, aws4CryptoOnDemand, engineLazyModulesShareOneChunk];
