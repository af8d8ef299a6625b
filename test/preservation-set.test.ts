// `preservation set` / `preservation correct` (docs/preservation.md#binding-a-contract): the contract
// is bound on the unit's baseline, logged, replayable and part of the planning state; every refusal
// has its code and leaves the store unchanged; destructive surfaces need their signed record with
// the expected diff digest; narrowing needs an `authorize` record; the incident history is the
// log's own chain and an edited one is detected.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { planningStateDigest } from '../src/core/contract/digests.js';
import { specExample } from './contract-fixtures.js';
import { preservationDigest } from '../src/core/preservation/text.js';
import { closeStore, createUnit, recordAuthority, replayInto, requestAuthority, tablesDigest, stateDigest, type Store } from '../src/store/index.js';
import { getPreservation, verifyIncidentBinding } from '../src/store/preservation.js';
import { setPreservationFlow } from '../src/flows/preservation/set.js';
import { correctIncidentFlow } from '../src/flows/preservation/correct.js';
import { cleanupDirs, codeOf, COMMIT, newStore, payloadOf, signPayload, tempDir, TREE, world, type World } from './authority-helpers.js';
import { buildAuthorityStatement } from '../src/core/authority/predicate.js';
import { parsePreservationContract } from '../src/core/preservation/schema.js';

afterEach(cleanupDirs);

const NOW = Math.floor(Date.now() / 1000);
const DIFF = `sha256:${'d'.repeat(64)}`;

function contract(over: Record<string, unknown> = {}, surfaces?: unknown[]): Record<string, unknown> {
  return {
    kind: 'governed/preservation-contract',
    version: 1,
    baseline: COMMIT,
    intent: 'Keep the greet command and the library export.',
    surfaces: surfaces ?? [
      { id: 'SURF-cli', kind: 'cli_command', paths: ['bin/greet.js'], disposition: 'preserve', probe: 'bin:greet', baseline_evidence_id: 'EVD-cli-b', current_evidence_id: 'EVD-cli-c' },
      { id: 'SURF-lib', kind: 'library_export', paths: ['lib'], disposition: 'extend', probe: 'export:.', baseline_evidence_id: 'EVD-lib-b', current_evidence_id: 'EVD-lib-c' },
    ],
    vendor_sources: [],
    ...over,
  };
}

interface Setup {
  readonly w: World;
  readonly store: Store;
  readonly home: string;
  readonly unit: string;
  readonly dir: string;
}

function setup(): Setup {
  const w = world();
  const store = newStore(w.trust, NOW - 10);
  const { unitId } = createUnit(store, { baselineCommit: COMMIT, baselineTree: TREE, now: NOW - 9 });
  return { w, store, home: store.home, unit: unitId, dir: tempDir('governed-pres-') };
}

function file(s: Setup, doc: unknown, name = 'p.json'): string {
  const p = join(s.dir, name);
  writeFileSync(p, typeof doc === 'string' ? doc : JSON.stringify(doc));
  return p;
}

function set(s: Setup, doc: unknown, authorities: string[] = [], noIncidentHistory = false) {
  return setPreservationFlow({ home: s.home, unit: s.unit, contractFile: file(s, doc), authorities, noIncidentHistory, now: NOW });
}

/** A refusal: exact code, and neither the tables nor the log changed. */
function refused(s: Setup, code: string, fn: () => unknown): void {
  const before = tablesDigest(s.store);
  expect(codeOf(fn)).toBe(code);
  expect(tablesDigest(s.store)).toBe(before);
}

/** A signed, recorded authority record (request → sign with the human's key → record). */
function record(s: Setup, operation: string, ids: string[], stateBefore: string | null, stateAfter: string | null): string {
  const req = requestAuthority(s.store, { operation, ids, unit: s.unit, stateBefore, stateAfter, ttlSeconds: 3600, now: NOW - 5 });
  const envelope = signPayload(payloadOf(buildAuthorityStatement(req.statement.predicate)), [s.w.human]);
  return recordAuthority(s.store, { envelope, now: NOW - 4 }).recordId;
}

