// The explicit input and output of the decision rules (docs/decision.md#the-rules-in-short). The rules are pure: a flow
// (`status`, `gate`, `lease acquire`) loads store rows into these facts and passes `now`; nothing
// here reads a clock, a file or the store. docs/decision.md describes every field and rule.
//
// Every fact that comes from the log carries its *log position* (`seq`, and the entry's `time` in
// whole seconds of the runner clock, docs/state.md#the-store): authorities are judged at their position, and
// "before"/"after" always means log order, never wall-clock order.
//
// Only type imports from modules that pull zod (policy, contract schema): the gate path must stay
// lean (docs/gate.md, bench/gate), so the decision modules import no schema library at run time.
import type { Policy, Stage } from '../policy.js';
import type { DirectiveState } from '../contract/schema.js';
import type { KNOWN_CONTROLS } from '../review-vocabulary.js';
import type { ReasonCode } from '../errors.js';

export type { Stage } from '../policy.js';
export type Verdict = 'CLEAN' | 'DIRTY';
export type TrustMode = 'co-located' | 'separated';
export type ControlName = (typeof KNOWN_CONTROLS)[number];
export type ControlStatus = 'implemented' | 'pending';
/** governed's registry of controls (docs/policy.md#policy-and-trust-root): a control absent from it counts as pending. */
export type ControlRegistry = Readonly<Partial<Record<ControlName, ControlStatus>>>;

/** Where a fact sits in the hash-chained log (docs/state.md#the-store). `seq` is unique across all facts. */
export interface LogPosition {
  readonly seq: number;
  /** The log entry's time: runner clock, whole seconds since the epoch. */
  readonly time: number;
}

/** A veto finding as the receipt predicate stores it (docs/reviewers.md#reviewer-output: CRITICAL and a veto class). */
export interface VetoFinding {
  readonly code: string;
  readonly class: string;
  readonly severity: string;
  /** 1–4 sorted IDs the finding points at (never text). */
  readonly refs: readonly string[];
}

/** The digests a receipt or run is bound to (docs/contract.md#the-states-a-receipt-is-judged-against). */
export interface StateDigests {
  readonly planningStateDigest: string;
  readonly contentDigest: string;
  readonly workStateDigest: string;
}

/** One ingested receipt (docs/formats.md#receipt), as its verified predicate and its log position give it. */
export interface ReceiptFact extends LogPosition, StateDigests {
  /** `sha256:<hex>` of the payload bytes. */
  readonly receiptId: string;
  readonly unit: string;
  readonly stage: Stage;
  readonly slot: string;
  readonly verdict: Verdict;
  /** The predicate's `vetoes` (empty for CLEAN). */
  readonly vetoes: readonly VetoFinding[];
  /** `inputs.policy_digest` and `inputs.trust_digest` bound into the receipt. */
  readonly policyDigest: string;
  readonly trustDigest: string;
  /** The receipt's own `trust_mode` (absent: co-located). */
  readonly trustMode?: TrustMode;
  /**
   * The incident-history witnesses of the lift rule (./incident-lift.ts): the reviewed work without the
   * history binding, and how far the history shown to this reviewer reached (null: not shown).
   * Absent (both): the plain content rule applies.
   */
  readonly work?: string | null;
  readonly historySeenUpto?: number | null;
}

/** One ABORTED run (docs/runner.md#the-run-step-by-step): no receipt, the state its challenge was issued for. */
export interface AbortedRunFact extends LogPosition, StateDigests {
  readonly runId: string;
  readonly unit: string;
  readonly stage: Stage;
  readonly slot: string;
  /** The reviewed work without the incident-history binding (./incident-lift.ts); absent: the plain rule. */
  readonly work?: string | null;
}

/**
 * One consumed authority record of this unit (docs/authority.md#human-authority-records), already verified and judged by the flow
 * that consumed it (signature, key role and validity at its log position, nonce, state before).
 * The rules use `dismiss`, `dismiss_veto`, `defer`, `supersede` and `abandon`; other operations
 * are carried for completeness and have no effect here.
 */
export interface AuthorityFact extends LogPosition {
  readonly recordId: string;
  readonly unit: string;
  readonly operation: string;
  /** The exact IDs the record covers (receipt ids, run ids, finding refs, directive ids). */
  readonly ids: readonly string[];
  /** The record's expiry (whole seconds): it has effect only if consumed before it. */
  readonly expiresAt: number;
}

/** A `policy_update` or `trust_update` log entry: every receipt before it stops counting (docs/contract.md#the-states-a-receipt-is-judged-against). */
export interface ResetFact extends LogPosition {
  readonly kind: 'policy_update' | 'trust_update';
}

/** A lease the store still records as active (not released, not swept), expired or not. */
export interface LeaseFact {
  readonly leaseId: string;
  readonly expiresAt: number;
}

/** One directive of the unit's current contract and, if any, the tombstone that disposes it. */
export interface DirectiveFact {
  readonly id: string;
  readonly state: DirectiveState;
  /** Tombstone id and the authority record it rests on (contract `authorities[].record`). */
  readonly tombstone: { readonly id: string; readonly authorityRecord: string } | null;
}

