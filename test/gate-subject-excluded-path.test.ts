// Guards: a subject commit that tracks a path under the policy's `exclude` (state and build outputs
// that never ship, e.g. a committed `.governed/`) is refused by the gate (gate_subject_tracks_excluded,
// exit 4, store unchanged); init warns when its state directory is in a git repository that does not ignore it.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOut, runCli } from './helpers/cli.js';
import { cleanupDirs, makeWorld } from './state-helpers.js';
import { eligibleStory, expectGateRefused, gate, gateJson, type Story } from './gate-world.js';

let s: Story;
let reviewed: string;

beforeAll(() => {
  s = eligibleStory();
  reviewed = s.subject;
});
afterAll(() => cleanupDirs());

describe('gate: a subject that tracks an excluded path', () => {
  it('control: the reviewed commit allows', () => {
    expect(gate(s, { subject: reviewed }).code).toBe(0);
  });

  it('the reviewed content plus a committed .governed/ (store and a payload): exit 4, store unchanged', () => {
    s.w.repo.write('.governed/payload.js', 'process.exit(0)\n');
    s.w.repo.write('.governed/governed.db', 'not really a store\n');
    const shipped = s.w.repo.commitAll('git add -A took the state directory');
    // The manifest (exclude applied) is the reviewed one: without the rule this is an ALLOW.
    const d = expectGateRefused(s, { subject: shipped }, 'gate_subject_tracks_excluded', 4);
    expect(d.error?.ids).toEqual(['exclude[0]']);
    expect(d.subject.commit).toBe(shipped);
  });

  it('a path that only shares the prefix (.governedx/) is not excluded: it is content the review did not see (4, subject mismatch)', () => {
    rmSync(join(s.w.repo.root, '.governed'), { recursive: true });
    s.w.repo.write('.governedx/note.txt', 'x\n');
    const other = s.w.repo.commitAll('not under the exclude');
    const r = gate(s, { subject: other });
    expect(gateJson(r).error?.code).not.toBe('gate_subject_tracks_excluded');
    expect(r.code).not.toBe(0);
  });
});

describe('init: the state directory inside a git repository', () => {
  const init = (home: string, cwd: string, policy: string, trust: string) =>
    runCli(['init', '--policy', policy, '--trust', trust, '--home', home, '--json'], { cwd });

  it('not ignored: a warning on stderr and in --json; init still succeeds', () => {
    const w = makeWorld();
    const r = init(join(w.repo.root, '.governed'), w.repo.root, w.policyFile, w.trustFile);
    expect(r.code).toBe(0);
    expect((jsonOut(r) as { warnings: string[] }).warnings).toEqual(['home_not_git_ignored']);
    expect(r.stderr).toContain('home_not_git_ignored');
  });

  it('ignored by .gitignore, or outside any repository: no warning', () => {
    const w = makeWorld();
    w.repo.write('.gitignore', '.governed/\n');
    const ignored = init(join(w.repo.root, '.governed'), w.repo.root, w.policyFile, w.trustFile);
    expect(ignored.code).toBe(0);
    expect((jsonOut(ignored) as { warnings: string[] }).warnings).toEqual([]);
    expect(ignored.stderr).not.toContain('home_not_git_ignored');
    const outside = init(join(w.dir, 'state-outside'), w.dir, w.policyFile, w.trustFile);
    expect(outside.code).toBe(0);
    expect((jsonOut(outside) as { warnings: string[] }).warnings).toEqual([]);
  });
});