describe('preservation set', () => {
  it('binds a valid contract on the baseline: logged, replayable, and the planning state changes', () => {
    const s = setup();
    const r = set(s, contract());
    expect(r.version).toBe(1);
    const b = getPreservation(s.store, s.unit);
    expect(b?.contractDigest).toBe(preservationDigest(parsePreservationContract(contract())));
    // The history was assembled from the log: the unit has no scope_bind here (createUnit only), so
    // the chain is empty but still a digest, never `none`.
    expect(b?.incidentHistory).toMatch(/^sha256:/);
    const replay = replayInto(s.store, join(tempDir(), 'replay.db'));
    expect(replay.stateDigest).toBe(stateDigest(s.store));
    // Planning state binds it (positive control: without the binding the digest differs).
    const { contract: c, facts } = specExample();
    void facts;
    const base = { sourceDigests: new Map(c.sources.map((x) => [x.id, `sha256:${'0'.repeat(64)}`])), contract: c, baseline: { commit: COMMIT, tree: TREE } };
    expect(planningStateDigest({ ...base, preservation: b?.contractDigest, incidentHistory: b?.incidentHistory })).not.toBe(planningStateDigest(base));
    closeStore(s.store);
  });

  it('refuses each malformed contract with its code and records nothing', () => {
    const s = setup();
    refused(s, 'preservation_kind_invalid', () => set(s, contract({ kind: 'governed/request-contract' })));
    refused(s, 'preservation_field_unknown', () => set(s, contract({ extra: 1 })));
    refused(s, 'preservation_field_missing', () => set(s, { ...contract(), intent: undefined }));
    refused(s, 'preservation_baseline_mismatch', () => set(s, contract({ baseline: 'c'.repeat(40) })));
    const surf = (over: Record<string, unknown>) => [{ id: 'SURF-x', kind: 'cli_command', paths: ['bin/x.js'], disposition: 'preserve', probe: 'bin:x', baseline_evidence_id: 'EVD-b', current_evidence_id: 'EVD-c', ...over }];
    // Uppercase disposition: only the lowercase words exist.
    refused(s, 'preservation_field_invalid', () => set(s, contract({}, surf({ disposition: 'PRESERVE' }))));
    refused(s, 'preservation_field_invalid', () => set(s, contract({}, surf({ kind: 'widget' }))));
    refused(s, 'preservation_na_reason_missing', () => set(s, contract({}, surf({ kind: 'other', probe: undefined }))));
    refused(s, 'preservation_na_reason_unexpected', () => set(s, contract({}, surf({ na_reason: 'n/a' }))));
    refused(s, 'preservation_destructive_fields_missing', () => set(s, contract({}, surf({ disposition: 'remove' }))));
    refused(s, 'preservation_destructive_fields_missing', () => set(s, contract({}, surf({ disposition: 'migrate', authority_id: 'REC-abc' }))));
    refused(s, 'preservation_destructive_fields_unexpected', () => set(s, contract({}, surf({ expected_diff_digest: DIFF }))));
    refused(s, 'preservation_id_duplicate', () => set(s, contract({}, surf({ current_evidence_id: 'SURF-x' }))));
    refused(s, 'preservation_id_invalid', () => set(s, contract({}, surf({ id: 'surf x' }))));
    refused(s, 'preservation_path_invalid', () => set(s, contract({}, surf({ paths: ['../etc/passwd'] }))));
    refused(s, 'preservation_path_invalid', () => set(s, contract({}, surf({ paths: ['.git/config'] }))));
    refused(s, 'preservation_field_missing', () => set(s, contract({}, surf({ probe: undefined }))));
    // Kind `other` with an explicit N/A reason and no probe is accepted (positive control).
    expect(set(s, contract({}, surf({ kind: 'other', probe: undefined, na_reason: 'an operations runbook, no entry to run' }))).version).toBe(1);
    closeStore(s.store);
  });

  it('refuses a vendor source whose origin is URL/commit syntax alone', () => {
    const s = setup();
    const vendor = (origin: unknown) => contract({ vendor_sources: [{ id: 'VND-lib', path: 'vendor/lib', disposition: 'import', origin }] });
    refused(s, 'preservation_vendor_origin_missing', () => set(s, vendor(undefined)));
    refused(s, 'preservation_vendor_origin_missing', () => set(s, vendor({ repository: 'https://example.invalid/lib.git', commit: 'e'.repeat(40) })));
    refused(s, 'preservation_field_invalid', () => set(s, vendor({ repository: 'x', commit: 'main', tree_digest: DIFF })));
    expect(set(s, vendor({ repository: 'https://example.invalid/lib.git', commit: 'e'.repeat(40), tree_digest: DIFF })).version).toBe(1);
    closeStore(s.store);
  });

  it('a destructive surface needs its signed record naming the surface with the expected diff digest', () => {
    const s = setup();
    const removal = (authority: string, digest = DIFF) =>
      contract({}, [{ id: 'SURF-cli', kind: 'cli_command', paths: ['bin/greet.js'], disposition: 'remove', probe: 'bin:greet', baseline_evidence_id: 'EVD-b', current_evidence_id: 'EVD-c', authority_id: authority, expected_diff_digest: digest }]);
    // No --authority given.
    refused(s, 'preservation_authority_missing', () => set(s, removal('REC-none')));
    // A record of the wrong digest (the human approved another diff).
    const wrong = record(s, 'remove', ['SURF-cli'], null, `sha256:${'9'.repeat(64)}`);
    refused(s, 'authority_state_mismatch', () => set(s, removal(wrong), [wrong]));
    // A record naming another surface.
    const other = record(s, 'remove', ['SURF-lib'], null, DIFF);
    refused(s, 'authority_ids_mismatch', () => set(s, removal(other), [other]));
    // A `disable` record for a `remove` disposition.
    const disable = record(s, 'disable', ['SURF-cli'], null, DIFF);
    refused(s, 'authority_operation_mismatch', () => set(s, removal(disable), [disable]));
    // The right record: consumed once, here.
    const right = record(s, 'remove', ['SURF-cli'], null, DIFF);
    const r = set(s, removal(right), [right]);
    expect(r.authorities).toEqual([right]);
    // Given again, the consumed record is history: nothing in the new binding cites it for consumption.
    refused(s, 'preservation_authority_not_cited', () => set(s, removal(right), [right]));
    // A second removal citing the same (consumed) record: refused (it names another surface; it is
    // also consumed already — the judge reports the worse of the two).
    const twice = contract({}, [
      ...(removal(right).surfaces as unknown[]),
      { id: 'SURF-two', kind: 'cli_command', paths: ['bin/two.js'], disposition: 'remove', probe: 'bin:two', baseline_evidence_id: 'EVD-2b', current_evidence_id: 'EVD-2c', authority_id: right, expected_diff_digest: DIFF },
    ]);
    refused(s, 'authority_ids_mismatch', () => set(s, twice, [right]));
    closeStore(s.store);
  });

  it('narrowing a bound contract needs one authorize record naming exactly the narrowed ids', () => {
    const s = setup();
    set(s, contract());
    const narrowed = contract({}, [
      { id: 'SURF-cli', kind: 'cli_command', paths: ['bin/greet.js'], disposition: 'preserve', probe: 'bin:greet', baseline_evidence_id: 'EVD-cli-b', current_evidence_id: 'EVD-cli-c' },
    ]);
    refused(s, 'preservation_narrowing_unauthorized', () => set(s, narrowed));
    const before = preservationDigest(parsePreservationContract(contract()));
    const after = preservationDigest(parsePreservationContract(narrowed));
    const wrongIds = record(s, 'authorize', ['SURF-cli'], before, after);
    refused(s, 'authority_ids_mismatch', () => set(s, narrowed, [wrongIds]));
    // Pure addition binds freely (positive control).
    const grown = contract({}, [...(contract().surfaces as unknown[]), { id: 'SURF-new', kind: 'api', paths: ['api'], disposition: 'preserve', probe: 'export:./api', baseline_evidence_id: 'EVD-n-b', current_evidence_id: 'EVD-n-c' }]);
    expect(set(s, grown).additions).toEqual(['SURF-new']);
    const grownDigest = preservationDigest(parsePreservationContract(grown));
    const ok = record(s, 'authorize', ['SURF-lib', 'SURF-new'], grownDigest, after);
    expect(set(s, narrowed, [ok]).narrowing).toEqual(['SURF-lib', 'SURF-new']);
    closeStore(s.store);
  });

  it('incident history: `none` only without incidents; a correction re-binds; an edited history is detected', () => {
    const s = setup();
    expect(set(s, contract(), [], true).incidentHistory).toBe('none');
    const corr = join(s.dir, 'c.md');
    writeFileSync(corr, 'The CLI must keep --version.\n');
    const c = correctIncidentFlow({ home: s.home, unit: s.unit, file: corr, now: NOW });
    expect(c.incidentHistory).toMatch(/^sha256:/);
    expect(c.version).toBe(2);
    // Now the log holds a correction: `none` is refused.
    const grown = contract({}, [...(contract().surfaces as unknown[]), { id: 'SURF-new', kind: 'api', paths: ['api'], disposition: 'preserve', probe: 'export:./api', baseline_evidence_id: 'EVD-n-b', current_evidence_id: 'EVD-n-c' }]);
    refused(s, 'incident_history_none_refused', () => set(s, grown, [], true));
    // The binding re-derives from the log.
    const b = getPreservation(s.store, s.unit);
    expect(b).not.toBeNull();
    if (b === null) return;
    expect(verifyIncidentBinding(s.store, b).incidentsNow).toBe(true);
    // Edit the bound history behind governed: detected with its code.
    s.store.db.prepare('UPDATE preservation_versions SET incident_history = ? WHERE unit = ? AND version = 2').run(`sha256:${'7'.repeat(64)}`, s.unit);
    const edited = getPreservation(s.store, s.unit);
    expect(codeOf(() => verifyIncidentBinding(s.store, edited as NonNullable<typeof edited>))).toBe('incident_history_mismatch');
    // And replay refuses a forged preservation_set payload? The log still holds the true digest, so
    // replay rebuilds the true row: the state digest differs from the edited table.
    expect(replayInto(s.store, join(tempDir(), 'r.db')).stateDigest).not.toBe(stateDigest(s.store));
    closeStore(s.store);
  });

  it('a correction without a bound contract is refused and records nothing', () => {
    const s = setup();
    const corr = join(s.dir, 'c.md');
    writeFileSync(corr, 'x\n');
    refused(s, 'preservation_not_bound', () => correctIncidentFlow({ home: s.home, unit: s.unit, file: corr, now: NOW }));
    writeFileSync(corr, Buffer.from([0xff, 0xfe]));
    refused(s, 'incident_correction_invalid', () => correctIncidentFlow({ home: s.home, unit: s.unit, file: corr, now: NOW }));
    closeStore(s.store);
  });
});
