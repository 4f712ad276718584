// serverless-esbuild settings, read by serverless.yml. Output is an ESM bundle with a `.js` name: ESM
// cold-starts about 20% faster than CommonJS, and osls `invoke local` loads `.js`/`.cjs` but not `.mjs`.
// The Lambda runtime treats that `.js` as ESM only with a `package.json` of `"type": "module"` beside it
// in the zip, which functions/package.json (packaged with each function) provides.
module.exports = async () => ({
  bundle: true,
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  target: 'node22',
  platform: 'node',
  format: 'esm',
  outputFileExtension: '.js',
  mainFields: ['module', 'main'],
  keepNames: false,
  treeShaking: true,
  splitting: true,
  // serverless-esbuild keeps another function's files out of a zip by the prefix `<dir>/handler.`; chunks
  // named under that prefix stay in their own function's zip instead of landing in every one.
  chunkNames: 'handler.[name]-[hash]',
  exclude: [],
  // Some dependencies are CommonJS and call require() for Node built-ins; give the ESM bundle one.
  banner: { js: "import { createRequire as __portcullisCreateRequire } from 'node:module'; const require = __portcullisCreateRequire(import.meta.url);" },
  packager: 'npm',
  // Separate work folders let tests run `sls offline` and `sls invoke local` side by side: each build
  // empties its folder, which would pull the bundle from under the other.
  outputWorkFolder: process.env.ESBUILD_WORK_FOLDER || '.esbuild',
});
