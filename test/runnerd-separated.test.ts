// Separated mode end to end (docs/runnerd.md): real users, real daemon, real sandbox. A writer uid in
// the writers' group creates a unit, registers, asks for a challenge and a run through the socket;
// the receipt says trust_mode separated with the daemon's identity and the writer's uid and pid as
// the kernel reported them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IS_ROOT, asUser, idsOf, makeSepWorld, namesFor, removeSepUsers, root, common, startDaemon, type Daemon, type SepWorld } from './runnerd-helpers.js';

// This file's own system users, removed after it (other files run beside it with theirs).
const NAMES = namesFor('gvd-sep-s');
const { daemon: PREFIX, writer1: WRITER1 } = NAMES;
import { jsonOut } from './helpers/cli.js';

describe.skipIf(!IS_ROOT)('governed runnerd: a writer reaches a separated receipt through the socket', () => {
  let w: SepWorld;
  let d: Daemon;
  let unit: string;
  const env = (): Record<string, string> => ({ GOVERNED_RUNNER: w.socket });

  beforeAll(async () => {
    w = await makeSepWorld({ names: NAMES });
    d = await startDaemon(w);
  }, 120_000);
  afterAll(async () => {
    await d?.stop();
    removeSepUsers(NAMES);
  });

  it('setup is idempotent: a second run with the same arguments changes nothing', () => {
    const again = root(['runnerd', 'setup', ...common(w), '--policy', w.policyFile, '--trust', w.trustFile, '--json']);
    expect(again.code).toBe(0);
    expect(jsonOut(again).actions).toEqual([]);
    const doctor = root(['runnerd', 'doctor', ...common(w), '--json']);
    expect(jsonOut(doctor)).toEqual({ ok: true, findings: [], schema_version: 1, exit: 0 });
  });

  it('hello: the daemon reports the uid the kernel gave it, and its own identity', () => {
    const r = asUser(WRITER1, ['runnerd', 'hello', '--json'], { env: env() });
    expect(r.code).toBe(0);
    const o = jsonOut(r) as { client: { uid: number }; daemon: { daemon_uid: number; attestor_uids: Record<string, number> } };
    expect(o.client.uid).toBe(idsOf(WRITER1).uid);
    expect(o.daemon.daemon_uid).toBe(idsOf(PREFIX).uid);
    expect(o.daemon.attestor_uids).toEqual({ reviewer: idsOf(`${PREFIX}-reviewer`).uid, runner: idsOf(`${PREFIX}-runner`).uid, probe: idsOf(`${PREFIX}-probe`).uid, log: idsOf(`${PREFIX}-log`).uid });
  });

  it('unit create, writer register, review-challenge and review-run end in a separated CLEAN receipt', () => {
    const created = asUser(WRITER1, ['unit', 'create', '--contract', w.contractFile, '--baseline', w.baseline, '--json'], { cwd: w.repo.root, env: env() });
    expect(created.code, created.stdout + created.stderr).toBe(0);
    unit = jsonOut(created).unit as string;
    const reg = asUser(WRITER1, ['writer', 'register', '--unit', unit, '--writer-session', 'agent-1', '--json'], { cwd: w.repo.root, env: env() });
    expect(reg.code, reg.stdout + reg.stderr).toBe(0);
    const ch = asUser(WRITER1, ['review-challenge', '--unit', unit, '--writer-session', 'agent-1', '--stage', 'development', '--slot', 'clean', '--json'], { cwd: w.repo.root, env: env() });
    expect(ch.code, ch.stdout + ch.stderr).toBe(0);
    const challenge = jsonOut(ch).challenge_id as string;
    const run = asUser(WRITER1, ['review-run', '--challenge', challenge, '--json'], { cwd: w.repo.root, env: env() });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const out = jsonOut(run) as { verdict: string; receipt_id: string };
    expect(out.verdict).toBe('CLEAN');
    const shown = asUser(WRITER1, ['receipt', 'show', '--receipt', out.receipt_id, '--json'], { cwd: w.repo.root, env: env() });
    expect(shown.code).toBe(0);
    const env64 = jsonOut(shown).envelope_b64 as string;
    const envelope = JSON.parse(Buffer.from(env64, 'base64').toString('utf8')) as { payload: string };
    const st = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as { predicate: Record<string, unknown> };
    expect(st.predicate.trust_mode).toBe('separated');
    const sep = st.predicate.separation as Record<string, unknown>;
    expect(sep.client_uid).toBe(idsOf(WRITER1).uid);
    expect(sep.daemon_uid).toBe(idsOf(PREFIX).uid);
    expect(sep.daemon_pid).toBe(d.ready.daemon_pid);
    // The decision over separated receipts is separated (what policies/strict.yaml requires).
    const status = asUser(WRITER1, ['status', '--unit', unit, '--json'], { cwd: w.repo.root, env: env() });
    expect(status.code, status.stdout + status.stderr).toBe(0);
    expect(jsonOut(status).trustMode).toBe('separated');
  }, 120_000);

  it('review-challenge and review-run --runner --progress: the daemon\'s phases on the writer\'s stderr, in the client\'s words, no path', () => {
    const lines = (t: string): string[] => t.split('\n').filter((l) => l.startsWith('governed review-'));
    const ch = asUser(WRITER1, ['review-challenge', '--unit', unit, '--writer-session', 'agent-1', '--stage', 'development', '--slot', 'clean', '--json', '--progress'], { cwd: w.repo.root, env: env() });
    expect(ch.code, ch.stdout + ch.stderr).toBe(0);
    expect(ch.stderr.trimEnd().split('\n')).toEqual(lines(ch.stderr));
    expect(lines(ch.stderr).map((l) => l.replace(/ \d+$/, ''))).toEqual([
      'governed review-challenge [1/5] checking the unit, the writer, the pins and the slot',
      'governed review-challenge [2/5] re-checking the bound request contract and its sources',
      'governed review-challenge [3/5] hashing the workspace and the baseline',
      'governed review-challenge [4/5] building the review bundle, workspace files:',
      'governed review-challenge [5/5] recording the challenge',
    ]);
    const run = asUser(WRITER1, ['review-run', '--challenge', jsonOut(ch).challenge_id as string, '--json', '--progress'], { cwd: w.repo.root, env: env() });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(jsonOut(run).verdict).toBe('CLEAN');
    expect(run.stderr.trimEnd().split('\n')).toEqual(lines(run.stderr));
    expect(lines(run.stderr).map((l) => /\[(\d)\/8\]/.exec(l)?.[1])).toEqual(['1', '2', '3', '5', '6', '7', '8']);
    for (const leak of [w.base, w.repo.root, w.home]) expect(ch.stderr + run.stderr).not.toContain(leak);
  }, 120_000);
});
