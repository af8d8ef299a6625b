// Guards docs/runner.md "Where the pinned programs come from": a wrong or missing location (no --attestors, a wrong --reviewers-dir or --bwrap, a FIFO, a symlink, a group-writable bwrap) is refused BEFORE the claim, the store byte for byte unchanged and the challenge still usable by the corrected command.
//
// Before the fix these were found only at step 4 or 5, after the claim: the run ended ABORTED and
// the slot stayed blocked until the content changed, although nothing had run.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOut, runCli } from './helpers/cli.js';
import { cleanupDirs, tempDir } from './state-helpers.js';
import { challengeStatus, countRows, errorCode, gov, issue, makeRunWorld, runArgs, storeDigest, type RunWorld } from './run-helpers.js';

let w: RunWorld;
beforeAll(async () => {
  w = await makeRunWorld({ modes: ['clean'] });
}, 120_000);
afterAll(cleanupDirs);

/** The store's files, byte for byte (the database and, when present, its WAL). */
function storeBytes(): string {
  const file = (name: string): string => {
    const p = join(w.home, name);
    return existsSync(p) ? readFileSync(p).toString('base64') : '-';
  };
  return `${file('governed.db')}|${file('governed.db-wal')}`;
}

/** review-run with `args` replacing the world's location options (the world's own are not passed). */
function runWith(challenge: string, args: readonly string[]): ReturnType<typeof gov> {
  return gov(w, ['review-run', '--challenge', challenge, ...args, '--json']);
}

/**
 * The refusal: its code and exit, the IDs naming the path and its origin, nothing printed but
 * IDs, and the store unchanged — both its bytes and every table; then the corrected command (the
 * world's own locations) runs the same challenge to a CLEAN receipt.
 */
function expectRefusedThenUsable(args: readonly string[], code: string, exit: number, ids: readonly string[]): void {
  const id = issue(w, 'clean');
  const bytes = storeBytes();
  const tables = storeDigest(w);
  const receipts = countRows(w, 'receipts');
  const r = runWith(id, args);
  const error = errorCode(r);
  expect({ code: error.code, exit: r.code }).toEqual({ code, exit });
  expect(error.ids).toEqual(ids);
  expect(jsonOut(r).verdict).toBeUndefined(); // an ordinary refusal, not an ABORTED run
  expect(storeBytes()).toBe(bytes);
  expect(storeDigest(w)).toBe(tables);
  expect(challengeStatus(w, id)).toBe('open');
  // The corrected command: the same challenge, now with the right locations.
  const ok = gov(w, [...runArgs(w, id), '--json']);
  expect(ok.code).toBe(0);
  expect(jsonOut(ok)).toMatchObject({ verdict: 'CLEAN' });
  expect(countRows(w, 'receipts')).toBe(receipts + 1);
  expect(challengeStatus(w, id)).toBe('consumed');
}

const REVIEWERS = (): string[] => ['--reviewers-dir', w.reviewersDir];
const ATTESTORS = (): string[] => ['--attestors', w.attestorsDir];

