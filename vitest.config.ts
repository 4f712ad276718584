import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    setupFiles: ['test/helpers/quiet-logs.ts', 'test/helpers/engines.ts'],
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
    // Packaged functions are imported by Node as Lambda would, not transformed (their maps name sources the zip lacks).
    server: { deps: { external: [/\/portcullis-[^/]+\/functions\/.*\.js$/] } },
    projects: [
      // The inner loop: sources only, no packaging (`npx vitest run test/unit`).
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      // What runs the packaged functions, the CLI or the local server: packaged once before any of it.
      {
        extends: true,
        test: {
          name: 'packaged',
          include: ['test/{integration,e2e,corpora}/**/*.test.ts'],
          globalSetup: ['test/helpers/package-once.ts'],
        },
      },
    ],
  },
});
