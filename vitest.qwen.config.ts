import { defineConfig } from 'vitest/config';

/** The opt-in tier on Qwen2.5-Coder-1.5B (`npm run test:qwen`): one file at a time, since the model takes the CPU. */
export default defineConfig({
  test: {
    pool: 'forks',
    include: ['test/qwen/**/*.test.ts'],
    fileParallelism: false,
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 1_200_000,
    hookTimeout: 600_000,
  },
});
