// docs/runner.md#the-run-step-by-step step 4 through the built CLI: the reviewer, bwrap, the sandbox profile, the seccomp blob and
// both attestors are pinned against the POLICY allowlist, and on a mismatch NOTHING runs. Marker files
// prove it: a stand-in bwrap logs every invocation (even `--version`) before exec-ing the real one,
// and a non-allowlisted attestor would write a marker if it ever ran. Each digest refusal happens
// after the claim, so the store holds exactly the claim and its ABORTED entry; a missing file is a
// location mistake, refused before the claim with the store unchanged.
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOut } from './helpers/cli.js';
import { cleanupDirs, tempDir } from './state-helpers.js';
import { expectAborted, expectRefusedBeforeClaim, headSeq, issue, makeRunWorld, runReview, type RunWorld } from './run-helpers.js';

let w: RunWorld;
const invocations = (world: RunWorld): string[] => readFileSync(world.marker, 'utf8').split('\n').filter((l) => l !== '');
const clearMarker = (world: RunWorld): void => writeFileSync(world.marker, '');

beforeAll(async () => {
  w = await makeRunWorld({ modes: ['clean'] });
}, 120_000);
afterAll(cleanupDirs);

describe('positive control: the stand-in bwrap is allowlisted and logs', () => {
  it('a run through the logging stand-in records a receipt, and the marker shows bwrap ran', () => {
    clearMarker(w);
    const r = runReview(w, issue(w, 'clean'), ['--bwrap', w.stubBwrap]);
    expect(r.code).toBe(0);
    const lines = invocations(w);
    expect(lines.some((l) => l.endsWith(' --version'))).toBe(true);
    expect(lines.length).toBeGreaterThanOrEqual(2);
  });
});

