// Fail closed on inconsistent facts (docs/threat-model.md#rules-that-hold-everywhere "Fail closed"). The rules below trust that every fact
// belongs to the unit, that log positions are unique, and that digests are well-formed; a loader bug
// or an edited row that breaks one of those must deny, never produce a decision. Errors name the
// field path only, never a value (docs/threat-model.md#rules-that-hold-everywhere "No secrets in output").
import { fail } from '../errors.js';
import type { DecisionInput, EvidenceInput, LogPosition, StateDigests } from './types.js';
import { CONTROL_NAMES, STAGE_ORDER } from './vocabulary.js';
import { DIGEST_RE, NAME_RE, RUN_ID_RE, UNIT_ID_RE } from '../ids.js';
import { DIRECTIVE_STATES } from '../contract/vocabulary.js';

const UNIT_RE = UNIT_ID_RE;
const RUN_RE = RUN_ID_RE;
// The policy's slot-name grammar (docs/policy.md#policy-and-trust-root `name`, src/core/policy.ts; the receipt predicate's `slot`,
// docs/formats.md#receipt): `-` is allowed. A narrower rule here refused every fact of a valid slot such as
// `code-review` as tampering (decision_input_invalid), so no such unit could ever be decided.
const SLOT_RE = NAME_RE;
const STAGE_SET: ReadonlySet<string> = new Set(STAGE_ORDER);
const DIRECTIVE_STATE_SET: ReadonlySet<string> = new Set(DIRECTIVE_STATES);

function bad(path: string): never {
  fail('decision_input_invalid', [path]);
}

/** The field path of item `i` of list `list`, built only when a check fails (100k facts per call). */
type At = (field: string) => string;
const at =
  (list: string, i: number): At =>
  (field) =>
    `${list}.${i}.${field}`;

function isTime(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}

const isDigest = (value: unknown): boolean => typeof value === 'string' && DIGEST_RE.test(value);
/** The reason codes a preservation check may give (docs/preservation.md#rules). */
const PRESERVATION_REASON_CODES: ReadonlySet<string> = new Set([
  'preservation_inventory_missing',
  'preservation_surface_undisclosed',
  'preservation_surface_missing',
  'preservation_probe_missing',
  'preservation_capability_lost',
  'preservation_destructive_unauthorized',
  'preservation_change_uncovered',
  'preservation_test_uncovered',
  'preservation_vendor_unattested',
]);
const isNonEmpty = (value: unknown): boolean => typeof value === 'string' && value.length > 0;

function digest(value: unknown, path: string): void {
  if (!isDigest(value)) bad(path);
}

function nonEmptyString(value: unknown, path: string): void {
  if (!isNonEmpty(value)) bad(path);
}

/** Add to `seen`; false when already there. */
function fresh<T>(seen: Set<T>, value: T): boolean {
  if (seen.has(value)) return false;
  seen.add(value);
  return true;
}

