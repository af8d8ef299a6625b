// A FIFO where a command expects a regular file is refused with a code at once, never a hang (opening a
// FIFO for reading blocks until a writer appears): caller-named inputs (src/flows/read-file.ts),
// `authority sign --key`, and the files review-run opens after its claim (docs/threat-model.md#fail-closed).
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeStore, initStore } from '../src/store/index.js';
import { CLI, runCli } from './helpers/cli.js';
import { bytesOf, cleanupDirs as cleanupAuthorityDirs, policyDoc, tempDir as authorityTempDir, world } from './authority-helpers.js';
import { cleanupDirs, tempDir } from './state-helpers.js';
import { errorCode, expectAborted, expectNoSecrets, headSeq, issue, makeRunWorld, runReviewAsync, storeDigest, waitForStatus, type RunWorld } from './run-helpers.js';
import { probePinned, readPinned } from '../runner/pinned-file.js';
import { makeTempDir } from './helpers/temp.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function fifoIn(): { dir: string; fifo: string } {
  const dir = makeTempDir('governed-fifo-');
  dirs.push(dir);
  const fifo = join(dir, 'input.fifo');
  execFileSync('mkfifo', ['-m', '0600', fifo]);
  return { dir, fifo };
}

// Only through a child process: an in-process open of a FIFO would block the test worker itself.
describe('readInputFile on a FIFO', () => {
  it('governed init --policy FIFO answers input_unreadable, exit 2, creates no store', () => {
    const { dir, fifo } = fifoIn();
    const home = join(dir, 'state');
    const r = spawnSync(process.execPath, [CLI, 'init', '--policy', fifo, '--trust', fifo, '--home', home, '--json'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' },
      timeout: 10_000,
    });
    expect(r.signal, 'init blocked on the FIFO and was killed').toBeNull();
    expect(r.status).toBe(2);
    expect(JSON.parse(r.stdout.trim())).toMatchObject({ ok: false, error: { code: 'input_unreadable' } });
    expect(existsSync(join(home, 'governed.db'))).toBe(false);
  });
});

// `authority sign --key` naming a FIFO: input_unreadable (2), nothing prompted or written.
describe('authority sign with a FIFO where the key file is expected', () => {
  afterEach(cleanupAuthorityDirs);

  it('refuses with input_unreadable instead of blocking', () => {
    const w = world();
    const dir = authorityTempDir();
    const home = join(dir, 'state');
    closeStore(initStore(home, { policyBytes: bytesOf(policyDoc()), trustBytes: bytesOf(w.trust), now: Math.floor(Date.now() / 1000) }));
    const presentation = join(dir, 'req.json');
    const req = runCli(['authority', 'request', '--operation', 'policy_update', '--state-after', `sha256:${'1'.repeat(64)}`, '--out', presentation, '--home', home, '--json'], { cwd: dir });
    expect(req.code, req.stderr).toBe(0);
    const fifo = join(dir, 'key.fifo');
    execFileSync('mkfifo', ['-m', '0600', fifo]);
    const out = join(dir, 'record.json');
    const r = spawnSync(process.execPath, [CLI, 'authority', 'sign', '--request', presentation, '--key', fifo, '--out', out, '--json'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' },
      input: '',
      timeout: 10_000,
    });
    expect(r.signal, 'authority sign blocked on the FIFO and was killed').toBeNull();
    expect(r.status).toBe(2);
    expect(JSON.parse(r.stdout.trim())).toMatchObject({ ok: false, error: { code: 'input_unreadable', ids: ['key'] } });
    expect(existsSync(out)).toBe(false);
    expect(readFileSync(presentation).length).toBeGreaterThan(0);
  });
});

// review-run: the reviewer program (runner/pinned-file.ts) and an attestor configuration (same
// reader) are found by the location check before the claim (the same non-blocking open, store
// unchanged); the bundle file re-hashed by the drift check (src/flows/run/drift.ts) after it. Before
// the fix each open blocked forever and the claim stayed `claimed` until its deadline.
let w: RunWorld;
beforeAll(async () => {
  w = await makeRunWorld({ modes: ['clean', 'sleep'], sleepMs: 2500 });
}, 120_000);
afterAll(cleanupDirs);

const mkfifo = (path: string): void => {
  execFileSync('mkfifo', ['-m', '600', path]);
};

/** review-run --json as a child that is killed after `ms` (a hang shows as code null). */
async function runBounded(challenge: string, extra: readonly string[], ms: number, during?: () => Promise<void>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = runReviewAsync(w, challenge, extra);
  const timer = setTimeout(() => run.kill('SIGKILL'), ms);
  if (during !== undefined) void during();
  try {
    return await run.done;
  } finally {
    clearTimeout(timer);
  }
}

describe('a FIFO in place of a file review-run reads after its claim → a code, never a hang', () => {
  it('the reviewer program is a FIFO → reviewer_file_unavailable (2), refused before the claim, no hang', async () => {
    const dir = tempDir('governed-rtg-fifo-reviewers-');
    mkfifo(join(dir, 'clean.mjs'));
    const id = issue(w, 'clean');
    const before = storeDigest(w);
    const r = await runBounded(id, ['--reviewers-dir', dir], 15_000);
    expectNoSecrets(r);
    expect(r.code).toBe(2);
    expect(errorCode(r).code).toBe('reviewer_file_unavailable');
    expect(storeDigest(w)).toBe(before);
  }, 60_000);

  it('an attestor configuration is a FIFO → attestor_file_unavailable (2), refused before the claim, no hang', async () => {
    const dir = tempDir('governed-rtg-fifo-attestors-');
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(w.attestorsDir, 'reviewer.mjs'), join(dir, 'reviewer.mjs'));
    copyFileSync(join(w.attestorsDir, 'runner.mjs'), join(dir, 'runner.mjs'));
    copyFileSync(join(w.attestorsDir, 'runner.json'), join(dir, 'runner.json'));
    mkfifo(join(dir, 'reviewer.json'));
    const id = issue(w, 'clean');
    const before = storeDigest(w);
    const r = await runBounded(id, ['--attestors', dir], 15_000);
    expectNoSecrets(r);
    expect(r.code).toBe(2);
    expect(errorCode(r).code).toBe('attestor_file_unavailable');
    expect(storeDigest(w)).toBe(before);
  }, 60_000);

  it('the pinned-file reader itself refuses a FIFO at once (the step-4 read after the claim)', () => {
    const dir = tempDir('governed-rtg-fifo-reader-');
    const fifo = join(dir, 'program');
    mkfifo(fifo);
    expect(() => readPinned(fifo, 1024)).toThrow(expect.objectContaining({ code: 'input_unreadable' }));
    expect(probePinned(fifo, 1024)).toBe('not_a_regular_file');
  });

  it('the bundle file becomes a FIFO while the reviewer runs → review_post_launch_drift [bundle] (9), ABORTED', async () => {
    const id = issue(w, 'sleep');
    const before = headSeq(w);
    const bundle = join(w.home, 'bundles', `${id}.json`);
    const r = await runBounded(id, [], 30_000, async () => {
      await waitForStatus(w, id, 'claimed');
      unlinkSync(bundle);
      mkfifo(bundle);
    });
    expectNoSecrets(r);
    expect(r.code).not.toBeNull();
    const { ids } = expectAborted(w, before, r, 'review_post_launch_drift', 9);
    expect(ids).toEqual(['bundle']);
  }, 60_000);
});