/** The unit's preservation status (docs/authority.md#human-authority-records), as the preservation check computed it. */
export interface PreservationFact {
  readonly contract: boolean;
  readonly incidentHistory: boolean;
  /** Surface ids whose disposition is not satisfied (probe failed, authority missing, ...). */
  readonly unsatisfiedSurfaces: readonly string[];
  /** Every preservation reason the check gave (docs/preservation.md#rules), each `{code, ids}`. */
  readonly violations?: readonly { readonly code: string; readonly ids: readonly string[] }[];
  /** The probe receipts the check counted (ids `sha256:<hex>`): what the decision rests on of preservation. */
  readonly probeReceipts?: readonly string[];
  /** Of those, the ones a caller's own process made (co-located; docs/runnerd.md#probes-through-the-daemon): any makes the decision co-located. */
  readonly coLocatedProbeReceipts?: readonly string[];
}

/**
 * The evidence the streak rules need. `current` holds the unit's current digests: the planning
 * state alone is enough for the planning stage (and so for `lease acquire`); the other stages need
 * content and work state too, and evaluating them without those fails closed.
 */
export interface EvidenceInput {
  readonly unit: string;
  /** Evaluation time, whole seconds (the caller's clock; never read here). */
  readonly now: number;
  readonly policy: Policy;
  /** Digest of the trust root in force (the store's pinned one). */
  readonly trustDigest: string;
  readonly current: { readonly planningStateDigest: string } & Partial<Omit<StateDigests, 'planningStateDigest'>>;
  readonly receipts: readonly ReceiptFact[];
  readonly abortedRuns: readonly AbortedRunFact[];
  readonly authorities: readonly AuthorityFact[];
  readonly resets: readonly ResetFact[];
}

/** Everything the delivery state (docs/decision.md#8-delivery-state-and-reason-codes) depends on. */
export interface DecisionInput extends EvidenceInput {
  readonly current: StateDigests;
  readonly trustMode: TrustMode;
  readonly openLeases: readonly LeaseFact[];
  readonly directives: readonly DirectiveFact[];
  readonly preservation: PreservationFact;
  readonly controls: ControlRegistry;
}

export interface Reason {
  readonly code: ReasonCode;
  /** Identifiers only (stage, `stage.slot`, receipt/run/lease/directive/surface ids, refs). */
  readonly ids: readonly string[];
}

/** A DIRTY receipt or ABORTED run and what lifted it (docs/decision.md#the-rules-in-short). */
export interface Block {
  readonly kind: 'receipt' | 'aborted';
  readonly id: string;
  readonly seq: number;
  readonly stage: Stage;
  readonly slot: string;
  /** The content it was for: planning-state digest (planning) or content digest (other stages). */
  readonly reviewedContent: string;
  readonly liftedBy: { readonly kind: 'receipt' | 'authority'; readonly id: string; readonly seq: number } | null;
  /** Receipts of the slot count only from this log position on; null while the block stands. */
  readonly countsFrom: number | null;
}

/** A receipt whose veto findings are not all lifted (docs/decision.md#6-vetoes). */
export interface StandingVeto {
  readonly receiptId: string;
  readonly seq: number;
  readonly stage: Stage;
  readonly slot: string;
  /** The findings still standing, in the receipt's order. */
  readonly findings: readonly VetoFinding[];
}

export interface SlotReport {
  readonly slot: string;
  /** Receipts of this slot on the current state (counted or not). */
  readonly current: number;
  /** Of those, the ones that count (docs/decision.md#4-which-receipts-count filters). */
  readonly counted: number;
  /** Rounds this slot still needs for the floor (0 when it has enough). */
  readonly missing: number;
  /** Ids of the DIRTY receipts / ABORTED runs that block this slot now. */
  readonly blockedBy: readonly string[];
}

export interface StageReport {
  readonly stage: Stage;
  readonly required: boolean;
  /** Whether the delivery state depends on this stage (required, or planning under integration). */
  readonly gating: boolean;
  readonly floor: number;
  /** The state receipts must be on: planning-state digest or work-state digest. */
  readonly currentDigest: string;
  /** Consecutive CLEAN complete rounds from the newest, before the planning-sealed rule. */
  readonly rounds: number;
  /** The streak that counts: `rounds`, or 0 for integration while planning is not sealed. */
  readonly streak: number;
  readonly complete: boolean;
  readonly slots: readonly SlotReport[];
  /** Receipt ids of the newest `floor` rounds (what proves the streak), when complete. */
  readonly proof: readonly string[];
}

export type DeliveryState = 'RELEASE_ELIGIBLE' | 'REVIEW_ONLY';

export interface Decision {
  readonly state: DeliveryState;
  readonly reasons: readonly Reason[];
  readonly unit: string;
  readonly trustMode: TrustMode;
  readonly policyDigest: string;
  readonly trustDigest: string;
  readonly current: StateDigests;
  readonly evaluatedAt: number;
  /** The policy's stated waiver (docs/authority.md#human-authority-records: shown in every decision), or null when not waived. */
  readonly preservationWaiver: string | null;
  readonly planningSealed: boolean;
  readonly stages: readonly StageReport[];
  readonly vetoes: readonly StandingVeto[];
  /**
   * Every signed record the decision rests on, for `gate` to re-verify under the deploy trust root
   * (docs/decision.md#8-delivery-state-and-reason-codes): receipts of the proving rounds, receipts that lifted blocks or vetoes, and the
   * authority records that lifted blocks or vetoes or dispose directives; and, when the policy requires
   * preservation, the probe receipts the preservation check counted (docs/preservation.md#delivery-state).
   */
  readonly reliedOn: { readonly receipts: readonly string[]; readonly authorities: readonly string[]; readonly probes: readonly string[] };
}
