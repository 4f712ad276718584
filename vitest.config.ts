import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/package-once.ts'],
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT' },
    testTimeout: 20_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
