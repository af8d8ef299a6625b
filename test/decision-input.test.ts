// Fail closed on inconsistent facts (docs/threat-model.md#rules-that-hold-everywhere): each flaw has its exact code and names only the
// field path, never the offending value.
import { describe, expect, it } from 'vitest';
import { decide, type DecisionInput } from '../src/core/decision/index.js';
import { exitCodeOf, GovernedError } from '../src/core/errors.js';
import { codeAndIdsOf } from './helpers/codes.js';
import { Scenario } from './decision-fixtures.js';

const CANARY = 'CANARY-secret-value-7f3a';

function base(): DecisionInput {
  const s = new Scenario();
  s.rounds('development', 1);
  s.abort('development', 'lint');
  s.authority('dismiss', ['RUN-x']);
  s.reset('policy_update');
  return s.input();
}

type Patch = (i: DecisionInput) => DecisionInput;
const rows: [string, Patch, string][] = [
  ['a receipt of another unit', (i) => ({ ...i, receipts: [{ ...i.receipts[0]!, unit: `UNIT-${'2'.repeat(32)}` }] }), 'decision_input_invalid:receipts.0.unit'],
  ['a malformed unit', (i) => ({ ...i, unit: CANARY }), 'decision_input_invalid:unit'],
  ['two facts at one log position', (i) => ({ ...i, abortedRuns: [{ ...i.abortedRuns[0]!, seq: i.receipts[0]!.seq }] }), 'decision_input_invalid:aborted_runs.0.seq'],
  ['a log position of 0', (i) => ({ ...i, receipts: [{ ...i.receipts[0]!, seq: 0 }] }), 'decision_input_invalid:receipts.0.seq'],
  ['a fractional time', (i) => ({ ...i, receipts: [{ ...i.receipts[0]!, time: 1.5 }] }), 'decision_input_invalid:receipts.0.time'],
  ['a receipt id repeated', (i) => ({ ...i, receipts: [i.receipts[0]!, { ...i.receipts[1]!, receiptId: i.receipts[0]!.receiptId }] }), 'decision_input_invalid:receipts.1.receipt_id'],
  ['a malformed digest', (i) => ({ ...i, receipts: [{ ...i.receipts[0]!, workStateDigest: CANARY }] }), 'decision_input_invalid:receipts.0.work_state_digest'],
  ['an unknown stage', (i) => ({ ...i, receipts: [{ ...i.receipts[0]!, stage: 'staging' as 'test' }] }), 'decision_input_invalid:receipts.0.stage'],
  ['a CLEAN receipt carrying vetoes', (i) => ({ ...i, receipts: [{ ...i.receipts[0]!, vetoes: [{ code: 'other', class: 'scope', severity: 'CRITICAL', refs: ['DIR-1'] }] }] }), 'decision_input_invalid:receipts.0.vetoes'],
  ['a veto without refs', (i) => ({ ...i, receipts: [{ ...i.receipts[0]!, verdict: 'DIRTY', vetoes: [{ code: 'other', class: 'scope', severity: 'CRITICAL', refs: [] }] }] }), 'decision_input_invalid:receipts.0.vetoes.0.refs'],
  ['an unknown verdict', (i) => ({ ...i, receipts: [{ ...i.receipts[0]!, verdict: 'MAYBE' as 'CLEAN' }] }), 'decision_input_invalid:receipts.0.verdict'],
  ['a malformed run id', (i) => ({ ...i, abortedRuns: [{ ...i.abortedRuns[0]!, runId: CANARY }] }), 'decision_input_invalid:aborted_runs.0.run_id'],
  ['an authority of another unit', (i) => ({ ...i, authorities: [{ ...i.authorities[0]!, unit: `UNIT-${'3'.repeat(32)}` }] }), 'decision_input_invalid:authorities.0.unit'],
  ['an authority naming nothing', (i) => ({ ...i, authorities: [{ ...i.authorities[0]!, ids: [] }] }), 'decision_input_invalid:authorities.0.ids'],
  ['an unknown reset kind', (i) => ({ ...i, resets: [{ ...i.resets[0]!, kind: 'scope_bind' as 'policy_update' }] }), 'decision_input_invalid:resets.0.kind'],
  ['a log entry after now', (i) => ({ ...i, now: i.receipts[0]!.time - 1 }), 'decision_log_time_in_future:receipts.0.time'],
  ['a missing current work state', (i) => ({ ...i, current: { ...i.current, workStateDigest: CANARY } }), 'decision_input_invalid:current.work_state_digest'],
  ['an unknown trust mode', (i) => ({ ...i, trustMode: CANARY as 'separated' }), 'decision_input_invalid:trust_mode'],
  ['a lease repeated', (i) => ({ ...i, openLeases: [{ leaseId: 'LSE-1', expiresAt: 1 }, { leaseId: 'LSE-1', expiresAt: 2 }] }), 'decision_input_invalid:open_leases.1.lease_id'],
  ['a directive repeated', (i) => ({ ...i, directives: [i.directives[0]!, i.directives[0]!] }), 'decision_input_invalid:directives.1.id'],
  ['an unknown directive state', (i) => ({ ...i, directives: [{ id: 'DIR-1', state: CANARY as 'done', tombstone: null }] }), 'decision_input_invalid:directives.0.state'],
  ['unsatisfied surfaces without a contract', (i) => ({ ...i, preservation: { contract: false, incidentHistory: false, unsatisfiedSurfaces: ['SURF-1'] } }), 'decision_input_invalid:preservation.unsatisfied_surfaces'],
];

describe('decision input is checked before any rule runs', () => {
  it('the base input decides', () => {
    expect(decide(base()).state).toBe('REVIEW_ONLY');
  });

  it.each(rows)('%s → %s', (_name, patch, expected) => {
    const input = patch(base());
    expect(codeAndIdsOf(() => decide(input))).toBe(expected);
    try {
      decide(input);
    } catch (e) {
      const text = JSON.stringify((e as GovernedError).toJSON()) + String((e as Error).message);
      expect(text).not.toContain(CANARY);
    }
  });

  it('inconsistent facts deny as verification failures (exit 4)', () => {
    expect(exitCodeOf('decision_input_invalid')).toBe(4);
    expect(exitCodeOf('decision_log_time_in_future')).toBe(4);
  });
});