/** Check the evidence facts; returns nothing, throws `decision_input_invalid` on the first flaw. */
export function validateEvidenceInput(input: EvidenceInput): void {
  if (typeof input.unit !== 'string' || !UNIT_RE.test(input.unit)) bad('unit');
  if (!isTime(input.now)) bad('now');
  digest(input.policy.digest, 'policy.digest');
  digest(input.trustDigest, 'trust_digest');
  digest(input.current.planningStateDigest, 'current.planning_state_digest');
  if (input.current.contentDigest !== undefined) digest(input.current.contentDigest, 'current.content_digest');
  if (input.current.workStateDigest !== undefined) digest(input.current.workStateDigest, 'current.work_state_digest');

  const seqs = new Set<number>();
  const position = (p: LogPosition, f: At): void => {
    if (!Number.isSafeInteger(p.seq) || p.seq < 1 || !fresh(seqs, p.seq)) bad(f('seq'));
    if (!isTime(p.time)) bad(f('time'));
    // A log entry stamped after the evaluation time: ages and expiries cannot be judged (a clock
    // stepped back, or a forged time). Deny rather than guess.
    if (p.time > input.now) fail('decision_log_time_in_future', [f('time')]);
  };
  const stageSlot = (x: { stage: string; slot: string }, f: At): void => {
    if (!STAGE_SET.has(x.stage)) bad(f('stage'));
    if (typeof x.slot !== 'string' || !SLOT_RE.test(x.slot)) bad(f('slot'));
  };
  const states = (x: StateDigests, f: At): void => {
    if (!isDigest(x.planningStateDigest)) bad(f('planning_state_digest'));
    if (!isDigest(x.contentDigest)) bad(f('content_digest'));
    if (!isDigest(x.workStateDigest)) bad(f('work_state_digest'));
  };

  const receiptIds = new Set<string>();
  input.receipts.forEach((r, i) => {
    const f = at('receipts', i);
    position(r, f);
    if (!isDigest(r.receiptId) || !fresh(receiptIds, r.receiptId)) bad(f('receipt_id'));
    if (r.unit !== input.unit) bad(f('unit'));
    stageSlot(r, f);
    if (r.verdict !== 'CLEAN' && r.verdict !== 'DIRTY') bad(f('verdict'));
    // docs/reviewers.md#reviewer-output: CLEAN ⇔ zero findings, and vetoes are findings.
    if (!Array.isArray(r.vetoes) || (r.verdict === 'CLEAN' && r.vetoes.length > 0)) bad(f('vetoes'));
    r.vetoes.forEach((v, j) => {
      if (!Array.isArray(v.refs) || v.refs.length === 0 || !v.refs.every(isNonEmpty)) bad(f(`vetoes.${j}.refs`));
    });
    states(r, f);
    if (!isDigest(r.policyDigest)) bad(f('policy_digest'));
    if (!isDigest(r.trustDigest)) bad(f('trust_digest'));
  });

  const runIds = new Set<string>();
  input.abortedRuns.forEach((a, i) => {
    const f = at('aborted_runs', i);
    position(a, f);
    if (typeof a.runId !== 'string' || !RUN_RE.test(a.runId) || !fresh(runIds, a.runId)) bad(f('run_id'));
    if (a.unit !== input.unit) bad(f('unit'));
    stageSlot(a, f);
    states(a, f);
  });

  const recordIds = new Set<string>();
  input.authorities.forEach((a, i) => {
    const f = at('authorities', i);
    position(a, f);
    if (!isNonEmpty(a.recordId) || !fresh(recordIds, a.recordId)) bad(f('record_id'));
    if (a.unit !== input.unit) bad(f('unit'));
    if (!isNonEmpty(a.operation)) bad(f('operation'));
    if (!Array.isArray(a.ids) || a.ids.length === 0) bad(f('ids'));
    a.ids.forEach((id, j) => {
      if (!isNonEmpty(id)) bad(f(`ids.${j}`));
    });
    if (!isTime(a.expiresAt)) bad(f('expires_at'));
  });

  input.resets.forEach((r, i) => {
    const f = at('resets', i);
    position(r, f);
    if (r.kind !== 'policy_update' && r.kind !== 'trust_update') bad(f('kind'));
  });
}

/** Check every fact of a delivery decision (docs/decision.md#8-delivery-state-and-reason-codes). */
export function validateDecisionInput(input: DecisionInput): void {
  validateEvidenceInput(input);
  digest(input.current.contentDigest, 'current.content_digest');
  digest(input.current.workStateDigest, 'current.work_state_digest');
  if (input.trustMode !== 'co-located' && input.trustMode !== 'separated') bad('trust_mode');

  const leaseIds = new Set<string>();
  input.openLeases.forEach((l, i) => {
    if (!isNonEmpty(l.leaseId) || !fresh(leaseIds, l.leaseId)) bad(`open_leases.${i}.lease_id`);
    if (!isTime(l.expiresAt)) bad(`open_leases.${i}.expires_at`);
  });

  const directiveIds = new Set<string>();
  input.directives.forEach((d, i) => {
    if (!isNonEmpty(d.id) || !fresh(directiveIds, d.id)) bad(`directives.${i}.id`);
    if (!DIRECTIVE_STATE_SET.has(d.state)) bad(`directives.${i}.state`);
    if (d.tombstone !== null) {
      nonEmptyString(d.tombstone.id, `directives.${i}.tombstone.id`);
      nonEmptyString(d.tombstone.authorityRecord, `directives.${i}.tombstone.authority_record`);
    }
  });

  const p = input.preservation;
  if (typeof p.contract !== 'boolean') bad('preservation.contract');
  if (typeof p.incidentHistory !== 'boolean') bad('preservation.incident_history');
  const surfaces = new Set<string>();
  p.unsatisfiedSurfaces.forEach((s, i) => {
    if (!isNonEmpty(s) || !fresh(surfaces, s)) bad(`preservation.unsatisfied_surfaces.${i}`);
  });
  (p.violations ?? []).forEach((v, i) => {
    if (typeof v.code !== 'string' || !PRESERVATION_REASON_CODES.has(v.code)) bad(`preservation.violations.${i}.code`);
    if (!Array.isArray(v.ids) || !v.ids.every(isNonEmpty)) bad(`preservation.violations.${i}.ids`);
  });
  (p.probeReceipts ?? []).forEach((r, i) => {
    if (typeof r !== 'string' || !DIGEST_RE.test(r)) bad(`preservation.probe_receipts.${i}`);
  });
  if (!p.contract && (p.probeReceipts ?? []).length > 0) bad('preservation.probe_receipts');
  // Without a contract there are no surfaces to be unsatisfied: a loader saying otherwise is confused.
  if (!p.contract && p.unsatisfiedSurfaces.length > 0) bad('preservation.unsatisfied_surfaces');

  input.policy.doc.controls.forEach((c, i) => {
    if (!(CONTROL_NAMES as readonly string[]).includes(c)) bad(`policy.controls.${i}`);
  });
}
