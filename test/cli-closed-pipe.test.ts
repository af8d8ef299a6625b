// A reader that closes its end of the pipe early (`governed … | head`): the command neither crashes
// with an unhandled EPIPE nor changes its exit code (docs/commands.md#exit-codes).
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { CLI } from './helpers/cli.js';

function runWithClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1', GOVERNED_HOME: '/nonexistent/governed-closed-pipe' } });
    c.stdout.destroy(); // the reader is gone before the first write
    let stderr = '';
    c.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    c.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('stdout closed by the reader', () => {
  for (const args of [['--help'], ['gate', '--help'], ['audit', '--help'], ['help', 'unit']]) {
    it(`governed ${args.join(' ')}: exit 0, no unhandled error`, async () => {
      const r = await runWithClosedStdout(args);
      expect(r.stderr).not.toMatch(/Unhandled|EPIPE|node:events/);
      expect(r.code).toBe(0);
    });
  }
  it('a refusal keeps its own exit code (status without a store: not 0)', async () => {
    const r = await runWithClosedStdout(['status', '--json']);
    expect(r.stderr).not.toMatch(/Unhandled|EPIPE|node:events/);
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBe(1);
  });
});
