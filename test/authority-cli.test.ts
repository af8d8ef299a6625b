// `governed authority request|sign|record`, `policy update`, `trust update` end to end through the
// BUILT CLI (docs/commands.md#what-each-command-guarantees, docs/authority.md#human-authority-records, docs/policy.md#policy-and-trust-root): a real store, real keys, and `authority sign` answered on a REAL
// pseudo-terminal (test/fixtures/authority/pty-answer.py) while its stdin is /dev/null. Every refusal
// asserts its exact code, that the store is unchanged (tablesDigest) and that no secret leaks.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeStore, initStore, openStore, pinDigestOf, pinUpdates, readPin, tablesDigest } from '../src/store/index.js';
import { CLI, jsonOut, REPO_ROOT, runCli, type CliResult } from './helpers/cli.js';
import { bytesOf, cleanupDirs, policyDoc, tempDir, trustWith, world, type World } from './authority-helpers.js';
import type { TestKey } from './helpers/receipts.js';

afterEach(cleanupDirs);

const PTY = join(REPO_ROOT, 'test', 'fixtures', 'authority', 'pty-answer.py');
const CANARY = 'CANARY-7f3e-secret-text';

interface Env {
  readonly w: World;
  readonly dir: string;
  readonly home: string;
}

function env(): Env {
  const w = world();
  const dir = tempDir();
  const home = join(dir, 'state');
  const store = initStore(home, { policyBytes: bytesOf(policyDoc()), trustBytes: bytesOf(w.trust), now: Math.floor(Date.now() / 1000) });
  closeStore(store);
  return { w, dir, home };
}

function digestOfStore(home: string): string {
  const store = openStore(home);
  try {
    return tablesDigest(store);
  } finally {
    closeStore(store);
  }
}

function cli(e: Env, args: readonly string[], input?: string): CliResult {
  return runCli([...args, '--home', e.home, '--json'], { cwd: e.dir, ...(input === undefined ? {} : { input }) });
}

function errorCode(r: CliResult): string {
  return (jsonOut(r).error as { code: string }).code;
}

interface PtyResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly tty: string;
  readonly answered: boolean;
}

