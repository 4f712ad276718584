import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

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
    // Vitest leaves a core free by default: on a 2-core machine that is one worker.
    maxWorkers: availableParallelism(),
    minWorkers: 1,
    // Packaged functions are imported by Node as Lambda would, not transformed (their maps name sources the zip lacks).
    server: { deps: { external: [/\/portcullis-[^/]+\/functions\/.*\.js$/] } },
    projects: [
      // The inner loop: sources only, no packaging (`npx vitest run test/unit`).
      // Threads start faster than forks, and no unit test needs a process of its own.
      // A unit test that reads rules documents synchronously imports test/helpers/engines.ts itself.
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], pool: 'threads', setupFiles: ['test/helpers/quiet-logs.ts'] },
      },
      // What runs the packaged functions, the CLI or the local server: packaged once before any of it.
      {
        extends: true,
        test: {
          name: 'packaged',
          include: ['test/{integration,e2e,corpora}/**/*.test.ts'],
          globalSetup: ['test/helpers/package-once.ts'],
          setupFiles: ['test/helpers/quiet-logs.ts', 'test/helpers/engines.ts'],
        },
      },
    ],
  },
});
