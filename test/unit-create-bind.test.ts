// `governed unit create` and `governed unit bind` (docs/contract.md#the-request-contract, docs/contract.md#validation-rules, docs/contract.md#scope-history; docs/state.md#commands) through the
// built CLI, with real git baselines and real authority records.
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { expectedDisposes } from '../src/core/contract/tombstones.js';
import { parseContract } from '../src/core/contract/schema.js';
import { sha256Digest } from '../src/core/canonical.js';
import { assertReplayMatches, stateDigest } from '../src/store/index.js';
import {
  cleanupDirs,
  contractDoc,
  expectRefused,
  gov,
  govOk,
  makeWorld,
  OBLIGATION,
  OBLIGATION2,
  readDb,
  recordAuthorityFor,
  SOURCE_TEXT,
  setupUnit,
  writeJsonFile,
  type World,
} from './state-helpers.js';

afterEach(cleanupDirs);

function writeContract(w: World, name: string, doc: Record<string, unknown>): string {
  return writeJsonFile(join(w.dir, name), doc);
}

type Doc = ReturnType<typeof contractDoc> & {
  directives: Record<string, unknown>[];
  sources: { atoms: Record<string, unknown>[] }[];
  authorities: Record<string, unknown>[];
  tombstones: Record<string, unknown>[];
};
const doc = (o: Parameters<typeof contractDoc>[0] = {}): Doc => contractDoc(o) as Doc;