describe('a location mistake is refused before the claim; the corrected command then runs', () => {
  it('no --attestors: the default <home>/attestors has no config → attestor_file_unavailable (2) naming it', () => {
    expect(existsSync(join(w.home, 'attestors'))).toBe(false);
    // The program falls back to the shipped attestor; a config has no fallback: the first file
    // missing is the reviewer credential's config in the default directory.
    expectRefusedThenUsable(REVIEWERS(), 'attestor_file_unavailable', 2, ['reviewer', 'config', 'missing', `path:${join(w.home, 'attestors', 'reviewer.json')}`, 'from:default']);
  });

  it('a wrong --reviewers-dir → reviewer_file_unavailable (2) naming the path and the option', () => {
    const dir = tempDir('governed-loc-empty-reviewers-');
    expectRefusedThenUsable(['--reviewers-dir', dir, ...ATTESTORS()], 'reviewer_file_unavailable', 2, ['clean', 'missing', `path:${join(dir, 'clean.mjs')}`, 'from:--reviewers-dir']);
  });

  it('$GOVERNED_REVIEWERS_DIR is named as the origin when it supplied the directory', () => {
    const dir = tempDir('governed-loc-env-reviewers-');
    const id = issue(w, 'clean');
    const before = storeBytes();
    const r = runCliEnv(['review-run', '--challenge', id, ...ATTESTORS(), '--json'], { GOVERNED_REVIEWERS_DIR: dir });
    expect(errorCode(r)).toMatchObject({ code: 'reviewer_file_unavailable', ids: ['clean', 'missing', `path:${join(dir, 'clean.mjs')}`, 'from:$GOVERNED_REVIEWERS_DIR'] });
    expect(storeBytes()).toBe(before);
  });

  it('a wrong --bwrap → bwrap_missing (2)', () => {
    const path = join(tempDir('governed-loc-bwrap-'), 'bwrap');
    expectRefusedThenUsable([...REVIEWERS(), ...ATTESTORS(), '--bwrap', path], 'bwrap_missing', 2, [`path:${path}`, 'from:--bwrap']);
  });

  it('a group-writable --bwrap → bwrap_insecure_mode (6), before anything is hashed or run', () => {
    const path = join(tempDir('governed-loc-bwrap-mode-'), 'bwrap');
    const marker = `${path}.ran`;
    writeFileSync(path, `#!/bin/sh\necho ran >> ${marker}\nexec /usr/bin/bwrap "$@"\n`);
    execFileSync('chmod', ['0775', path]); // explicit: the umask would clear the group bit
    expectRefusedThenUsable([...REVIEWERS(), ...ATTESTORS(), '--bwrap', path], 'bwrap_insecure_mode', 6, [`path:${path}`, 'from:--bwrap']);
    expect(existsSync(marker)).toBe(false);
  });

  it('the reviewer program is a FIFO → reviewer_file_unavailable [not_a_regular_file], never a hang', () => {
    const dir = tempDir('governed-loc-fifo-');
    execFileSync('mkfifo', ['-m', '600', join(dir, 'clean.mjs')]);
    expectRefusedThenUsable(['--reviewers-dir', dir, ...ATTESTORS()], 'reviewer_file_unavailable', 2, ['clean', 'not_a_regular_file', `path:${join(dir, 'clean.mjs')}`, 'from:--reviewers-dir']);
  });

  it('a symlink to the allowlisted reviewer is not followed → reviewer_file_unavailable [not_a_regular_file]', () => {
    const dir = tempDir('governed-loc-symlink-');
    symlinkSync(join(w.reviewersDir, 'clean.mjs'), join(dir, 'clean.mjs'));
    expectRefusedThenUsable(['--reviewers-dir', dir, ...ATTESTORS()], 'reviewer_file_unavailable', 2, ['clean', 'not_a_regular_file', `path:${join(dir, 'clean.mjs')}`, 'from:--reviewers-dir']);
  });

  it('the runner credential\'s config missing from --attestors → attestor_file_unavailable [runner, config]', () => {
    const dir = tempDir('governed-loc-attestors-');
    mkdirSync(dir, { recursive: true });
    for (const f of ['reviewer.json', 'reviewer.mjs', 'runner.mjs']) copyFileSync(join(w.attestorsDir, f), join(dir, f));
    expectRefusedThenUsable([...REVIEWERS(), '--attestors', dir], 'attestor_file_unavailable', 2, ['runner', 'config', 'missing', `path:${join(dir, 'runner.json')}`, 'from:--attestors']);
  });
});

function runCliEnv(args: readonly string[], env: Record<string, string>): ReturnType<typeof gov> {
  return runCli([...args, '--home', w.home], { cwd: w.repo.root, env });
}
