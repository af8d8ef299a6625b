// Run the bundled CLI as a real child process (npm test builds dist/ first).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// GOVERNED_CLI lets one engineer test a private build without touching the shared dist/.
export const CLI = process.env.GOVERNED_CLI ?? join(REPO_ROOT, 'dist', 'governed.mjs');
export const ATTESTOR = join(REPO_ROOT, 'attestors', 'ed25519-file.mjs');

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function runCli(args: readonly string[], opts: { cwd?: string; env?: Record<string, string>; input?: string } = {}): CliResult {
  if (!existsSync(CLI)) throw new Error('dist/governed.mjs missing: run `npm run build` (npm test does it)');
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: opts.cwd ?? REPO_ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1', ...(process.env.NODE_PATH ? { NODE_PATH: process.env.NODE_PATH } : {}), ...opts.env },
    input: opts.input ?? '',
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Parse the single JSON object a `--json` command prints. */
export function jsonOut(r: CliResult): Record<string, unknown> {
  const lines = r.stdout.trim().split('\n');
  if (lines.length !== 1) throw new Error(`expected one JSON line, got ${lines.length}`);
  return JSON.parse(lines[0] as string) as Record<string, unknown>;
}
