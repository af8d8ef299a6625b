// The floor of `governed review-run` on this machine (bench/runner "floor"): ONLY the processes
// docs/formats.md#attestors and docs/runner.md#the-run-step-by-step make every run start, with no governed logic around them — Node's start, the two
// pinned attestors (the shipped @noble/ed25519 file-key attestor: Node start, bundle, private key,
// public-key derivation, i.e. noble's base-point table), the reviewer under bare bwrap with the same
// profile, and one `git ls-files` of the workspace. The attestors get a request they refuse after
// all of that, which skips only the final signature (≈ 0.4 ms measured). No SQLite, no claim, no
// drift re-hash, no statement, no verification: whatever review-run costs above this line is
// governed's; the line is what any one-process-per-run implementation of docs/runner.md pays here.
//
// Usage: node runner-floor.mjs <attestors-dir> <reviewer-file> <repo>
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { bareRunMs } from '../runner-bare.js';

const [attestors, reviewer, repo] = process.argv.slice(2) as [string, string, string];

function run(cmd: string, args: string[], input?: string, cwd?: string): Promise<void> {
  return new Promise((resolve) => {
    const c = spawn(cmd, args, { env: { PATH: '/usr/bin:/bin' }, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    c.stdout.resume();
    c.stderr.resume();
    // A program may exit without reading its input (git never reads it): EPIPE is not a failure here.
    c.stdin.on('error', () => undefined);
    c.stdin.end(input ?? '');
    c.on('close', () => resolve());
  });
}

const signers = ['reviewer', 'runner'].map((c) => run('/usr/bin/node', [`${attestors}/${c}.mjs`, `${attestors}/${c}.json`], '{}'));
await bareRunMs(readFileSync(reviewer));
await run('/usr/bin/git', ['ls-files', '-s', '-z'], undefined, repo);
await Promise.all(signers);