describe('not allowlisted → ABORTED with its code, and nothing ran', () => {
  it('reviewer bytes not the policy digest → reviewer_not_allowlisted (6); bwrap never even started', () => {
    const dir = tempDir('governed-run-evil-reviewers-');
    // An "evil" reviewer that would print a perfect CLEAN without reading anything.
    writeFileSync(join(dir, 'clean.mjs'), 'process.stdout.write("EVIL");\n');
    clearMarker(w);
    const id = issue(w, 'clean');
    const before = headSeq(w);
    const r = runReview(w, id, ['--bwrap', w.stubBwrap, '--reviewers-dir', dir]);
    expectAborted(w, before, r, 'reviewer_not_allowlisted', 6);
    expect(invocations(w)).toEqual([]);
  });

  it('reviewer file missing, or a symlink to the right bytes → reviewer_file_unavailable (2), refused before the claim', () => {
    // A location mistake is found before the claim (test/run-locations-before-claim.test.ts).
    const dir = tempDir('governed-run-no-reviewers-');
    expectRefusedBeforeClaim(w, issue(w, 'clean'), 'reviewer_file_unavailable', 2, ['--reviewers-dir', dir]);
    // A symlink is never followed (the file read is the file hashed): even to the allowlisted bytes.
    symlinkSync(join(w.reviewersDir, 'clean.mjs'), join(dir, 'clean.mjs'));
    expectRefusedBeforeClaim(w, issue(w, 'clean'), 'reviewer_file_unavailable', 2, ['--reviewers-dir', dir]);
  });

  it('bwrap not allowlisted → bwrap_not_allowlisted (6); the binary was not executed (not even --version)', () => {
    const other = join(tempDir('governed-run-bwrap-'), 'bwrap');
    const marker = `${other}.ran`;
    writeFileSync(other, `#!/bin/sh\necho ran >> ${marker}\nexec /usr/bin/bwrap "$@"\n`, { mode: 0o755 });
    const id = issue(w, 'clean');
    const before = headSeq(w);
    expectAborted(w, before, runReview(w, id, ['--bwrap', other]), 'bwrap_not_allowlisted', 6);
    expect(existsSync(marker)).toBe(false);
  });

  it('attestor program not allowlisted → attestor_not_allowlisted (6); it never ran (marker), nor did bwrap', () => {
    const dir = tempDir('governed-run-evil-attestors-');
    const marker = join(dir, 'attestor-ran');
    copyFileSync(join(w.attestorsDir, 'reviewer.json'), join(dir, 'reviewer.json'));
    copyFileSync(join(w.attestorsDir, 'runner.json'), join(dir, 'runner.json'));
    copyFileSync(join(w.attestorsDir, 'runner.mjs'), join(dir, 'runner.mjs'));
    writeFileSync(join(dir, 'reviewer.mjs'), `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker)}, 'ran');\n`);
    clearMarker(w);
    const id = issue(w, 'clean');
    const before = headSeq(w);
    const r = runReview(w, id, ['--bwrap', w.stubBwrap, '--attestors', dir]);
    expectAborted(w, before, r, 'attestor_not_allowlisted', 6);
    expect(existsSync(marker)).toBe(false);
    expect(invocations(w)).toEqual([]);
  });

  it('attestor config not allowlisted → attestor_not_allowlisted (6); nothing ran', () => {
    const dir = tempDir('governed-run-evil-configs-');
    for (const f of ['reviewer.mjs', 'runner.mjs', 'reviewer.json']) copyFileSync(join(w.attestorsDir, f), join(dir, f));
    // The same fields, reformatted: other bytes, other sha256.
    writeFileSync(join(dir, 'runner.json'), `${JSON.stringify(JSON.parse(readFileSync(join(w.attestorsDir, 'runner.json'), 'utf8')), null, 2)}\n`);
    clearMarker(w);
    const id = issue(w, 'clean');
    const before = headSeq(w);
    expectAborted(w, before, runReview(w, id, ['--bwrap', w.stubBwrap, '--attestors', dir]), 'attestor_not_allowlisted', 6);
    expect(invocations(w)).toEqual([]);
  });

  it('attestor config missing → attestor_file_unavailable (2), refused before the claim', () => {
    const dir = tempDir('governed-run-no-configs-');
    mkdirSync(join(dir, 'x'));
    copyFileSync(join(w.attestorsDir, 'reviewer.json'), join(dir, 'reviewer.json'));
    expectRefusedBeforeClaim(w, issue(w, 'clean'), 'attestor_file_unavailable', 2, ['--attestors', dir]);
    unlinkSync(join(dir, 'reviewer.json'));
  });

  it('static profile not allowlisted → sandbox_profile_not_allowlisted (6); bwrap never executed', async () => {
    const p = await makeRunWorld({ modes: ['clean'], sandbox: { profile_sha256: ['0'.repeat(64)] } });
    const id = issue(p, 'clean');
    const before = headSeq(p);
    expectAborted(p, before, runReview(p, id, ['--bwrap', p.stubBwrap]), 'sandbox_profile_not_allowlisted', 6);
    expect(invocations(p)).toEqual([]);
  }, 60_000);

  it('seccomp blob not allowlisted → seccomp_not_allowlisted (6); bwrap never executed', async () => {
    const s = await makeRunWorld({ modes: ['clean'], sandbox: { seccomp_sha256: ['1'.repeat(64)] } });
    const id = issue(s, 'clean');
    const before = headSeq(s);
    expectAborted(s, before, runReview(s, id, ['--bwrap', s.stubBwrap]), 'seccomp_not_allowlisted', 6);
    expect(invocations(s)).toEqual([]);
  }, 60_000);
});

describe('the output names the run, never a path or a digest', () => {
  it('an aborted run prints verdict ABORTED, the run id and the code only', () => {
    const dir = tempDir('governed-run-evil-reviewers2-');
    writeFileSync(join(dir, 'clean.mjs'), '// other bytes\n');
    const r = runReview(w, issue(w, 'clean'), ['--reviewers-dir', dir]);
    const out = jsonOut(r) as Record<string, unknown>;
    expect(Object.keys(out).sort()).toEqual(['error', 'exit', 'ok', 'receipt_id', 'run_id', 'schema_version', 'verdict']);
    expect(r.stdout + r.stderr).not.toContain(dir);
    expect(r.stdout + r.stderr).not.toMatch(/[0-9a-f]{64}/);
  });
});
