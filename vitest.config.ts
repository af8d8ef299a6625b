import { defineConfig } from 'vitest/config';

// Tests run real child processes (the bundled CLI, attestors, openssl, bwrap): give them room,
// and keep concurrency modest on the 2-core machines this runs on.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Every test file runs with its own TMPDIR; a file that leaves anything there fails the run.
    globalSetup: ['test/setup/temp-root.ts'],
    setupFiles: ['test/setup/temp-per-file.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
