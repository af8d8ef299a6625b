// Automatic checkpoints (docs/audit.md "Automatic checkpoints"): the policy field is optional
// (policies without it stay valid), the due rule is a function of the log alone, a command that
// appends writes the due checkpoint through the pinned tlog-note attestor into <home>/checkpoints/,
// and a failure to sign leaves the command's entries recorded, no checkpoint file (nor a temporary
// one) written, the command's exit the failure's code — and is caught up by the next append.
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPolicy } from '../src/core/policy.js';
import { checkpointDue } from '../src/core/tlog-auto.js';
import { REPO_ROOT } from './helpers/cli.js';
import { writeJson } from './helpers/receipts.js';
import { planningRequiredPolicy, policyDigestOf, type Story } from './gate-world.js';
import { cleanupDirs, gov, makeKeys, makeWorld, policyDoc, setupUnit } from './state-helpers.js';
import { jsonOut as jsonOf } from './helpers/cli.js';

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

describe('policy tlog_checkpoints', () => {
  it('is optional and additive; at least one of every_entries / every; closed', () => {
    const base = policyDoc(makeKeys());
    expect(() => loadPolicy(base)).not.toThrow();
    expect(loadPolicy({ ...base, tlog_checkpoints: { every_entries: 100 } }).doc.tlog_checkpoints).toEqual({ every_entries: 100 });
    expect(loadPolicy({ ...base, tlog_checkpoints: { every: '1h' } }).doc.tlog_checkpoints).toEqual({ every: '1h' });
    for (const bad of [{}, { every_entries: 0 }, { every: '1 hour' }, { every_entries: 5, extra: 1 }, { every_entries: 1.5 }]) {
      let code = '';
      try {
        loadPolicy({ ...base, tlog_checkpoints: bad });
      } catch (e) {
        code = (e as { code: string }).code;
      }
      expect(code, JSON.stringify(bad)).toBe('policy_invalid');
    }
  });

  it('the due rule: N entries past the newest checkpoint, or a newest entry T later than the newest covered one', () => {
    const log = (entries: number, headTime: number) => ({ entries, headTime });
    expect(checkpointDue({ every_entries: 3 }, log(2, 10), { size: 0, time: 1 })).toBe(false);
    expect(checkpointDue({ every_entries: 3 }, log(3, 10), { size: 0, time: 1 })).toBe(true);
    expect(checkpointDue({ every_entries: 3 }, log(5, 10), { size: 3, time: 1 })).toBe(false);
    expect(checkpointDue({ every_entries: 3 }, log(6, 10), { size: 3, time: 1 })).toBe(true);
    expect(checkpointDue({ every: '1m' }, log(9, 100), { size: 4, time: 41 })).toBe(false);
    expect(checkpointDue({ every: '1m' }, log(9, 101), { size: 4, time: 41 })).toBe(true);
    // Nothing appended since the newest checkpoint: never due, however long ago it was made.
    expect(checkpointDue({ every: '1m', every_entries: 1 }, log(9, 10_000), { size: 9, time: 1 })).toBe(false);
  });
});

let s: Story;
let att: string;
let program: Buffer;
const cpDir = (): string => join(s.w.home, 'checkpoints');
const SLOTS = ['source_fidelity', 'baseline_preservation', 'implementation_test', 'authority_release'];
let asked = 0;
/** One review-challenge (each appends one entry), rotating over the slots (each has a budget). */
const ask = () => gov(s.w, ['review-challenge', '--unit', s.unit, '--writer-session', 'writer-1', '--stage', 'planning', '--slot', SLOTS[asked++ % 4] as string, '--json']);
const entries = (): number => {
  const r = gov(s.w, ['audit', 'verify', '--json']);
  return (jsonOf(r) as { log: { entries: number } }).log.entries;
};

beforeAll(() => {
  const keys = makeKeys();
  const doc = planningRequiredPolicy(keys) as { credentials: Record<string, unknown>; tlog_checkpoints?: unknown };
  const w0 = makeWorld({ policy: doc, keys });
  // The attestors live at the default place, <home>/attestors, so every command finds them.
  mkdirSync(w0.home, { mode: 0o700 });
  chmodSync(w0.home, 0o700);
  att = join(w0.home, 'attestors');
  mkdirSync(att, { mode: 0o700 });
  const cfg = writeJson(join(att, 'log.json'), { credential: 'log', kind: 'tlog-checkpoint', key_id: keys.log.keyId, key_ref: keys.log.privateKeyPath, origin: 'governed.example/auto' });
  program = readFileSync(join(REPO_ROOT, 'attestors', 'tlog-note.mjs'));
  writeFileSync(join(att, 'log.mjs'), program);
  doc.credentials.log = { key_id: keys.log.keyId, attestor_sha256: [sha(program)], attestor_config_sha256: [sha(readFileSync(cfg))] };
  doc.tlog_checkpoints = { every_entries: 4 };
  writeJson(w0.policyFile, doc);
  const unit = setupUnit(w0, 'writer-1');
  s = { w: w0, unit, policyDigest: '', baseline: w0.baseline, subject: w0.baseline, receipts: [] };
}, 120_000);
afterAll(cleanupDirs);

