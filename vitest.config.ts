import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

const UNIT = { setupFiles: ['test/helpers/quiet-logs.ts', 'test/helpers/temporary-directories.ts'] };

/**
 * Unit files that need a module graph of their own: they test what importing does (libraries registered or
 * loaded on first use, settings read from the environment at import) or change the process's environment.
 */
const OWN_MODULE_GRAPH = [
  'test/unit/cel-libraries-on-demand.test.ts',
  'test/unit/aws-requests.test.ts',
  'test/unit/logger.test.ts',
  'test/unit/ecr-credentials.test.ts',
];

export default defineConfig({
  test: {
    // Tests that read metric lines turn them back on for the handler they import.
    env: {
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      PACKAGE_FOLDER: '.serverless-test',
    },
    testTimeout: 20_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Only the unit project runs in threads, and there files share a worker's modules (see below).
    // A test that reads rules documents synchronously imports test/helpers/engines.ts itself: loading them
    // for every file was most of the packaged files' setup, and most of them never read a document.
    poolOptions: { threads: { isolate: false } },
    // Vitest leaves a core free by default: on a 2-core machine that is one worker.
    maxWorkers: availableParallelism(),
    minWorkers: 1,
    // Packaged functions are imported by Node as Lambda would, not transformed (their maps name sources the zip lacks).
    server: { deps: { external: [/\/portcullis-[^/]+\/functions\/.*\.js$/] } },
    projects: [
      // The inner loop: sources only, no packaging (`npx vitest run test/unit`).
      // Threads start faster than forks, and no unit test needs a process of its own. Most files share one
      // module graph per worker: importing the engines again for every file was more than half the loop.
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], exclude: OWN_MODULE_GRAPH, pool: 'threads', ...UNIT },
      },
      { extends: true, test: { name: 'unit-own-graph', include: OWN_MODULE_GRAPH, pool: 'forks', ...UNIT } },
      // What runs the packaged functions, the CLI or the local server: packaged once, beside the unit tests.
      {
        extends: true,
        test: {
          name: 'packaged',
          include: ['test/{integration,e2e,corpora}/**/*.test.ts'],
          globalSetup: ['test/helpers/package-once.ts'],
          setupFiles: ['test/helpers/packaged-ready.ts', 'test/helpers/quiet-logs.ts', 'test/helpers/temporary-directories.ts'],
        },
      },
    ],
  },
});
