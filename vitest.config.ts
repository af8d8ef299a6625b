import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

// Tests run real child processes (the bundled CLI, attestors, openssl, bwrap): give them room,
// and keep concurrency modest on the 2-core machines this runs on.
// Tests that import src/ directly see the version the build injects (src/core/version.ts).
const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  define: { __GOVERNED_VERSION__: JSON.stringify(version) },
  test: {
    include: ['test/**/*.test.ts'],
    // After all files: no sandbox process may be left behind (test/global/sandbox-leftovers.ts), and
    // every test file runs with its own TMPDIR; a file that leaves anything there fails the run.
    globalSetup: ['test/global/sandbox-leftovers.ts', 'test/setup/temp-root.ts'],
    setupFiles: ['test/setup/temp-per-file.ts'],
    // Room for the leftover check's 10 s wait on processes still dying (vitest's default is 10 s).
    teardownTimeout: 30_000,
    testTimeout: 60_000,
    // A story-building beforeAll (test/gate-world.ts: dozens of real CLI runs) took over 60 s on 2 cores
    // at load average ≈ 10 (test/gate-refusals, test/receipt-signer-credential-keys): a bound on a hang,
    // not on speed, so it has room for a loaded machine.
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
