// Human authority through the daemon (docs/runnerd.md "Human authority through the daemon"): real
// users (gvd-sep4-…, removed after the file), a real daemon, real keys. A writer uid asks the daemon
// for an authority request (`authority request --runner`), the human signs the presentation where
// the authority key lives (here: the test process, exactly as `authority sign` signs: Ed25519 over
// the DSSE PAE of the issued payload; the terminal path is tested in authority-cli), the writer brings
// the record back (`authority record --runner`), and the commands that consume records run through
// the daemon: `unit dismiss --runner`, `policy update --runner`, `trust update --runner`.
// Every attack — another writer's unit, another writer's request or record, a record signed by a key
// without the authority role, an update without a valid record, --home — is refused with its exact
// code and the daemon's store unchanged; each has its positive control (the owner, the right key).
import { sign as nodeSign } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEnvelope, IN_TOTO_PAYLOAD_TYPE } from '../src/core/dsse.js';
import { pae } from '../src/core/pae.js';
import { tablesDigest } from '../src/store/index.js';
import { jsonOut, type CliResult } from './helpers/cli.js';
import { makeTempDir } from './helpers/temp.js';
import type { TestKey } from './helpers/receipts.js';
import { trustDoc } from './state-helpers.js';
import { IS_ROOT, asUser, chownTree, idsOf, makeSepWorld, namesFor, removeSepUsers, startDaemon, type Daemon, type SepWorld } from './runnerd-helpers.js';

const NAMES = namesFor('gvd-sep4');

function storeDigest(home: string): string {
  const db = new Database(join(home, 'governed.db'), { readonly: true, fileMustExist: true });
  try {
    return tablesDigest(db);
  } finally {
    db.close();
  }
}

function pinUpdates(home: string, kind: 'policy' | 'trust'): number {
  const db = new Database(join(home, 'governed.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT count(*) FROM pin_updates WHERE kind = ?').pluck().get(kind) as number;
  } finally {
    db.close();
  }
}

const errCode = (r: CliResult): string | undefined => ((jsonOut(r) as { error?: { code?: string } | null }).error ?? {}).code;

/** Sign a presentation as `authority sign` does (the human's side), writing the DSSE record to `out`. */
function signPresentation(presentation: string, key: TestKey, out: string, owner: string): void {
  const p = JSON.parse(readFileSync(presentation, 'utf8')) as { payload: string };
  const payload = Buffer.from(p.payload, 'base64');
  const sig = nodeSign(null, pae(IN_TOTO_PAYLOAD_TYPE, payload), key.privateKey);
  writeFileSync(out, JSON.stringify(encodeEnvelope(IN_TOTO_PAYLOAD_TYPE, payload, [{ keyid: key.keyId, sig }])));
  chownTree(out, idsOf(owner));
}

