import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The Temporal worker's native bridge misbehaves inside worker threads.
    pool: 'forks',
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
  },
});
