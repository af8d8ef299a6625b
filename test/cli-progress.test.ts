// Progress on stderr for long work (docs/commands.md#progress-on-stderr): one line per phase, on
// stderr only, when stderr is a terminal (a REAL pseudo-terminal here, test/fixtures/cli/pty-stderr.py)
// or --progress is given; never with --json on a terminal, never with GOVERNED_NO_PROGRESS, never on
// stdout. A line holds the table's fixed words and a count only: a reviewer that prints secrets on
// stderr, a changed file holding a canary and the state directory's path never appear in one.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROGRESS_PHASES, progressLine, type ProgressCommand } from '../src/core/progress.js';
import { progressEnabled, progressSink } from '../src/cli/progress.js';
import { CLI, REPO_ROOT, jsonOut, runCli } from './helpers/cli.js';
import { cleanupDirs, FILE_CANARY, gov } from './state-helpers.js';
import { challengeArgs, issue, makeRunWorld, runArgs, type RunWorld } from './run-helpers.js';

const PTY = join(REPO_ROOT, 'test', 'fixtures', 'cli', 'pty-stderr.py');
/** Every line a progress sink can write: fixed words from the table, an optional count. */
const LINE = /^governed (review-challenge|review-run|review-pass|audit verify) \[\d+\/\d+\] [a-z ,:()'-]+( \d+)?$/;

interface PtyRun {
  readonly code: number;
  readonly stdout: string;
  readonly tty: string;
}

function onPty(args: readonly string[], cwd: string, env: Record<string, string> = {}): PtyRun {
  const r = spawnSync('python3', [PTY, '--', process.execPath, CLI, ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1', ...env },
    timeout: 240_000,
  });
  if (r.status !== 0) throw new Error(`pty helper failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as PtyRun;
}

const progressLines = (text: string): string[] => text.split('\n').filter((l) => l.startsWith('governed ') && l.includes(' ['));

describe('progress lines: one table, fixed words, counts only', () => {
  it('every phase of every command renders as a fixed line; a count is a non-negative integer or dropped', () => {
    for (const command of Object.keys(PROGRESS_PHASES) as ProgressCommand[]) {
      const phases = Object.keys(PROGRESS_PHASES[command]);
      phases.forEach((phase, i) => {
        const line = progressLine(command, phase as never, 7);
        expect(line.endsWith(' 7\n')).toBe(true);
        expect(line.trimEnd()).toMatch(LINE);
        expect(line).toContain(`[${i + 1}/${phases.length}]`);
        // Not an integer: dropped, never printed (nothing but a count can reach a line).
        for (const bad of [Number.NaN, -1, 1.5, Number.POSITIVE_INFINITY, 2 ** 60]) expect(progressLine(command, phase as never, bad)).toBe(progressLine(command, phase as never));
      });
    }
    expect(() => progressLine('review-run', '/etc/passwd' as never)).toThrow(TypeError);
  });

  it('is on with --progress, on a terminal without --json, and off otherwise', () => {
    const tty = { isTTY: true, write: () => true };
    const pipe = { isTTY: false, write: () => true };
    expect(progressEnabled({}, tty, {})).toBe(true);
    expect(progressEnabled({ json: true }, tty, {})).toBe(false);
    expect(progressEnabled({}, tty, { GOVERNED_NO_PROGRESS: '1' })).toBe(false);
    expect(progressEnabled({}, tty, { GOVERNED_NO_PROGRESS: '' })).toBe(true);
    expect(progressEnabled({}, pipe, {})).toBe(false);
    expect(progressEnabled({ progress: true }, pipe, {})).toBe(true);
    expect(progressEnabled({ progress: true, json: true }, pipe, { GOVERNED_NO_PROGRESS: '1' })).toBe(true);
    const written: string[] = [];
    progressSink('audit-verify', { progress: true }, { write: (t: string) => written.push(t) })?.('replay', 3);
    expect(written).toEqual(['governed audit verify [2/5] checking the chain and replaying the log, entries: 3\n']);
    expect(progressSink('audit-verify', {}, pipe, {})).toBeUndefined();
  });
});

describe('progress through the built CLI', () => {
  let w: RunWorld;
  beforeAll(async () => {
    w = await makeRunWorld({ modes: ['clean', 'stderr'] });
  }, 120_000);
  afterAll(() => cleanupDirs());

  it('review-run on a terminal: every phase in order on stderr, the human result alone on stdout, no reviewer stderr, no path, no content', () => {
    const r = onPty([...runArgs(w, issue(w, 'stderr')), '--home', w.home], w.repo.root);
    expect(r.code, r.tty).toBe(0);
    const lines = progressLines(r.tty);
    expect(lines.map((l) => l.replace(/^governed review-run \[\d+\/8\] /, ''))).toEqual([
      PROGRESS_PHASES['review-run'].load,
      PROGRESS_PHASES['review-run'].claim,
      PROGRESS_PHASES['review-run'].pin,
      PROGRESS_PHASES['review-run'].review,
      PROGRESS_PHASES['review-run'].drift,
      PROGRESS_PHASES['review-run'].sign,
      PROGRESS_PHASES['review-run'].commit,
    ]);
    // The terminal got the progress lines and nothing else: not the reviewer's stderr (its secret),
    // not the canary in the changed file, not the state directory or repository path.
    expect(r.tty.trimEnd().split('\n')).toEqual(lines);
    for (const l of lines) expect(l).toMatch(LINE);
    for (const leak of [FILE_CANARY, 'reviewer stderr', w.home, w.repo.root, w.dir]) expect(r.tty).not.toContain(leak);
    expect(r.stdout).toMatch(/^verdict CLEAN\nrun_id RUN-[0-9a-f]+\nreceipt_id sha256:[0-9a-f]{64}\n$/);
  }, 120_000);

  it('review-run --json on a terminal: no progress at all, one JSON object on stdout (positive control: --progress --json puts it on stderr only)', () => {
    const quiet = onPty([...runArgs(w, issue(w, 'clean')), '--home', w.home, '--json'], w.repo.root);
    expect(quiet.code, quiet.tty).toBe(0);
    expect(quiet.tty).toBe('');
    expect(jsonOut({ code: 0, stdout: quiet.stdout, stderr: '' })).toMatchObject({ ok: true, verdict: 'CLEAN' });

    const piped = gov(w, [...runArgs(w, issue(w, 'clean')), '--json', '--progress']);
    expect(piped.code, piped.stderr).toBe(0);
    expect(jsonOut(piped)).toMatchObject({ ok: true, verdict: 'CLEAN' });
    expect(progressLines(piped.stderr)).toHaveLength(7);
    expect(piped.stdout).not.toContain('governed review-run [');
  }, 120_000);

  it('GOVERNED_NO_PROGRESS on a terminal and a piped stderr without --progress print no progress', () => {
    const off = onPty([...runArgs(w, issue(w, 'clean')), '--home', w.home], w.repo.root, { GOVERNED_NO_PROGRESS: '1' });
    expect(off.code, off.tty).toBe(0);
    expect(off.tty).toBe('');
    const piped = gov(w, runArgs(w, issue(w, 'clean')));
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).toBe('');
  }, 120_000);

  it('audit verify on a terminal: its phases with the log size, the report alone on stdout', () => {
    const r = onPty(['audit', 'verify', '--home', w.home], w.repo.root);
    expect(r.code, r.tty).toBe(0);
    const lines = progressLines(r.tty);
    expect(r.tty.trimEnd().split('\n')).toEqual(lines);
    for (const l of lines) expect(l).toMatch(LINE);
    const entries = (jsonOut(gov(w, ['audit', 'verify', '--json'])).log as { entries: number }).entries;
    expect(lines).toEqual([
      'governed audit verify [1/5] opening the store read-only',
      `governed audit verify [2/5] checking the chain and replaying the log, entries: ${entries}`,
      'governed audit verify [3/5] re-deriving the transparency tree',
      'governed audit verify [4/5] checking receipts, challenges and authority records',
    ]);
    expect(r.stdout.startsWith('AUDIT OK\n')).toBe(true);
    expect(r.tty).not.toContain(w.home);
  }, 120_000);

  it('review-pass --progress: rounds and reviewer runs counted on stderr, never the tool output it produced', () => {
    const cfg = join(w.dir, 'review-pass.json');
    const out = join(w.dir, 'review-pass-out');
    const secret = 'TOOL-OUTPUT-CANARY-61c2';
    writeFileSync(cfg, JSON.stringify({ tools: { mine: { command: ['/usr/bin/printf', `${secret}\\n`], parse: 'text_fallback' } }, stages: { development: { reviewers: ['mine'], arbiter: null } } }));
    const r = runCli(['review-pass', '--light', '--stage', 'development', '--config', cfg, '--repo', w.repo.root, '--out', out, '--json', '--progress'], { cwd: w.repo.root });
    expect([0, 9]).toContain(r.code);
    expect(jsonOut(r)).toMatchObject({ protocol: 'review-pass', mode: 'non-governed' });
    const lines = progressLines(r.stderr);
    expect(lines[0]).toMatch(/^governed review-pass \[1\/4\] files to review: \d+$/);
    expect(lines).toContain('governed review-pass [2/4] round 1');
    expect(lines).toContain('governed review-pass [3/4] reviewer run 1');
    expect(lines.at(-1)).toBe('governed review-pass [4/4] writing the results');
    for (const l of lines) expect(l).toMatch(LINE);
    expect(r.stderr).not.toContain(secret);
    expect(r.stderr).not.toContain(w.repo.root);
  }, 120_000);

  it('review-challenge on a terminal: its five phases with the workspace file count, the human result alone on stdout, no path, no content', () => {
    const r = onPty([...challengeArgs(w, 'clean'), '--home', w.home], w.repo.root);
    expect(r.code, r.tty).toBe(0);
    const lines = progressLines(r.tty);
    expect(r.tty.trimEnd().split('\n')).toEqual(lines);
    for (const l of lines) expect(l).toMatch(LINE);
    expect(lines.map((l) => l.replace(/ \d+$/, ''))).toEqual([
      'governed review-challenge [1/5] checking the unit, the writer, the pins and the slot',
      'governed review-challenge [2/5] re-checking the bound request contract and its sources',
      'governed review-challenge [3/5] hashing the workspace and the baseline',
      'governed review-challenge [4/5] building the review bundle, workspace files:',
      'governed review-challenge [5/5] recording the challenge',
    ]);
    // The count is the workspace manifest's size: the repository's files under the product roots.
    expect(Number(/ (\d+)$/.exec(lines[3] as string)?.[1])).toBeGreaterThan(0);
    for (const leak of [FILE_CANARY, w.home, w.repo.root, w.dir, 'src/export.ts']) expect(r.tty).not.toContain(leak);
    expect(r.stdout).toMatch(/^challenge_id CHL-[0-9a-f]{32}\n/);
    // --json on the terminal: nothing on it.
    const quiet = onPty([...challengeArgs(w, 'clean'), '--home', w.home, '--json'], w.repo.root);
    expect(quiet.code, quiet.tty).toBe(0);
    expect(quiet.tty).toBe('');
  }, 120_000);

  it('governed review-pass --progress: each slot\'s challenge and run phases after its reviewer run line, nothing of the reviewer\'s stderr', () => {
    const out = join(w.dir, 'governed-pass-out');
    const r = gov(w, ['review-pass', '--unit', w.unit, '--stage', 'development', '--writer-session', 'agent-1', '--reviewers-dir', w.reviewersDir, '--attestors', w.attestorsDir, '--out', out, '--json', '--progress']);
    expect(r.code, r.stderr).toBe(0);
    expect(jsonOut(r)).toMatchObject({ mode: 'governed', result: 'CLEAN' });
    const lines = progressLines(r.stderr);
    expect(r.stderr.trimEnd().split('\n')).toEqual(lines);
    for (const l of lines) expect(l).toMatch(LINE);
    const shape = lines.map((l) => /^governed ([a-z-]+) \[(\d+)\//.exec(l)?.slice(1).join(':'));
    // One slot's run: its reviewer line, the challenge's five phases, the run's seven (no seal: not a check).
    const slotRun = ['review-pass:3', ...[1, 2, 3, 4, 5].map((i) => `review-challenge:${i}`), ...[1, 2, 3, 5, 6, 7, 8].map((i) => `review-run:${i}`)];
    // Two slots (clean, stderr) per round, the policy streak of two rounds, then the results.
    expect(shape).toEqual(['review-pass:2', ...slotRun, ...slotRun, 'review-pass:2', ...slotRun, ...slotRun, 'review-pass:4']);
    expect(lines.filter((l) => l.startsWith('governed review-pass [3/4] reviewer run ')).map((l) => l.split(' ').at(-1))).toEqual(['1', '2', '3', '4']);
    for (const leak of [FILE_CANARY, 'reviewer stderr', w.home, w.repo.root, w.dir]) expect(r.stderr).not.toContain(leak);
    expect(r.stdout).not.toContain('governed review-');
  }, 240_000);
});