function ptySign(mode: 'confirm' | 'wrong' | 'eof', request: string, key: TestKey | string, out: string): PtyResult {
  const keyPath = typeof key === 'string' ? key : key.privateKeyPath;
  const r = spawnSync('python3', [PTY, mode, '--', process.execPath, CLI, 'authority', 'sign', '--request', request, '--key', keyPath, '--out', out, '--json'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' },
    timeout: 30_000,
  });
  if (r.status !== 0) throw new Error(`pty helper failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as PtyResult;
}

function request(e: Env, args: readonly string[], out = join(e.dir, `req-${Math.random().toString(16).slice(2)}.json`)): { r: CliResult; out: string } {
  return { r: cli(e, ['authority', 'request', ...args, '--out', out]), out };
}

/** request → sign on a pty → record; returns the record id. */
function authorise(e: Env, args: readonly string[], signer: TestKey = e.w.human): { recordId: string; recordFile: string } {
  const { r, out } = request(e, args);
  expect(r.code, r.stderr).toBe(0);
  const recordFile = `${out}.signed`;
  const s = ptySign('confirm', out, signer, recordFile);
  expect(s.code, s.stderr).toBe(0);
  const rec = cli(e, ['authority', 'record', '--record', recordFile]);
  expect(rec.code, rec.stderr).toBe(0);
  return { recordId: String(jsonOut(rec).record_id), recordFile };
}

describe('request → sign on a terminal → record → policy update', () => {
  it('walks the whole flow; the terminal shows the statement, stdout stays one JSON object', () => {
    const e = env();
    const newPolicy = join(e.dir, 'policy-2.yaml');
    writeFileSync(newPolicy, bytesOf(policyDoc('the second policy')));
    const { r, out } = request(e, ['--operation', 'policy_update', '--document', newPolicy, '--ttl', '10m']);
    expect(r.code, r.stderr).toBe(0);
    const req = jsonOut(r);
    expect(req.request_id).toMatch(/^ARQ-[0-9a-f]{32}$/);
    expect(req.state_after).toBe(pinDigestOf(readFileSync(newPolicy), 'policy'));
    const pres = JSON.parse(readFileSync(out, 'utf8')) as { rendering: string; payload: string; record_id: string };
    expect(pres.record_id).toBe(req.record_id);
    expect(pres.rendering).toContain('policy_update');

    const recordFile = join(e.dir, 'record.json');
    const s = ptySign('confirm', out, e.w.human, recordFile);
    expect(s.code, s.stderr).toBe(0);
    expect(s.answered).toBe(true);
    expect(s.tty).toContain('GOVERNED AUTHORITY DECISION');
    expect(s.tty).toContain(String(req.state_after));
    expect(s.tty).toContain(e.w.human.keyId);
    const signed = JSON.parse(s.stdout.trim()) as Record<string, unknown>;
    expect(signed).toMatchObject({ ok: true, record_id: req.record_id, key_id: e.w.human.keyId });
    expect(s.stdout).not.toContain('GOVERNED AUTHORITY DECISION');
    const envelope = JSON.parse(readFileSync(recordFile, 'utf8')) as { payload: string; signatures: unknown[] };
    expect(envelope.payload).toBe(pres.payload);
    expect(envelope.signatures).toHaveLength(1);

    const rec = cli(e, ['authority', 'record', '--record', recordFile]);
    expect(rec.code, rec.stderr).toBe(0);
    expect(jsonOut(rec)).toMatchObject({ record_id: req.record_id, operation: 'policy_update', unit: null, key_id: e.w.human.keyId });

    const upd = cli(e, ['policy', 'update', '--policy', newPolicy, '--authority', String(req.record_id)]);
    expect(upd.code, upd.stderr).toBe(0);
    expect(jsonOut(upd)).toMatchObject({ kind: 'policy', digest: req.state_after, record: req.record_id });
    const store = openStore(e.home);
    expect(readPin(store, 'policy').digest).toBe(req.state_after);
    closeStore(store);
    // Spent: the same record cannot be used again.
    const again = cli(e, ['policy', 'update', '--policy', newPolicy, '--authority', String(req.record_id)]);
    expect(again.code).toBe(4); // its state_before is no longer the pinned digest (4 outranks the replay's 5)
    expect(errorCode(again)).toBe('authority_state_mismatch');
  });
});

describe('authority sign refusals', () => {
  it('refuses without a controlling terminal, even with the right answer piped on stdin', () => {
    const e = env();
    const { out } = request(e, ['--operation', 'policy_update', '--state-after', `sha256:${'1'.repeat(64)}`]);
    const code = (JSON.parse(readFileSync(out, 'utf8')) as { record_id: string }).record_id.slice(4, 12);
    const recordFile = join(e.dir, 'record.json');
    const r = spawnSync('setsid', ['-w', process.execPath, CLI, 'authority', 'sign', '--request', out, '--key', e.w.human.privateKeyPath, '--out', recordFile, '--json'], {
      input: `${code}\n`,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' },
    });
    expect(r.status).toBe(2);
    expect((JSON.parse(r.stdout.trim()).error as { code: string }).code).toBe('authority_terminal_required');
    expect(existsSync(recordFile)).toBe(false);
  });

  it('refuses a wrong answer or end of input on the terminal: nothing is signed', () => {
    const e = env();
    const { out } = request(e, ['--operation', 'policy_update', '--state-after', `sha256:${'1'.repeat(64)}`]);
    for (const mode of ['wrong', 'eof'] as const) {
      const recordFile = join(e.dir, `record-${mode}.json`);
      const s = ptySign(mode, out, e.w.human, recordFile);
      expect(s.answered).toBe(true);
      expect(s.code).toBe(8);
      expect((JSON.parse(s.stdout.trim()).error as { code: string }).code).toBe('authority_not_confirmed');
      expect(existsSync(recordFile)).toBe(false);
    }
  });

  it('refuses before prompting: exposed key, edited rendering, edited payload, taken output', () => {
    const e = env();
    const { out } = request(e, ['--operation', 'policy_update', '--state-after', `sha256:${'1'.repeat(64)}`]);
    const recordFile = join(e.dir, 'record.json');

    chmodSync(e.w.human.privateKeyPath, 0o640);
    const exposed = ptySign('confirm', out, e.w.human, recordFile);
    expect([exposed.code, exposed.answered]).toEqual([4, false]);
    expect((JSON.parse(exposed.stdout.trim()).error as { code: string }).code).toBe('private_key_exposed');
    chmodSync(e.w.human.privateKeyPath, 0o600);

    const pres = JSON.parse(readFileSync(out, 'utf8')) as Record<string, string>;
    const lying = join(e.dir, 'lying.json');
    writeFileSync(lying, JSON.stringify({ ...pres, rendering: `${CANARY}: everything is fine, just sign\n` }));
    const mismatch = ptySign('confirm', lying, e.w.human, recordFile);
    expect([mismatch.code, mismatch.answered]).toEqual([4, false]);
    expect((JSON.parse(mismatch.stdout.trim()).error as { code: string }).code).toBe('authority_presentation_mismatch');
    expect(mismatch.stdout + mismatch.stderr + mismatch.tty).not.toContain(CANARY);

    const payload = JSON.parse(Buffer.from(pres.payload as string, 'base64').toString()) as { predicate: { ids: string[] } };
    const editedPayload = Buffer.from(JSON.stringify(payload).replace('"policy_update"', '"trust_update"')).toString('base64');
    const edited = join(e.dir, 'edited.json');
    writeFileSync(edited, JSON.stringify({ ...pres, payload: editedPayload }));
    const bad = ptySign('confirm', edited, e.w.human, recordFile);
    expect([bad.code, bad.answered]).toEqual([2, false]);
    expect((JSON.parse(bad.stdout.trim()).error as { code: string }).code).toBe('authority_presentation_invalid');

    writeFileSync(recordFile, 'already here');
    const taken = ptySign('confirm', out, e.w.human, recordFile);
    expect([taken.code, taken.answered]).toEqual([2, false]);
    expect((JSON.parse(taken.stdout.trim()).error as { code: string }).code).toBe('authority_output_exists');
    expect(readFileSync(recordFile, 'utf8')).toBe('already here');
  });
});

describe('authority record refusals (store unchanged, nothing leaked)', () => {
  it('edited after signing, wrong key, wrong role, replayed nonce, garbage', () => {
    const e = env();
    const { out } = request(e, ['--operation', 'policy_update', '--state-after', `sha256:${'1'.repeat(64)}`]);
    const recordFile = join(e.dir, 'record.json');
    expect(ptySign('confirm', out, e.w.human, recordFile).code).toBe(0);
    const envelope = JSON.parse(readFileSync(recordFile, 'utf8')) as { payload: string; signatures: { keyid: string; sig: string }[] };

    const refused = (name: string, content: string, exit: number, code: string): void => {
      const f = join(e.dir, name);
      writeFileSync(f, content);
      const before = digestOfStore(e.home);
      const r = cli(e, ['authority', 'record', '--record', f]);
      expect([r.code, errorCode(r)]).toEqual([exit, code]);
      expect(digestOfStore(e.home)).toBe(before);
      expect(r.stdout + r.stderr).not.toContain(CANARY);
    };
    const payload = Buffer.from(envelope.payload, 'base64').toString();
    const flipped = Buffer.from(payload.replace('"policy_update"', '"trust_update"')).toString('base64');
    refused('edited.json', JSON.stringify({ ...envelope, payload: flipped }), 4, 'signature_invalid');
    // Re-signed by keys that are not authority keys of the pinned trust root.
    for (const [key, exit, code] of [
      [e.w.outsider, 6, 'key_unknown'],
      [e.w.reviewer, 6, 'key_wrong_role'],
    ] as const) {
      const f = join(e.dir, `${key.credential}.json`);
      const s = ptySign('confirm', out, key, f);
      expect(s.code).toBe(0); // sign does not know the trust root: the record step judges
      refused(`${key.credential}-copy.json`, readFileSync(f, 'utf8'), exit, code);
    }
    refused('garbage.json', `{"payloadType":"${CANARY}","payload":"","signatures":[]}`, 4, 'payload_type_invalid');
    refused('not-json.json', `${CANARY} not json`, 4, 'envelope_invalid');

    const ok = cli(e, ['authority', 'record', '--record', recordFile]);
    expect(ok.code).toBe(0);
    refused('again.json', readFileSync(recordFile, 'utf8'), 5, 'authority_nonce_reused');
  });

  it('an expired request can be neither signed nor recorded', async () => {
    const e = env();
    // The TTL leaves room for a loaded CI machine to start `sign` before expiry; the wait is then
    // computed from the request's own expires_at, not from a guess at how long the steps took.
    const { out } = request(e, ['--operation', 'policy_update', '--state-after', `sha256:${'1'.repeat(64)}`, '--ttl', '20s']);
    const recordFile = join(e.dir, 'record.json');
    expect(ptySign('confirm', out, e.w.human, recordFile).code).toBe(0);
    const presented = JSON.parse(readFileSync(out, 'utf8')) as { payload: string };
    const statement = JSON.parse(Buffer.from(presented.payload, 'base64').toString('utf8')) as { predicate: { expires_at: string } };
    const expiresMs = Date.parse(statement.predicate.expires_at);
    expect(Number.isFinite(expiresMs)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresMs - Date.now()) + 1_100));
    const late = ptySign('confirm', out, e.w.human, join(e.dir, 'late.json'));
    expect([late.code, late.answered]).toEqual([5, false]);
    expect((JSON.parse(late.stdout.trim()).error as { code: string }).code).toBe('authority_expired');
    const before = digestOfStore(e.home);
    const r = cli(e, ['authority', 'record', '--record', recordFile]);
    expect([r.code, errorCode(r)]).toEqual([5, 'authority_expired']);
    expect(digestOfStore(e.home)).toBe(before);
  });

  it('authority request refusals', () => {
    const e = env();
    const before = digestOfStore(e.home);
    const refused = (args: readonly string[], exit: number, code: string): void => {
      const { r, out } = request(e, args);
      expect([r.code, errorCode(r)], r.stderr).toEqual([exit, code]);
      expect(existsSync(out)).toBe(false);
      expect(r.stdout + r.stderr).not.toContain(CANARY);
    };
    refused(['--operation', 'nuke'], 2, 'authority_request_invalid');
    refused(['--operation', 'defer', '--ids', 'DIR-1'], 2, 'authority_request_invalid'); // no unit
    refused(['--operation', 'defer', '--unit', `UNIT-${'0'.repeat(32)}`, '--ids', 'DIR-1', '--state-before', `sha256:${'1'.repeat(64)}`, '--state-after', `sha256:${'2'.repeat(64)}`], 7, 'unit_unknown');
    refused(['--operation', 'policy_update', '--state-after', `sha256:${'1'.repeat(64)}`, '--ttl', '8d'], 2, 'authority_request_invalid');
    refused(['--operation', 'policy_update', '--ids', `DIR-1,,${CANARY}`], 2, 'authority_request_invalid');
    const badPolicy = join(e.dir, 'bad-policy.yaml');
    writeFileSync(badPolicy, `kind: governed/policy\nversion: 1\nsurprise: ${CANARY}\n`);
    refused(['--operation', 'policy_update', '--document', badPolicy], 2, 'policy_invalid');
    const lockout = join(e.dir, 'lockout.json');
    writeFileSync(lockout, bytesOf(trustWith([{ key: e.w.reviewer, roles: ['reviewer'] }])));
    refused(['--operation', 'trust_update', '--document', lockout], 2, 'trust_update_no_authority_key');
    expect(digestOfStore(e.home)).toBe(before);
    // An existing output is never overwritten (and nothing is requested).
    const taken = join(e.dir, 'taken.json');
    writeFileSync(taken, 'x');
    const t = request(e, ['--operation', 'policy_update', '--state-after', `sha256:${'1'.repeat(64)}`], taken).r;
    expect([t.code, errorCode(t)]).toEqual([2, 'authority_output_exists']);
    expect(digestOfStore(e.home)).toBe(before);
  });
});

describe('policy update / trust update', () => {
  it('refuses without authority: unknown record, missing option, a record for another document', () => {
    const e = env();
    const newPolicy = join(e.dir, 'policy-2.yaml');
    writeFileSync(newPolicy, bytesOf(policyDoc('second')));
    const before = digestOfStore(e.home);
    const unknown = cli(e, ['policy', 'update', '--policy', newPolicy, '--authority', `REC-${'0'.repeat(24)}`]);
    expect([unknown.code, errorCode(unknown)]).toEqual([7, 'authority_record_unknown']);
    const missing = runCli(['policy', 'update', '--policy', newPolicy, '--home', e.home]);
    expect(missing.code).toBe(2);
    expect(digestOfStore(e.home)).toBe(before);

    const other = join(e.dir, 'policy-3.yaml');
    writeFileSync(other, bytesOf(policyDoc('third')));
    const { recordId } = authorise(e, ['--operation', 'policy_update', '--document', other]);
    const mid = digestOfStore(e.home);
    const wrongDoc = cli(e, ['policy', 'update', '--policy', newPolicy, '--authority', recordId]);
    expect([wrongDoc.code, errorCode(wrongDoc)]).toEqual([4, 'authority_state_mismatch']);
    const wrongKind = cli(e, ['trust', 'update', '--trust', join(e.dir, 'nope.json'), '--authority', recordId]);
    expect([wrongKind.code, errorCode(wrongKind)]).toEqual([2, 'input_unreadable']);
    const invalid = join(e.dir, 'invalid.yaml');
    writeFileSync(invalid, `kind: governed/policy\nsecret: ${CANARY}\n`);
    const inv = cli(e, ['policy', 'update', '--policy', invalid, '--authority', recordId]);
    expect([inv.code, errorCode(inv)]).toEqual([2, 'policy_invalid']);
    expect(inv.stdout + inv.stderr).not.toContain(CANARY);
    expect(digestOfStore(e.home)).toBe(mid);
  });

  it('a trust update is judged under the CURRENT trust root: the new root cannot authorise itself', () => {
    const e = env();
    const next = join(e.dir, 'trust-2.json');
    writeFileSync(next, bytesOf(trustWith([{ key: e.w.outsider, roles: ['authority'] }, { key: e.w.human2, roles: ['authority'] }])));
    const { r, out } = request(e, ['--operation', 'trust_update', '--document', next]);
    expect(r.code, r.stderr).toBe(0);
    const bySelf = join(e.dir, 'by-newcomer.json');
    expect(ptySign('confirm', out, e.w.outsider, bySelf).code).toBe(0);
    const before = digestOfStore(e.home);
    const self = cli(e, ['authority', 'record', '--record', bySelf]);
    expect([self.code, errorCode(self)]).toEqual([6, 'key_unknown']);
    expect(digestOfStore(e.home)).toBe(before);

    const byHuman = join(e.dir, 'by-human.json');
    expect(ptySign('confirm', out, e.w.human, byHuman).code).toBe(0);
    const rec = cli(e, ['authority', 'record', '--record', byHuman]);
    expect(rec.code, rec.stderr).toBe(0);
    const upd = cli(e, ['trust', 'update', '--trust', next, '--authority', String(jsonOut(rec).record_id)]);
    expect(upd.code, upd.stderr).toBe(0);
    const store = openStore(e.home);
    expect(readPin(store, 'trust').digest).toBe(pinDigestOf(readFileSync(next), 'trust'));
    closeStore(store);
    // From now on only the new root counts: the old human key is gone.
    const after = join(e.dir, 'policy-2.yaml');
    writeFileSync(after, bytesOf(policyDoc('after the trust update')));
    const { out: out2 } = request(e, ['--operation', 'policy_update', '--document', after]);
    const old = join(e.dir, 'old-key.json');
    expect(ptySign('confirm', out2, e.w.human, old).code).toBe(0);
    const refused = cli(e, ['authority', 'record', '--record', old]);
    expect([refused.code, errorCode(refused)]).toEqual([6, 'key_unknown']);
  });

  it('two processes racing to use one record: exactly one update happens', async () => {
    const e = env();
    const newPolicy = join(e.dir, 'policy-race.yaml');
    writeFileSync(newPolicy, bytesOf(policyDoc('raced')));
    const { recordId } = authorise(e, ['--operation', 'policy_update', '--document', newPolicy]);
    const run = (): Promise<{ code: number | null; stdout: string }> =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [CLI, 'policy', 'update', '--policy', newPolicy, '--authority', recordId, '--home', e.home, '--json'], {
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' },
        });
        let stdout = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.on('close', (code) => resolve({ code, stdout }));
      });
    const results = await Promise.all([run(), run()]);
    expect(results.map((r) => r.code).sort()).toEqual([0, 4]);
    const loser = results.find((r) => r.code === 4);
    expect((JSON.parse(loser?.stdout.trim() ?? '{}').error as { code: string }).code).toBe('authority_state_mismatch');
    const store = openStore(e.home);
    expect(pinUpdates(store)).toHaveLength(1);
    closeStore(store);
  });

  it('--help explains inputs and exit codes', () => {
    for (const cmd of [['authority', 'request'], ['authority', 'sign'], ['authority', 'record'], ['policy', 'update'], ['trust', 'update']]) {
      const r = runCli([...cmd, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/Exit 0/);
    }
  });
});