describe('automatic checkpoints', () => {
  it('a command that appends writes the due checkpoint; each verifies against the log', () => {
    // Setup appended 3 entries (init, unit create, writer register): not due at 4.
    for (let i = 0; i < 3; i++) expect(ask().code).toBe(0);
    const names = readdirSync(cpDir()).sort();
    expect(names.length).toBeGreaterThanOrEqual(1);
    for (const n of names) expect(n).toMatch(/^[0-9]{20}\.note$/);
    const sizes = names.map((n) => Number(n.slice(0, 20)));
    expect(sizes[0]).toBeGreaterThanOrEqual(4);
    for (let i = 1; i < sizes.length; i++) expect((sizes[i] as number) - (sizes[i - 1] as number)).toBeGreaterThanOrEqual(4);
    const files = names.map((n) => join(cpDir(), n));
    const v = gov(s.w, ['audit', 'verify', '--checkpoint', ...files, '--json']);
    expect(v.code, v.stdout).toBe(0);
    expect((jsonOf(v) as { checkpoints: { matches: boolean }[] }).checkpoints.every((c) => c.matches)).toBe(true);
  }, 120_000);

  it('a failure to sign: the entry stays recorded, no checkpoint or temporary file, the exit is the code; the next append catches up', () => {
    const before = readdirSync(cpDir()).sort();
    const n0 = entries();
    // An attestor the policy does not pin: nothing runs (attestor_not_allowlisted, 6).
    writeFileSync(join(att, 'log.mjs'), Buffer.concat([program, Buffer.from('\n// changed\n')]));
    let last: ReturnType<typeof gov> | null = null;
    for (let i = 0; i < 4; i++) {
      last = ask();
      if (last.code !== 0) break;
    }
    expect(last?.code).toBe(6);
    const out = jsonOf(last as ReturnType<typeof gov>) as { challenge_id?: string; tlog_checkpoint: { written: unknown[]; error: { code: string } } };
    expect(out.challenge_id).toMatch(/^CHL-/); // the command's own result is printed: its entry is recorded
    expect(out.tlog_checkpoint.error.code).toBe('attestor_not_allowlisted');
    expect(out.tlog_checkpoint.written).toEqual([]);
    expect(readdirSync(cpDir()).sort()).toEqual(before); // no checkpoint, no temporary file
    expect(entries()).toBeGreaterThan(n0);
    // The due checkpoint is missing: the gate refuses until it is written.
    const g = gov(s.w, ['gate', '--unit', s.unit, '--trust', s.w.trustFile, '--policy-digest', policyDigestOf(s.w), '--subject', s.baseline, '--json']);
    expect(g.code).toBe(8);
    expect((jsonOf(g) as { error: { code: string } }).error.code).toBe('tlog_checkpoint_overdue');
    // Restored: the next append writes the checkpoint of the whole log, including what was missed.
    writeFileSync(join(att, 'log.mjs'), program);
    const ok = ask();
    expect(ok.code, ok.stderr).toBe(0);
    const w = (jsonOf(ok) as { tlog_checkpoint: { written: { file: string; tree_size: number }[] } }).tlog_checkpoint.written;
    expect(w.length).toBe(1);
    expect(w[0]?.tree_size).toBe(entries());
    expect(readdirSync(cpDir()).filter((f) => f.startsWith('.'))).toEqual([]);
    // Positive control: with the checkpoint written, the gate goes on to judge the unit (no receipts: 7).
    const g2 = gov(s.w, ['gate', '--unit', s.unit, '--trust', s.w.trustFile, '--policy-digest', policyDigestOf(s.w), '--subject', s.baseline, '--json']);
    expect((jsonOf(g2) as { error: { code: string } }).error.code).toBe('gate_no_evidence');
  }, 120_000);

  it('a stored checkpoint the log key did not sign is refused before anything is signed', () => {
    const names = readdirSync(cpDir()).sort();
    const newest = join(cpDir(), names[names.length - 1] as string);
    const text = readFileSync(newest, 'utf8');
    // One character of the signature line changed.
    const i = text.lastIndexOf(' ') + 5;
    const bad = text.slice(0, i) + (text[i] === 'A' ? 'B' : 'A') + text.slice(i + 1);
    writeFileSync(newest, bad);
    let r: ReturnType<typeof gov> | null = null;
    for (let k = 0; k < 4; k++) {
      r = ask();
      if (r.code !== 0) break;
    }
    const out = jsonOf(r as ReturnType<typeof gov>) as { tlog_checkpoint: { error: { code: string } } };
    expect(out.tlog_checkpoint.error.code).toBe('tlog_checkpoint_untrusted');
    expect(readdirSync(cpDir()).sort()).toEqual(names);
    writeFileSync(newest, text);
  }, 120_000);
});
