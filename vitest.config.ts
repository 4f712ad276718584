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

/**
 * Packaged files that need a process of their own: they import the sources after putting a setting the
 * sources read at import in the environment (their registry's CA, HTTP_CALL_HOSTS, the SSM parameter, the
 * rules folder the trust root is read from), or
 * need a main thread's stack, as Lambda gives (a worker thread's is larger: deep YAML parses there).
 */
const PACKAGED_OWN_PROCESS = [
  'test/e2e/packaged-rules-robustness.test.ts',
  'test/integration/kyverno-cel-image-metadata.test.ts',
  'test/integration/kyverno-http-calls.test.ts',
  'test/integration/kyverno-image-registry.test.ts',
  'test/integration/kyverno-image-validating-policy.test.ts',
  'test/integration/kyverno-verify-attestations.test.ts',
  'test/integration/kyverno-verify-certificates.test.ts',
  'test/integration/kyverno-verify-images.test.ts',
  'test/integration/kyverno-verify-keyless.test.ts',
  'test/integration/registry-credentials.test.ts',
  'test/integration/sigstore-cluster-image-policy.test.ts',
  'test/integration/sigstore-deployment-trust-root.test.ts',
  'test/integration/sigstore-policy-level.test.ts',
];

const PACKAGED = {
  // Run once for both projects (package-once.ts): a second packaging would empty folders the tests read.
  globalSetup: ['test/helpers/package-once.ts'],
  setupFiles: ['test/helpers/packaged-ready.ts', 'test/helpers/quiet-logs.ts', 'test/helpers/temporary-directories.ts'],
};

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
    // Files in threads share a worker's modules (Vitest reads this for every project, not per project): the
    // unit and packaged projects run there. The files that need a module graph of their own run in forks.
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
      // The groups run one after another, so no more files run at once than there are cores: tests that time
      // an answer against its deadline ran late with the threads and forks of two groups sharing two cores.
      {
        extends: true,
        test: {
          name: 'packaged',
          include: ['test/{integration,e2e,corpora}/**/*.test.ts'],
          exclude: PACKAGED_OWN_PROCESS,
          // Files share a worker's modules here too: each file unpacks its functions into a folder of its own,
          // so no two files share a packaged module, and importing the helpers again cost seconds per file.
          pool: 'threads',
          ...PACKAGED,
          setupFiles: [...PACKAGED.setupFiles, 'test/helpers/in-process-cli-loaded.ts'],
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: { name: 'packaged-own-process', include: PACKAGED_OWN_PROCESS, ...PACKAGED, sequence: { groupOrder: 2 } },
      },
    ],
  },
});
