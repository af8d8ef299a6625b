import { defineConfig } from 'vitest/config';

// Tests run real child processes (the bundled CLI, attestors, openssl, bwrap): give them room,
// and keep concurrency modest on the 2-core machines this runs on.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
