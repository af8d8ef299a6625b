// Run ci/gate.sh (the script behind action.yml and the GitLab template, docs/ci.md) as a CI runner
// does: inputs in the environment, outputs appended to the $GITHUB_OUTPUT file.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, REPO_ROOT } from './cli.js';

/** Run ci/gate.sh the way a CI runner does: inputs in the environment, outputs to a file. */
export function runGateScript(env: Record<string, string>, cwd: string): { code: number | null; stdout: string; outputs: Record<string, string> } {
  const outDir = mkdtempSync(join(tmpdir(), 'gvd-eco-ghout-'));
  const outputs = join(outDir, 'out');
  const r = spawnSync('bash', [join(REPO_ROOT, 'ci', 'gate.sh')], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GITHUB_OUTPUT: outputs, GOVERNED_COMMAND: `${process.execPath} ${CLI}`, ...env },
  });
  const lines = existsSync(outputs) ? readFileSync(outputs, 'utf8').trim().split('\n') : [];
  rmSync(outDir, { recursive: true, force: true });
  return { code: r.status, stdout: r.stdout, outputs: Object.fromEntries(lines.filter(Boolean).map((l) => l.split('=') as [string, string])) };
}

