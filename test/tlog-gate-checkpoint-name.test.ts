// The gate's `tlog_checkpoint_overdue` check (docs/audit.md "Automatic checkpoints") reads only the
// newest stored note's NAME. A name whose tree size is beyond the log's own size cannot be a
// checkpoint of this log (the writer's own step refuses it: tlog_log_truncated), so it must not
// stop a due checkpoint from being overdue: a stray or planted `99999999999999999999.note` would
// otherwise switch the refusal off while no checkpoint was ever signed.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeJson } from './helpers/receipts.js';
import { jsonOut } from './helpers/cli.js';
import { planningRequiredPolicy, policyDigestOf } from './gate-world.js';
import { cleanupDirs, gov, makeKeys, makeWorld, setupUnit, type World } from './state-helpers.js';

let w: World;
let unit: string;
const SLOTS = ['source_fidelity', 'baseline_preservation', 'implementation_test', 'authority_release'];
const gate = () => gov(w, ['gate', '--unit', unit, '--trust', w.trustFile, '--policy-digest', policyDigestOf(w), '--subject', w.baseline, '--json']);
const codeOf = (r: ReturnType<typeof gov>): string => (jsonOut(r) as { error?: { code: string } }).error?.code ?? 'none';

beforeAll(() => {
  const keys = makeKeys();
  const doc = planningRequiredPolicy(keys) as { tlog_checkpoints?: unknown };
  doc.tlog_checkpoints = { every_entries: 8 };
  w = makeWorld({ policy: doc, keys });
  writeJson(w.policyFile, doc);
  mkdirSync(w.home, { mode: 0o700 });
  chmodSync(w.home, 0o700);
  unit = setupUnit(w, 'writer-1');
  // No log attestor is installed: every due checkpoint fails to be signed (the entries stay).
  for (let i = 0; i < 4; i++) gov(w, ['review-challenge', '--unit', unit, '--writer-session', 'writer-1', '--stage', 'planning', '--slot', SLOTS[i] as string, '--json']);
}, 120_000);
afterAll(cleanupDirs);

describe('gate: a checkpoint name beyond the log does not make a due checkpoint look written', () => {
  it('positive control: the due checkpoint is missing, the gate refuses tlog_checkpoint_overdue', () => {
    const g = gate();
    expect(g.code).toBe(8);
    expect(codeOf(g)).toBe('tlog_checkpoint_overdue');
  });

  it('a planted note named for a tree size the log never had: still tlog_checkpoint_overdue', () => {
    const dir = join(w.home, 'checkpoints');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, '99999999999999999999.note'), '', { mode: 0o600 });
    const g = gate();
    expect(codeOf(g)).toBe('tlog_checkpoint_overdue');
    expect(g.code).toBe(8);
  });
});
