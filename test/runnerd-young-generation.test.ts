// Guards the bound on the young generation of the daemon and its sandbox host (docs/performance.md#the-daemons-memory-over-many-runs).
// boundYoungGeneration(), bundled from its source, runs first in a fresh node that then allocates
// objects which survive scavenges: V8's young generation (new_space's committed size) must stay at
// its starting semi-space size (V8 reports one semi-space at start, both once the first scavenge ran:
// at most twice the start). Control: the same process without the call grows it far past that
// (V8's default doubles each semi-space up to 16 MiB).
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { REPO_ROOT } from './helpers/cli.js';

const PROGRAM = `
import { getHeapSpaceStatistics } from 'node:v8';
import { boundYoungGeneration } from './young-generation.mjs';
if (process.argv[2] === 'bound') boundYoungGeneration();
const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
const start = young();
let keep = [];
for (let i = 0; i < 2e6; i++) {
  keep.push({ i, s: 'x' + i });
  if (keep.length > 200000) keep = keep.slice(100000);
}
process.stdout.write(JSON.stringify({ start, end: young(), kept: keep.length }));
`;

describe('the daemon and sandbox host young generation', () => {
  it('stays at its starting semi-spaces with boundYoungGeneration(), and grows without it (control)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gvd-young-'));
    try {
      await build({
        entryPoints: [join(REPO_ROOT, 'src', 'flows', 'runnerd', 'young-generation.ts')],
        bundle: true,
        platform: 'node',
        format: 'esm',
        outfile: join(dir, 'young-generation.mjs'),
        logLevel: 'silent',
      });
      writeFileSync(join(dir, 'program.mjs'), PROGRAM);
      const run = (mode: string): { start: number; end: number } => {
        const r = spawnSync(process.execPath, [join(dir, 'program.mjs'), mode], { encoding: 'utf8' });
        expect(r.status, r.stderr).toBe(0);
        return JSON.parse(r.stdout) as { start: number; end: number };
      };
      const bound = run('bound');
      const control = run('control');
      expect(bound.end).toBeLessThanOrEqual(2 * bound.start);
      expect(control.end).toBeGreaterThan(4 * control.start);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
