// serverless-esbuild settings, read by serverless.yml. Output is an ESM bundle with a `.js` name: ESM
// cold-starts faster than CommonJS (npm run bench prints both), and osls `invoke local` loads `.js`/`.cjs` but not `.mjs`.
// The Lambda runtime treats that `.js` as ESM only with a `package.json` of `"type": "module"` beside it
// in the zip, which functions/package.json (packaged with each function) provides.
const { removeZipStagingAtExit } = require('./zip-staging-cleanup.cjs');

removeZipStagingAtExit();

const config = async () => ({
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
  // Bundled CommonJS dependencies (yaml, aws4) require() only Node built-ins. An ESM bundle has no
  // `require`; this one hands out built-ins without importing node:module, which cost every cold start
  // even in functions that never reach that code. test/e2e/packaged-bundles.test.ts loads every
  // file of every zip, so a dependency that needs more fails there.
  banner: {
    js: 'const require = (id) => { const builtin = process.getBuiltinModule(id); if (builtin === undefined) throw new Error(`bundled code requires ${id}, which is not a Node built-in`); return builtin; };',
  },
  plugins: 'infra/esbuild-plugins.cjs',
  packager: 'npm',
  // Each build empties its work folder, which would pull the bundle from under a running `sls offline`:
  // every command builds in its own (ESBUILD_WORK_FOLDER lets tests and tools name theirs).
  outputWorkFolder: process.env.ESBUILD_WORK_FOLDER || workFolderOf(process.argv),
  // `sls offline` rebuilds on a change and then drops every warm instance with its cached rules. The default
  // pattern (every .js/.ts under the project) reloads on another build's output or a test's scratch file;
  // only the functions' own sources should.
  watch: { pattern: ['functions/**/*.ts'], ignore: ['node_modules', '.esbuild*'] },
});

/** `.esbuild-offline` and `.esbuild-invoke` for the commands that run functions; `.esbuild` for package and deploy. */
function workFolderOf(argv) {
  const command = argv.slice(2).find((arg) => arg === 'offline' || arg === 'invoke');
  return command ? `.esbuild-${command}` : '.esbuild';
}

module.exports = config;
module.exports.workFolderOf = workFolderOf;