describe.skipIf(!IS_ROOT)('separated mode: human authority records requested, recorded and consumed through the daemon', () => {
  let w: SepWorld;
  let d: Daemon;
  let unit: string;
  let dirty: string;
  let dir1: string;
  let dir2: string;
  let n = 0;
  const env = (): Record<string, string> => ({ GOVERNED_RUNNER: w.socket });
  const as = (user: string, args: string[]): CliResult => asUser(user, [...args, '--json'], { cwd: user === NAMES.writer1 ? w.repo.root : dir2, env: env() });
  const as1 = (args: string[]): CliResult => as(NAMES.writer1, args);
  const as2 = (args: string[]): CliResult => as(NAMES.writer2, args);
  const fresh = (dir: string, stem: string): string => join(dir, `${stem}-${++n}.json`);
  /** A file the writer owns (the writer reads it; the daemon never does). */
  const writerFile = (dir: string, owner: string, stem: string, text: string): string => {
    const f = fresh(dir, stem);
    writeFileSync(f, text);
    chownTree(f, idsOf(owner));
    return f;
  };
  /** A refusal: its exact code, and nothing of the daemon's store changed. */
  const refused = (r: () => CliResult, code: string): void => {
    const before = storeDigest(w.home);
    const res = r();
    expect(errCode(res), res.stdout + res.stderr).toBe(code);
    expect(res.code).not.toBe(0);
    expect(storeDigest(w.home)).toBe(before);
  };
  const dismissStateBefore = (): string => {
    const dry = as1(['unit', 'dismiss', '--unit', unit, '--dry-run', '--ids', dirty]);
    expect(dry.code, dry.stdout + dry.stderr).toBe(0);
    return jsonOut(dry).state_before as string;
  };

  beforeAll(async () => {
    w = await makeSepWorld({ names: NAMES });
    d = await startDaemon(w);
    dir1 = makeTempDir('gvd-sep4-w1-');
    dir2 = makeTempDir('gvd-sep4-w2-');
    chownTree(dir1, idsOf(NAMES.writer1));
    chownTree(dir2, idsOf(NAMES.writer2));
    chmodSync(dir1, 0o700);
    chmodSync(dir2, 0o700);
    const created = as1(['unit', 'create', '--contract', w.contractFile, '--baseline', w.baseline]);
    if (created.code !== 0) throw new Error(created.stdout + created.stderr);
    unit = jsonOut(created).unit as string;
    expect(as1(['writer', 'register', '--unit', unit, '--writer-session', 'agent-1']).code).toBe(0);
    const ch = as1(['review-challenge', '--unit', unit, '--writer-session', 'agent-1', '--stage', 'development', '--slot', 'dirty']);
    expect(ch.code, ch.stdout + ch.stderr).toBe(0);
    const run = as1(['review-run', '--challenge', jsonOut(ch).challenge_id as string]);
    expect(jsonOut(run).verdict, run.stdout + run.stderr).toBe('DIRTY');
    dirty = jsonOut(run).receipt_id as string;
  }, 180_000);
  afterAll(async () => {
    await d?.stop();
    removeSepUsers(NAMES);
  });

  it('authority request --runner for a unit operation: another writer is refused (runnerd_not_owner, nothing issued); the owner gets the presentation in its own --out', () => {
    const stateBefore = dismissStateBefore();
    const args = (out: string): string[] => ['authority', 'request', '--operation', 'dismiss', '--unit', unit, '--ids', dirty, '--state-before', stateBefore, '--out', out];
    refused(() => as2(args(fresh(dir2, 'req'))), 'runnerd_not_owner');
    // --home names the runner machine's store: refused, as every --runner command refuses it.
    refused(() => as1([...args(fresh(dir1, 'req')), '--home', dir1]), 'runnerd_option_not_remote');
    const out = fresh(dir1, 'req');
    const r = as1(args(out));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const o = jsonOut(r) as { request_id: string; record_id: string; out: string; operation: string; unit: string };
    expect(o).toMatchObject({ operation: 'dismiss', unit, out });
    const p = JSON.parse(readFileSync(out, 'utf8')) as { request_id: string; record_id: string; rendering: string };
    expect({ request: p.request_id, record: p.record_id }).toEqual({ request: o.request_id, record: o.record_id });
    expect(p.rendering).toContain('GOVERNED AUTHORITY DECISION');
    expect(r.stdout).not.toContain('presentation-');
  }, 60_000);

  it('authority record --runner and unit dismiss --runner: another writer can neither record nor consume the owner\'s record; a record signed without the authority role is refused; the owner records and dismisses', () => {
    const stateBefore = dismissStateBefore();
    const out = fresh(dir1, 'req');
    const req = as1(['authority', 'request', '--operation', 'dismiss', '--unit', unit, '--ids', dirty, '--state-before', stateBefore, '--out', out]);
    expect(req.code, req.stdout + req.stderr).toBe(0);
    const recordId = jsonOut(req).record_id as string;

    // A writer signs the statement with a key it is not trusted for (the reviewer key: role reviewer).
    const forged = fresh(dir1, 'forged');
    signPresentation(out, w.keys.reviewer, forged, NAMES.writer1);
    refused(() => as1(['authority', 'record', '--record', forged]), 'key_wrong_role');

    // The human signs with the authority key. Writer 2 gets a copy of the record: it is not its request.
    const signed = fresh(dir1, 'signed');
    signPresentation(out, w.keys.authority, signed, NAMES.writer1);
    const stolen = fresh(dir2, 'stolen');
    writeFileSync(stolen, readFileSync(signed));
    chownTree(stolen, idsOf(NAMES.writer2));
    refused(() => as2(['authority', 'record', '--record', stolen]), 'runnerd_not_owner');
    // Consuming before recording: unknown to the store (the co-located code).
    refused(() => as1(['unit', 'dismiss', '--unit', unit, '--authority', recordId]), 'authority_record_unknown');

    const rec = as1(['authority', 'record', '--record', signed]);
    expect(rec.code, rec.stdout + rec.stderr).toBe(0);
    expect(jsonOut(rec)).toMatchObject({ record_id: recordId, operation: 'dismiss', unit, key_id: w.keys.authority.keyId });
    // Recorded once: the same record again is a reused nonce, as in co-located mode.
    refused(() => as1(['authority', 'record', '--record', signed]), 'authority_nonce_reused');

    // Writer 2 names the owner's unit and record: refused before anything is judged.
    refused(() => as2(['unit', 'dismiss', '--unit', unit, '--authority', recordId]), 'runnerd_not_owner');
    const ok = as1(['unit', 'dismiss', '--unit', unit, '--authority', recordId]);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(jsonOut(ok)).toMatchObject({ dry_run: false, operation: 'dismiss', unit, record_id: recordId, ids: [dirty] });
    // Consumed once.
    refused(() => as1(['unit', 'dismiss', '--unit', unit, '--authority', recordId]), 'authority_replayed');
  }, 90_000);

  it('policy update --runner and trust update --runner: no update without a recorded authority record of the caller; another writer cannot use the owner\'s; the owner\'s replaces the pin', () => {
    const policy = JSON.parse(readFileSync(w.policyFile, 'utf8')) as Record<string, unknown>;
    const newPolicy = writerFile(dir1, NAMES.writer1, 'policy', JSON.stringify({ ...policy, max_runs_per_content: 999 }));
    const copy2 = writerFile(dir2, NAMES.writer2, 'policy', JSON.stringify({ ...policy, max_runs_per_content: 999 }));
    // No record at all / a record id the store never saw.
    refused(() => as1(['policy', 'update', '--policy', newPolicy, '--authority', `REC-${'0'.repeat(24)}`]), 'authority_record_unknown');

    const out = fresh(dir1, 'req');
    const req = as1(['authority', 'request', '--operation', 'policy_update', '--document', newPolicy, '--out', out]);
    expect(req.code, req.stdout + req.stderr).toBe(0);
    const recordId = jsonOut(req).record_id as string;
    const signed = fresh(dir1, 'signed');
    signPresentation(out, w.keys.authority, signed, NAMES.writer1);
    // A request with no unit is still its requester's: another writer cannot record it.
    const stolen = writerFile(dir2, NAMES.writer2, 'stolen', readFileSync(signed, 'utf8'));
    refused(() => as2(['authority', 'record', '--record', stolen]), 'runnerd_not_owner');
    expect(as1(['authority', 'record', '--record', signed]).code).toBe(0);

    refused(() => as2(['policy', 'update', '--policy', copy2, '--authority', recordId]), 'runnerd_not_owner');
    // The record authorises policy_update: it is no trust update.
    const trust = writerFile(dir1, NAMES.writer1, 'trust', JSON.stringify(trustDoc(w.keys, '2098-01-01T00:00:00Z')));
    refused(() => as1(['trust', 'update', '--trust', trust, '--authority', recordId]), 'authority_operation_mismatch');
    expect(pinUpdates(w.home, 'policy')).toBe(0);
    const ok = as1(['policy', 'update', '--policy', newPolicy, '--authority', recordId]);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    const o = jsonOut(ok) as { kind: string; digest: string; digest_before: string; record: string };
    expect(o).toMatchObject({ kind: 'policy', record: recordId });
    expect(o.digest).not.toBe(o.digest_before);
    expect(pinUpdates(w.home, 'policy')).toBe(1);

    // trust update through the daemon, its own record.
    const tout = fresh(dir1, 'req');
    const treq = as1(['authority', 'request', '--operation', 'trust_update', '--document', trust, '--out', tout]);
    expect(treq.code, treq.stdout + treq.stderr).toBe(0);
    const tsigned = fresh(dir1, 'signed');
    signPresentation(tout, w.keys.authority, tsigned, NAMES.writer1);
    expect(as1(['authority', 'record', '--record', tsigned]).code).toBe(0);
    const tok = as1(['trust', 'update', '--trust', trust, '--authority', jsonOut(treq).record_id as string]);
    expect(tok.code, tok.stdout + tok.stderr).toBe(0);
    expect(jsonOut(tok)).toMatchObject({ kind: 'trust' });
    expect(pinUpdates(w.home, 'trust')).toBe(1);
  }, 120_000);
});
