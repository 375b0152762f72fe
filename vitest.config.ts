import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The Temporal worker's native bridge misbehaves inside worker threads.
    pool: 'forks',
    include: ['test/**/*.test.ts'],
    // The Qwen tier takes a quarter of an hour of CPU: opt-in, `npm run test:qwen` (vitest.qwen.config.ts).
    exclude: ['test/qwen/**', '**/node_modules/**'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
  },
});
