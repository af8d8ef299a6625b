// The incident-history lift rule wired into the delivery state (src/core/decision/incident-lift.ts,
// src/flows/decide/lift-witness.ts, docs/preservation.md#incident-history), through the built CLI and real
// signed receipts: re-binding the incident history (`preservation correct`) changes the planning
// state, yet a planning block is lifted only by a CLEAN review that was shown the history reaching the
// block (the authority_release view carries it), or by a review of changed work.
//
// Attack: DIRTY source_fidelity, history re-bound, CLEAN source_fidelity (a view without the
// history) → the block stands (`slot_blocked` naming the DIRTY receipt). Positive controls: the same
// for authority_release (its view shows the history with the DIRTY item) → lifted; and the
// source_fidelity block lifted by a CLEAN after the work changed (a surface added to the
// preservation contract).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newStory, review, status, type Story } from './gate-world.js';
import { cleanupDirs, govOk, writeJsonFile } from './state-helpers.js';
import { writeFileSync } from 'node:fs';

let s: Story;
/** An ordinary (non-veto) finding: only the slot's block is at stake. */
const bug = (ref: string) => ({ code: 'test_gap' as const, class: 'correctness' as const, severity: 'MEDIUM' as const, refs: [ref] });
let n = 0;
const surfaces = [{ id: 'SURF-doc', kind: 'other', na_reason: 'documentation only', paths: ['requests'], disposition: 'preserve', baseline_evidence_id: 'EVD-doc-b', current_evidence_id: 'EVD-doc-c' }];

function bind(extra: Record<string, unknown>[] = []): void {
  const doc = { kind: 'governed/preservation-contract', version: 1, baseline: s.baseline, intent: 'Keep the request documents.', surfaces: [...surfaces, ...extra], vendor_sources: [] };
  govOk(s.w, ['preservation', 'set', '--unit', s.unit, '--contract', writeJsonFile(join(s.w.dir, `pres-${++n}.json`), doc)]);
}

function correct(): void {
  const file = join(s.w.dir, `correction-${++n}.md`);
  writeFileSync(file, 'The reviewer was right: the export must keep the header row.\n');
  govOk(s.w, ['preservation', 'correct', '--unit', s.unit, '--file', file]);
}

const blocks = (): { code: string; ids: string[] }[] =>
  (JSON.parse(status(s).stdout) as { reasons: { code: string; ids: string[] }[] }).reasons.filter((r) => r.code === 'slot_blocked');

beforeAll(() => {
  s = newStory();
  bind();
}, 120_000);
afterAll(() => cleanupDirs());

describe('re-binding the incident history does not lift a block for a reviewer who never saw it', () => {
  it('authority_release (its view carries the history): DIRTY, history corrected, CLEAN → lifted (positive control)', () => {
    const dirty = review(s, 'planning', 'authority_release', { verdict: 'DIRTY', findings: [bug('SURF-doc')] });
    expect(blocks()).toContainEqual({ code: 'slot_blocked', ids: ['planning.authority_release', dirty.receiptId] });
    correct();
    review(s, 'planning', 'authority_release');
    expect(blocks().filter((b) => b.ids.includes(dirty.receiptId))).toEqual([]);
  });

  it('attack: source_fidelity (no history in its view): DIRTY, history corrected, CLEAN → the block stands', () => {
    const dirty = review(s, 'planning', 'source_fidelity', { verdict: 'DIRTY', findings: [bug('SRC-1')] });
    correct();
    review(s, 'planning', 'source_fidelity');
    expect(blocks()).toContainEqual({ code: 'slot_blocked', ids: ['planning.source_fidelity', dirty.receiptId] });
    // Positive control: the work changes (a surface added to the preservation contract) → a CLEAN lifts it.
    bind([{ id: 'SURF-doc2', kind: 'other', na_reason: 'a second document', paths: ['README.md'], disposition: 'preserve', baseline_evidence_id: 'EVD-doc2-b', current_evidence_id: 'EVD-doc2-c' }]);
    review(s, 'planning', 'source_fidelity');
    expect(blocks().filter((b) => b.ids.includes(dirty.receiptId))).toEqual([]);
  });
});
