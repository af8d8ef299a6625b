// `gate` never exits 0 on an error path (docs/gate.md#7-measurements-benchgate; docs/commands.md#exit-codes, docs/decision.md#8-delivery-state-and-reason-codes): each refusal
// asserts its exact error code and exit code, one DENY decision object on stdout, the store
// unchanged, and no secret or rejected value in the output. Every tampering test edits its own copy
// of a story that is RELEASE_ELIGIBLE (positive control: the untouched copy exits 0).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GIT } from './helpers/git-repo.js';
import { makeKey, trustRootDoc } from './helpers/receipts.js';
import { cleanupDirs, govOk, tempDir, trustDoc, writeJsonFile } from './state-helpers.js';
import { cloneHome, eligibleStory, expectGateRefused, gate, gateJson, SESSION, type Story } from './gate-world.js';

let s: Story;
const CANARY = 'CANARYVALUE7f3e';

beforeAll(() => {
  s = eligibleStory();
});
afterAll(() => cleanupDirs());

function edit(home: string, sql: string, ...params: unknown[]): void {
  const db = new Database(join(home, 'governed.db'));
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

function trustFile(doc: Record<string, unknown>, name = 'trust-alt.json'): string {
  return writeJsonFile(join(tempDir('governed-gate-trust-'), name), doc);
}

describe('positive control', () => {
  it('the untouched story exits 0, and so does a clone of its state directory', () => {
    expect(gate(s).code).toBe(0);
    expect(gate(s, { home: cloneHome(s) }).code).toBe(0);
  });
});

describe('the three anchors (docs/decision.md#8-delivery-state-and-reason-codes: all come from the deploy side)', () => {
  it.each([
    ['--unit', { unit: null }],
    ['--trust', { trust: null }],
    ['--policy-digest', { policyDigest: null }],
    ['--subject', { subject: null }],
  ] as const)('without %s: usage error 2', (flag, call) => {
    const d = expectGateRefused(s, call, 'gate_anchor_missing', 2);
    expect(d.error?.ids).toEqual([flag]);
  });

  it('without any anchor: one error naming all four', () => {
    const d = expectGateRefused(s, { unit: null, trust: null, policyDigest: null, subject: null }, 'gate_anchor_missing', 2);
    expect(d.error?.ids).toEqual(['--unit', '--trust', '--policy-digest', '--subject']);
  });

  it('a malformed policy digest or subject is a usage error, never echoed', () => {
    for (const [call, code] of [
      [{ policyDigest: `sha256:${CANARY}` }, 'gate_policy_digest_invalid'],
      [{ subject: `${CANARY}` }, 'gate_subject_invalid'],
      [{ subject: s.subject.slice(0, 12) }, 'gate_subject_invalid'],
      [{ subject: 'HEAD' }, 'gate_subject_invalid'],
    ] as const) {
      const d = expectGateRefused(s, call, code, 2);
      expect(JSON.stringify(d)).not.toContain(CANARY);
    }
  });

  it('a policy digest that differs from the pinned policy: exit 4', () => {
    expectGateRefused(s, { policyDigest: `sha256:${'0'.repeat(64)}` }, 'gate_policy_digest_mismatch', 4);
  });
});

describe('missing or broken state', () => {
  it('no state directory at all: store_missing (2)', () => {
    expectGateRefused(s, { home: join(tempDir(), 'nothing') }, 'store_missing', 2);
  });

  it('a state directory without a database: store_missing (2)', () => {
    const home = join(tempDir(), 'state');
    mkdirSync(join(home, 'bundles'), { recursive: true, mode: 0o700 });
    execFileSync('/bin/chmod', ['700', home]);
    expectGateRefused(s, { home }, 'store_missing', 2);
  });

  it('a database file that is not SQLite: internal error (1), never 0', () => {
    const home = cloneHome(s);
    writeFileSync(join(home, 'governed.db'), Buffer.alloc(8192, 0x41));
    for (const f of ['governed.db-wal', 'governed.db-shm']) execFileSync('/bin/rm', ['-f', join(home, f)]);
    const r = gate(s, { home });
    expect(r.code).toBe(1);
    expect(gateJson(r)).toMatchObject({ decision: 'DENY', state: null, error: { code: 'internal_error' } });
  });

  it('an unreadable pinned policy (bytes edited): pin_integrity_failed (4)', () => {
    const home = cloneHome(s);
    edit(home, "UPDATE pins SET bytes = ? WHERE kind = 'policy'", Buffer.from(`{"kind": "${CANARY}"`));
    const d = expectGateRefused(s, { home }, 'pin_integrity_failed', 4);
    expect(JSON.stringify(d)).not.toContain(CANARY);
  });

  it('a pinned policy replaced by another valid document: pin_integrity_failed (4)', () => {
    const home = cloneHome(s);
    edit(home, "UPDATE pins SET bytes = CAST(REPLACE(CAST(bytes AS TEXT), '\"streak\": 2', '\"streak\": 3') AS BLOB) WHERE kind = 'policy'");
    expectGateRefused(s, { home }, 'pin_integrity_failed', 4);
  });

  it('a contract row edited behind governed: scope_integrity_failed (4)', () => {
    const home = cloneHome(s);
    edit(home, 'UPDATE scope_versions SET contract_bytes = CAST(REPLACE(CAST(contract_bytes AS TEXT), \'CSV export\', \'TSV export\') AS BLOB)');
    expectGateRefused(s, { home }, 'scope_integrity_failed', 4);
  });

  it('a corrupt receipt row (its recorded time moved): not the row its log entry derives (4)', () => {
    const home = cloneHome(s);
    const id = s.receipts.find((r) => r.predicate.stage === 'integration')?.receiptId;
    edit(home, 'UPDATE receipts SET recorded_at = recorded_at - 1 WHERE id = ?', id);
    expectGateRefused(s, { home }, 'decision_table_log_mismatch', 4);
  });

  it('a corrupt receipt row (envelope bytes garbage): decision_fact_mismatch (4)', () => {
    const home = cloneHome(s);
    const id = s.receipts.find((r) => r.predicate.stage === 'planning')?.receiptId;
    edit(home, 'UPDATE receipts SET envelope = ? WHERE id = ?', Buffer.from('not json'), id);
    expectGateRefused(s, { home }, 'decision_fact_mismatch', 4);
  });

  it('a counted receipt row edited to claim another trust root: tampering (4), never 0', () => {
    const home = cloneHome(s);
    const id = s.receipts.find((r) => r.predicate.stage === 'integration')?.receiptId;
    edit(home, "UPDATE receipts SET trust_digest = ? WHERE id = ?", `sha256:${'1'.repeat(64)}`, id);
    // The row is no longer the one its run_receipt entry derives (it once merely stopped counting: 3).
    expectGateRefused(s, { home }, 'decision_table_log_mismatch', 4);
  });
});

describe('edited receipts (docs/formats.md#receipt: tamper-evident; exit 4)', () => {
  function editedEnvelope(envelope: Buffer): Buffer {
    const env = JSON.parse(envelope.toString('utf8')) as { payload: string };
    const payload = Buffer.from(env.payload, 'base64').toString('utf8').replace('"verdict":"CLEAN"', '"verdict":"CLEAN" ').replace('"pid":2,', '"pid":3,');
    env.payload = Buffer.from(payload.replace('"verdict":"CLEAN" ', '"verdict":"CLEAN"'), 'utf8').toString('base64');
    return Buffer.from(JSON.stringify(env));
  }

  it('edited in the receipts table only: the log entry no longer carries these bytes (4)', () => {
    const home = cloneHome(s);
    const r = s.receipts.find((x) => x.predicate.stage === 'integration');
    edit(home, 'UPDATE receipts SET envelope = ? WHERE id = ?', editedEnvelope(r?.envelope as Buffer), r?.receiptId);
    expectGateRefused(s, { home }, 'decision_fact_mismatch', 4);
  });

  it('edited in the receipts table AND the log (append-only trigger dropped): signature_invalid (4)', () => {
    const home = cloneHome(s);
    const r = s.receipts.find((x) => x.predicate.stage === 'integration');
    const forged = editedEnvelope(r?.envelope as Buffer);
    const db = new Database(join(home, 'governed.db'));
    try {
      db.exec('DROP TRIGGER log_no_update');
      const row = db.prepare('SELECT payload FROM log WHERE seq = ?').get(r?.seq) as { payload: Buffer };
      const payload = JSON.parse(row.payload.toString('utf8')) as Record<string, unknown>;
      payload.envelope_b64 = forged.toString('base64');
      db.prepare('UPDATE log SET payload = ? WHERE seq = ?').run(Buffer.from(JSON.stringify(payload)), r?.seq);
      db.prepare('UPDATE receipts SET envelope = ? WHERE id = ?').run(forged, r?.receiptId);
    } finally {
      db.close();
    }
    expectGateRefused(s, { home }, 'signature_invalid', 4);
  });
});

describe('unit and evidence (exit 7)', () => {
  it('an unknown unit', () => {
    expectGateRefused(s, { unit: `UNIT-${'0'.repeat(32)}` }, 'unit_unknown', 7);
  });
  it('a malformed unit id is unknown and never echoed', () => {
    const d = expectGateRefused(s, { unit: CANARY }, 'unit_unknown', 7);
    expect(JSON.stringify(d)).not.toContain(CANARY);
    expect(d.unit).toBeNull();
  });
});

describe('the deploy-side trust root (docs/decision.md#8-delivery-state-and-reason-codes: re-verified under THAT trust root)', () => {
  it('a trust root with other keys: key_unknown (6)', () => {
    const dir = tempDir();
    const other = { reviewer: makeKey(dir, 'reviewer'), runner: makeKey(dir, 'runner') };
    const file = trustFile(trustRootDoc([{ key: other.reviewer, roles: ['reviewer'] }, { key: other.runner, roles: ['runner'] }]));
    expectGateRefused(s, { trust: file }, 'key_unknown', 6);
  });

  it('the reviewer key holding the wrong role: key_wrong_role (6)', () => {
    const k = s.w.keys;
    const file = trustFile(trustRootDoc([{ key: k.reviewer, roles: ['gate'] }, { key: k.runner, roles: ['runner'] }]));
    expectGateRefused(s, { trust: file }, 'key_wrong_role', 6);
  });

  it('the reviewer key revoked before the receipts were recorded: key_revoked (6)', () => {
    const k = s.w.keys;
    const file = trustFile(trustRootDoc([{ key: k.reviewer, roles: ['reviewer'], revoked_at: '2021-01-01T00:00:00Z' }, { key: k.runner, roles: ['runner'] }]));
    expectGateRefused(s, { trust: file }, 'key_revoked', 6);
  });

  it('revoked only after the receipts\' log positions: they still count (judged at their log position)', () => {
    const k = s.w.keys;
    const file = trustFile(trustRootDoc([{ key: k.reviewer, roles: ['reviewer'], revoked_at: '2098-01-01T00:00:00Z' }, { key: k.runner, roles: ['runner'] }]));
    expect(gate(s, { trust: file }).code).toBe(0);
  });

  it('a key whose validity window ended before the receipts: key_outside_validity (6)', () => {
    const k = s.w.keys;
    const file = trustFile(trustRootDoc([{ key: k.reviewer, roles: ['reviewer'], not_after: '2022-01-01T00:00:00Z' }, { key: k.runner, roles: ['runner'] }]));
    expectGateRefused(s, { trust: file }, 'key_outside_validity', 6);
  });

  it('an expired trust root: trust_root_expired (5)', () => {
    const file = trustFile(trustDoc(s.w.keys, '2021-01-01T00:00:00Z'));
    expectGateRefused(s, { trust: file }, 'trust_root_expired', 5);
  });

  it('a trust root that is not a trust root: trust_root_invalid (2), or not JSON: json_invalid (2)', () => {
    expectGateRefused(s, { trust: trustFile({ version: 1, expires: '2099-01-01T00:00:00Z', keys: [], extra: CANARY }) }, 'trust_root_invalid', 2);
    const bad = join(tempDir(), 'trust.json');
    writeFileSync(bad, `{"version": 1, ${CANARY}`);
    expectGateRefused(s, { trust: bad }, 'json_invalid', 2);
    expectGateRefused(s, { trust: join(tempDir(), 'absent.json') }, 'input_unreadable', 2);
  });

  it('the same trust root in YAML verifies the same (the YAML parser is loaded only for it)', () => {
    const k = s.w.keys;
    const doc = trustDoc(k) as { keys: { key_id: string; public_key: string; roles: string[]; not_before: string; not_after: string }[]; expires: string };
    const yaml = [
      'version: 1',
      `expires: "${doc.expires}"`,
      'keys:',
      ...doc.keys.flatMap((x) => [
        `  - key_id: "${x.key_id}"`,
        '    public_key: |',
        ...x.public_key.trimEnd().split('\n').map((l) => `      ${l}`),
        `    roles: [${x.roles.join(', ')}]`,
        `    not_before: "${x.not_before}"`,
        `    not_after: "${x.not_after}"`,
      ]),
    ].join('\n');
    const file = join(tempDir(), 'trust.yaml');
    writeFileSync(file, `${yaml}\n`);
    const r = gate(s, { trust: file });
    expect(r.code).toBe(0);
    expect(gateJson(r).gateTrustDigest).toBe(gateJson(gate(s)).gateTrustDigest);
  });

  it('precedence (docs/commands.md#exit-codes): a differing policy digest (4) wins over an expired trust root (5) and an unknown unit (7)', () => {
    const file = trustFile(trustDoc(s.w.keys, '2021-01-01T00:00:00Z'));
    expectGateRefused(s, { trust: file, policyDigest: `sha256:${'0'.repeat(64)}`, unit: `UNIT-${'0'.repeat(32)}` }, 'gate_policy_digest_mismatch', 4);
    expectGateRefused(s, { trust: file, unit: `UNIT-${'0'.repeat(32)}` }, 'trust_root_expired', 5);
  });
});

describe('the subject is the reviewed content (docs/decision.md#8-delivery-state-and-reason-codes)', () => {
  it('a commit with different content: gate_subject_mismatch (4)', () => {
    s.w.repo.git('checkout', '-q', '-b', 'other', s.subject);
    s.w.repo.write('src/export.ts', 'export const evil = 1;\n');
    const other = s.w.repo.commitAll('unreviewed change');
    s.w.repo.git('checkout', '-q', 'main');
    expectGateRefused(s, { subject: other }, 'gate_subject_mismatch', 4);
  });

  it('an object that is not a commit of the repository: workspace_revision_unresolved (2)', () => {
    expectGateRefused(s, { subject: 'f'.repeat(40) }, 'workspace_revision_unresolved', 2);
    const tree = s.w.repo.git('rev-parse', `${s.subject}^{tree}`);
    expectGateRefused(s, { subject: tree }, 'workspace_revision_unresolved', 2);
  });

  it('a refs/replace object cannot fake the subject\'s content', () => {
    s.w.repo.git('checkout', '-q', '-b', 'fake', s.subject);
    s.w.repo.write('src/export.ts', 'export const backdoor = 1;\n');
    const fake = s.w.repo.commitAll('unreviewed change behind a replace ref');
    s.w.repo.git('checkout', '-q', 'main');
    s.w.repo.git('replace', fake, s.subject);
    try {
      // Positive control: git that honours replace refs shows the reviewed tree for the fake commit.
      const seen = execFileSync(GIT, ['rev-parse', `${fake}^{tree}`], { cwd: s.w.repo.root, encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } }).trim();
      expect(seen).toBe(s.w.repo.git('rev-parse', `${s.subject}^{tree}`));
      expectGateRefused(s, { subject: fake }, 'gate_subject_mismatch', 4);
      // And the reviewed commit itself still passes.
      expect(gate(s).code).toBe(0);
    } finally {
      s.w.repo.git('replace', '-d', fake);
    }
  });

  it('an expired but unswept lease keeps the unit REVIEW_ONLY (3), never 0', async () => {
    const home = cloneHome(s);
    const lease = govOk({ ...s.w, home }, ['lease', 'acquire', '--unit', s.unit, '--writer-session', SESSION, '--ttl', '1s']).lease as string;
    await new Promise((r) => setTimeout(r, 2100));
    const r = gate(s, { home });
    expect(r.code).toBe(3);
    expect(gateJson(r).reasons).toContainEqual({ code: 'lease_active', ids: [lease] });
  });
});