describe('unit create', () => {
  it('resolves the baseline once, binds scope version 1 (exact bytes, digests) and prints only the unit id', () => {
    const w = makeWorld();
    govOk(w, ['init', '--policy', w.policyFile, '--trust', w.trustFile]);
    const human = gov(w, ['unit', 'create', '--contract', w.contractFile, '--baseline', 'HEAD']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^UNIT-[0-9a-f]{32}\n$/);
    const unit = human.stdout.trim();
    const db = readDb(w);
    try {
      const u = db.prepare('SELECT * FROM units WHERE id = ?').get(unit) as Record<string, unknown>;
      expect(u.baseline_commit).toBe(w.baseline);
      expect(u.baseline_tree).toBe(w.repo.git('rev-parse', `${w.baseline}^{tree}`));
      expect([u.scope_epoch, u.work_revision]).toEqual([1, 0]);
      const v = db.prepare('SELECT * FROM scope_versions WHERE unit = ?').all(unit) as Record<string, unknown>[];
      expect(v).toHaveLength(1);
      expect((v[0]?.contract_bytes as Buffer).equals(readFileSync(w.contractFile))).toBe(true);
      expect(v[0]?.contract_file_digest).toBe(sha256Digest(readFileSync(w.contractFile)));
      const src = db.prepare('SELECT source, path, digest FROM scope_sources WHERE unit = ?').all(unit);
      expect(src).toEqual([{ source: 'SRC-1', path: 'requests/export.md', digest: sha256Digest(readFileSync(join(w.repo.root, 'requests/export.md'))) }]);
      expect(db.prepare('SELECT type FROM log ORDER BY seq').pluck().all()).toEqual(['store_init', 'unit_create', 'scope_bind']);
    } finally {
      db.close();
    }
  });

  it('binds the source bytes of the BASELINE tree, not the workspace', () => {
    const w = makeWorld();
    // The workspace copy of the request differs from the baseline blob: spans no longer tile it.
    w.repo.write('requests/export.md', 'edited after the baseline\n');
    govOk(w, ['init', '--policy', w.policyFile, '--trust', w.trustFile]);
    const out = govOk(w, ['unit', 'create', '--contract', w.contractFile, '--baseline', w.baseline]);
    const db = readDb(w);
    try {
      const digest = db.prepare('SELECT digest FROM scope_sources WHERE unit = ?').pluck().get(out.unit);
      expect(digest).toBe(sha256Digest(Buffer.from(SOURCE_TEXT)));
    } finally {
      db.close();
    }
  });

  it('refuses an invalid contract with its rule code and records nothing', () => {
    const w = makeWorld();
    govOk(w, ['init', '--policy', w.policyFile, '--trust', w.trustFile]);
    const cases: [string, (d: Doc) => void, string, number][] = [
      ['unknown field', (d) => Object.assign(d, { note: 'x' }), 'contract_field_unknown', 2],
      ['obligation unmapped', (d) => ((d.sources[0] as { atoms: Record<string, unknown>[] }).atoms[0]!.directives = []), 'contract_obligation_unmapped', 2],
      [
        'span gap',
        (d) => ((d.sources[0] as { atoms: Record<string, unknown>[] }).atoms[2]!.span = [Buffer.byteLength(OBLIGATION + OBLIGATION2) + 1, Buffer.byteLength(SOURCE_TEXT)]),
        'contract_span_gap',
        2,
      ],
      ['not verbatim', (d) => (d.directives[0]!.statement = 'Something else entirely.'), 'contract_atom_not_verbatim', 2],
      ['path outside', (d) => ((d.directives[0]!.targets as { paths: string[] }[])[0]!.paths = ['../etc/passwd']), 'contract_path_invalid', 2],
      ['source missing from baseline', (d) => ((d.sources[0] as unknown as { path: string }).path = 'requests/later.md'), 'contract_source_not_in_baseline', 2],
      [
        'tombstone without consumed authority',
        (d) => {
          d.directives[1]!.state = 'deferred';
          d.authorities.push({ id: 'AUTH-1', operation: 'defer', record: 'REC-0123456789abcdef01234567' });
          const c = parseContract(JSON.parse(JSON.stringify({ ...d, tombstones: [] })));
          d.tombstones.push({ id: 'TMB-1', directive: 'DIR-2', authority: 'AUTH-1', disposes: expectedDisposes(c, c.directives[1]!) });
        },
        'contract_tombstone_authority_invalid',
        4,
      ],
    ];
    for (const [name, edit, code, exit] of cases) {
      const d = doc();
      edit(d);
      const file = writeContract(w, `bad-${name.replace(/ /g, '-')}.json`, d);
      expectRefused(w, ['unit', 'create', '--contract', file, '--baseline', w.baseline], code, exit);
    }
    expectRefused(w, ['unit', 'create', '--contract', w.contractFile, '--baseline', 'no-such-rev'], 'workspace_revision_unresolved', 2);
    expectRefused(w, ['unit', 'create', '--contract', join(w.dir, 'missing.json'), '--baseline', w.baseline], 'input_unreadable', 2);
  });

  it('refuses without an initialised store (store_missing, exit 2)', () => {
    const w = makeWorld();
    const r = gov(w, ['unit', 'create', '--contract', w.contractFile, '--baseline', w.baseline, '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error.code).toBe('store_missing');
  });
});

describe('unit bind (docs/contract.md#scope-history)', () => {
  it('pure additions bind freely: scope_epoch and work_revision increment', () => {
    const w = makeWorld();
    const unit = setupUnit(w);
    const next = writeContract(w, 'v2.json', doc({ secondTarget: true }));
    const out = govOk(w, ['unit', 'bind', '--unit', unit, '--contract', next]);
    expect(out).toMatchObject({ scope_version: 2, scope_epoch: 2, work_revision: 1, scope_changed: true, narrowing: [], progress: [] });
    expect(out.additions).toEqual(['DIR-1>TGT-2', 'TGT-2']);
  });

  it('pure progress (active→done) binds freely and leaves scope_epoch, but every bind increments work_revision', () => {
    const w = makeWorld();
    const unit = setupUnit(w);
    const out = govOk(w, ['unit', 'bind', '--unit', unit, '--contract', writeContract(w, 'done.json', doc({ state: 'done' }))]);
    expect(out).toMatchObject({ scope_version: 2, scope_epoch: 1, work_revision: 1, scope_changed: false, progress: ['DIR-1'] });
    const same = govOk(w, ['unit', 'bind', '--unit', unit, '--contract', writeContract(w, 'done2.json', doc({ state: 'done' }))]);
    expect(same).toMatchObject({ scope_version: 3, scope_epoch: 1, work_revision: 2, scope_changed: false, additions: [], progress: [] });
  });

  it('narrowing without authority is refused (8) and records nothing; disappearing items are refused', () => {
    const w = makeWorld();
    const unit = setupUnit(w);
    govOk(w, ['unit', 'bind', '--unit', unit, '--contract', writeContract(w, 'v2.json', doc({ secondTarget: true }))]);
    const { ids } = expectRefused(
      w,
      ['unit', 'bind', '--unit', unit, '--contract', writeContract(w, 'v3.json', doc())],
      'contract_narrowing_unauthorized',
      8,
    );
    expect(ids).toEqual(['DIR-1>TGT-2', 'TGT-2']);
    const gone = doc();
    gone.directives.pop();
    (gone.sources[0] as { atoms: Record<string, unknown>[] }).atoms[1]!.kind = 'context';
    (gone.sources[0] as { atoms: Record<string, unknown>[] }).atoms[1]!.directives = [];
    expectRefused(w, ['unit', 'bind', '--unit', unit, '--contract', writeContract(w, 'gone.json', gone)], 'contract_item_disappeared', 8);
    expectRefused(w, ['unit', 'bind', '--unit', 'UNIT-' + '0'.repeat(32), '--contract', w.contractFile], 'unit_unknown', 7);
  });

  it('narrowing with an authority record naming exactly the narrowed IDs binds, consuming the record once', () => {
    const w = makeWorld();
    const unit = setupUnit(w);
    govOk(w, ['unit', 'bind', '--unit', unit, '--contract', writeContract(w, 'v2.json', doc({ secondTarget: true }))]);
    // v3 drops TGT-2 again and cites the record that authorises it.
    const plan = govOk(w, ['unit', 'bind', '--unit', unit, '--contract', writeContract(w, 'v3-plan.json', doc()), '--dry-run']);
    expect(plan).toMatchObject({ dry_run: true, narrowing: ['DIR-1>TGT-2', 'TGT-2'], validation: { ok: true } });
    const before = readDb(w);
    const logLength = before.prepare('SELECT COUNT(*) FROM log').pluck().get();
    before.close();
    const rec = recordAuthorityFor(w, {
      unit,
      operation: 'replace',
      ids: plan.narrowing as string[],
      stateBefore: plan.state_before as string,
      stateAfter: plan.state_after as string,
    });
    const v3 = doc();
    v3.authorities.push({ id: 'AUTH-1', operation: 'replace', record: rec });
    const v3File = writeContract(w, 'v3.json', v3);
    // Not cited: refused; cited but the narrowing is only partly covered: refused.
    expectRefused(w, ['unit', 'bind', '--unit', unit, '--contract', writeContract(w, 'v3-uncited.json', doc()), '--authority', rec], 'unit_authority_not_cited', 2);
    const out = govOk(w, ['unit', 'bind', '--unit', unit, '--contract', v3File, '--authority', rec]);
    expect(out).toMatchObject({ scope_version: 3, narrowing: ['DIR-1>TGT-2', 'TGT-2'], authorities: [rec] });
    const db = readDb(w);
    try {
      expect(db.prepare('SELECT COUNT(*) FROM log').pluck().get()).toBe((logLength as number) + 2 + 2);
      expect(db.prepare('SELECT record FROM authority_consumptions').pluck().all()).toEqual([rec]);
      expect(db.prepare('SELECT authorities FROM scope_versions WHERE unit = ? AND version = 3').pluck().get(unit)).toBe(JSON.stringify([rec]));
    } finally {
      db.close();
    }
    // The record is spent: using it again (for the same narrowing, from a later state) is refused —
    // the state it named is gone (4, which takes precedence over the replay, 5) — and nothing changes.
    govOk(w, ['unit', 'bind', '--unit', unit, '--contract', writeContract(w, 'v4.json', { ...doc({ secondTarget: true }), authorities: v3.authorities })]);
    expectRefused(w, ['unit', 'bind', '--unit', unit, '--contract', v3File, '--authority', rec], 'authority_state_mismatch', 4);
  });

  it('an authority whose IDs do not cover the narrowing is refused and stays unused', () => {
    const w = makeWorld();
    const unit = setupUnit(w);
    govOk(w, ['unit', 'bind', '--unit', unit, '--contract', writeContract(w, 'v2.json', doc({ secondTarget: true }))]);
    const plan = govOk(w, ['unit', 'bind', '--unit', unit, '--contract', writeContract(w, 'plan.json', doc()), '--dry-run']);
    const rec = recordAuthorityFor(w, {
      unit,
      operation: 'replace',
      ids: ['TGT-2'],
      stateBefore: plan.state_before as string,
      stateAfter: plan.state_after as string,
    });
    const v3 = doc();
    v3.authorities.push({ id: 'AUTH-1', operation: 'replace', record: rec });
    expectRefused(
      w,
      ['unit', 'bind', '--unit', unit, '--contract', writeContract(w, 'v3.json', v3), '--authority', rec],
      'contract_narrowing_authority_mismatch',
      4,
    );
    const db = readDb(w);
    expect(db.prepare('SELECT COUNT(*) FROM authority_consumptions').pluck().get()).toBe(0);
    db.close();
  });

  it('defers a directive with a tombstone whose authority is consumed in the same bind; later binds carry it', () => {
    const w = makeWorld();
    const unit = setupUnit(w);
    const d = doc();
    d.directives[1]!.state = 'deferred';
    const parsed = parseContract(JSON.parse(JSON.stringify(d)));
    const disposes = expectedDisposes(parsed, parsed.directives[1]!);
    // The narrowing (and so the record's IDs) is exactly the directive and what its tombstone disposes.
    const plan = govOk(w, ['unit', 'bind', '--unit', unit, '--contract', writeContract(w, 'plan.json', d), '--dry-run']);
    expect(plan.narrowing).toEqual([...disposes].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
    // Planned before the tombstone exists: the dry run says what is still missing.
    expect(plan.validation).toEqual({ ok: false, code: 'contract_directive_undisposed', ids: ['DIR-2'] });
    const rec = recordAuthorityFor(w, {
      unit,
      operation: 'defer',
      ids: plan.narrowing as string[],
      stateBefore: plan.state_before as string,
      stateAfter: plan.state_after as string,
    });
    d.authorities.push({ id: 'AUTH-2', operation: 'defer', record: rec });
    d.tombstones.push({ id: 'TMB-1', directive: 'DIR-2', authority: 'AUTH-2', disposes });
    const out = govOk(w, ['unit', 'bind', '--unit', unit, '--contract', writeContract(w, 'deferred.json', d), '--authority', rec]);
    expect(out).toMatchObject({ scope_version: 2, scope_epoch: 2, authorities: [rec] });
    expect(out.additions).toEqual(['AUTH-2', 'AUTH-2>TMB-1', 'TMB-1', 'TMB-1>DIR-2']);
    // A later progress bind re-validates the tombstone from history (consumed for this unit).
    const done = JSON.parse(JSON.stringify(d)) as Doc;
    done.directives[0]!.state = 'done';
    const later = govOk(w, ['unit', 'bind', '--unit', unit, '--contract', writeContract(w, 'done.json', done)]);
    expect(later).toMatchObject({ scope_version: 3, progress: ['DIR-1'], scope_changed: false });
    // A challenge re-validates the stored contract, tombstone included, from the same history.
    const issued = govOk(w, ['review-challenge', '--unit', unit, '--writer-session', 'agent-1', '--stage', 'integration', '--slot', 'authority_release']);
    expect(issued).toMatchObject({ stage: 'integration', slot: 'authority_release' });
    // The whole history (authority request/record/consume, binds, the challenge) replays exactly.
    const db = readDb(w);
    try {
      expect(assertReplayMatches(db, join(w.dir, 'replayed.db')).stateDigest).toBe(stateDigest(db));
    } finally {
      db.close();
    }
    // Dropping the tombstone later is refused: tombstones never disappear.
    const dropped = JSON.parse(JSON.stringify(done)) as Doc;
    dropped.tombstones = [];
    expectRefused(w, ['unit', 'bind', '--unit', unit, '--contract', writeContract(w, 'dropped.json', dropped)], 'contract_item_disappeared', 8);
  });
});
