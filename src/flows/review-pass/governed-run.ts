// Governed mode of `governed review-pass` (SPEC §12): every reviewer call is a real governed run.
//   - The slots, their reviewers and the convergence streak come from the PINNED policy (SPEC §7.1,
//     §13): the stage's slots, each run by the policy reviewer of that slot; nothing the caller passes
//     (no config file, no flag) can add, remove or replace a slot or lower the streak.
//   - A round = one fresh `review-challenge` + `review-run` per slot (SPEC §7, §9), called in-process
//     through the same flows the CLI commands use (issueChallengeFlow, reviewRunFlow): one process,
//     the same checks, the same store transactions, and no CLI output to re-parse. Slots run one
//     after another: a claimed challenge holds the unit, so parallel claims would refuse each other.
//   - Every round runs all its slots (so the adjudication sees every reviewer), then the loop stops
//     at the first round holding a DIRTY or ABORTED run, or when `streak` CLEAN rounds are reached,
//     or when the policy's run budget refuses a challenge (`challenge_budget_exhausted`).
//   - Each run's outcome is read back from the store as its signed receipt, verified against the
//     pinned trust root at its recorded time (SPEC §8), and its opaque findings {code, class,
//     severity, refs} go through the engine's governed adapter (parseGovernedReviewerOutput): findings
//     match by code and refs only (match-findings.ts), weave consensus counts supporting slots.
//   - The result is ADVISORY: the delivery state is decided by `governed status` / `gate` (SPEC §10)
//     from the receipts alone; this report never feeds back into the store.
import { fail, GovernedError, isGovernedError } from '../../core/errors.js';
import { isoSecondsOf } from '../../core/trust-root.js';
import { verifyReceiptBytes } from '../../core/verify-receipt.js';
import { groupFindings, parseGovernedReviewerOutput, type AdjudicableFinding } from '../../protocols/review-pass/index.js';
import { consensusLevel, type ConsensusLevel } from '../../protocols/weave/index.js';
import { closeStore, getReceipt, openStore } from '../../store/index.js';
import { issueChallengeFlow } from '../challenge.js';
import { loadPinned } from '../challenge/pinned.js';
import { reviewRunFlow, RunAborted } from '../run/review-run.js';
import type { GovernedPlan } from './governed-mode.js';

export interface GovernedRunOptions {
  readonly home: string;
  readonly repo: string;
  readonly writerSession: string;
  readonly reviewersDir?: string | undefined;
  readonly attestorsDir?: string | undefined;
  readonly bwrapPath?: string | undefined;
  readonly policyFile?: string | undefined;
  readonly trustFile?: string | undefined;
  /** Runner clock, whole seconds (as the challenge and run flows take it). */
  readonly clock: () => number;
}

export interface GovernedRunRecord {
  readonly round: number;
  readonly slot: string;
  readonly challenge_id: string;
  readonly run_id: string;
  readonly verdict: 'CLEAN' | 'DIRTY' | 'ABORTED';
  /** null for an ABORTED run (no receipt exists). */
  readonly receipt_id: string | null;
  /** The abort code of an ABORTED run, else null. */
  readonly error: string | null;
}

export interface GovernedFindingGroup {
  readonly round: number;
  readonly code: string;
  readonly refs: readonly string[];
  readonly severity: string;
  readonly finding_class: string;
  readonly supporters: readonly string[];
  /** Weave only: the consensus level over the round's slots; null for review-pass. */
  readonly consensus: ConsensusLevel | null;
}

export interface GovernedOutcome {
  readonly protocol: 'review-pass' | 'weave';
  readonly stage: string;
  readonly unit: string;
  readonly result: 'CLEAN' | 'NOT_CLEAN';
  readonly reasons: readonly string[];
  readonly streak: number;
  readonly slots: readonly string[];
  readonly rounds: number;
  readonly clean_rounds: number;
  readonly runs: readonly GovernedRunRecord[];
  readonly findings: readonly GovernedFindingGroup[];
  readonly focus_files: readonly string[];
}

/** The policy's slots (sorted, a stable order) and streak for the plan's stage. */
function policyStage(o: GovernedRunOptions, plan: GovernedPlan): { slots: string[]; streak: number } {
  const store = openStore(o.home);
  try {
    const pinned = loadPinned(store, o.clock());
    const stages = pinned.policy.doc.stages as Record<string, { streak: number; slots: Record<string, string> } | undefined>;
    const s = Object.prototype.hasOwnProperty.call(stages, plan.stage) ? stages[plan.stage] : undefined;
    if (s === undefined) return fail('stage_not_in_policy', [plan.stage]);
    return { slots: Object.keys(s.slots).sort(), streak: s.streak };
  } finally {
    closeStore(store);
  }
}

/** The receipt's adjudicable findings: verified against the pinned trust root, then the governed adapter. */
function receiptFindings(o: GovernedRunOptions, slot: string, receiptId: string): AdjudicableFinding[] {
  const store = openStore(o.home);
  try {
    const stored = getReceipt(store, receiptId);
    if (stored === null) return fail('orchestrator_governed_receipt_invalid', [receiptId]);
    const pinned = loadPinned(store, o.clock());
    try {
      const r = verifyReceiptBytes(stored.envelope, pinned.trust, { at: isoSecondsOf(new Date(stored.recordedAt * 1000)), offline: false });
      const p = r.predicate;
      if (p.verdict !== stored.verdict) fail('orchestrator_governed_receipt_invalid', [receiptId]);
      return [...parseGovernedReviewerOutput(slot, { verdict: p.verdict, coverage_matched: p.coverage_matched, findings: p.findings }).findings];
    } catch (e) {
      if (isGovernedError(e) && e.code === 'orchestrator_governed_receipt_invalid') throw e;
      return fail('orchestrator_governed_receipt_invalid', [receiptId], e);
    }
  } finally {
    closeStore(store);
  }
}

/** One round's groups: matched by code and refs only (SPEC §12). */
function adjudicate(round: number, protocol: GovernedPlan['protocol'], lanes: number, findings: readonly AdjudicableFinding[]): GovernedFindingGroup[] {
  return groupFindings(findings).map((g) => {
    const first = g.members[0] as AdjudicableFinding;
    return {
      round,
      code: g.file,
      refs: (first.symbol ?? '').split(',').filter((x) => x.length > 0),
      severity: g.severity,
      finding_class: first.finding_class,
      supporters: [...g.supporters].sort(),
      consensus: protocol === 'weave' ? consensusLevel(g.supporters.length, 0, lanes) : null,
    };
  });
}

export async function runGovernedReviewPass(o: GovernedRunOptions, plan: GovernedPlan): Promise<GovernedOutcome> {
  const { slots, streak } = policyStage(o, plan);
  const runs: GovernedRunRecord[] = [];
  const findings: GovernedFindingGroup[] = [];
  const reasons = new Set<string>();
  let cleanRounds = 0;
  let rounds = 0;
  let stopped = false;
  while (!stopped && cleanRounds < streak) {
    const round = rounds + 1;
    const roundFindings: AdjudicableFinding[] = [];
    let roundClean = true;
    let ran = 0;
    for (const slot of slots) {
      let challengeId: string;
      try {
        challengeId = (
          await issueChallengeFlow({
            home: o.home,
            unit: plan.unit,
            writerSession: o.writerSession,
            stage: plan.stage,
            slot,
            repo: o.repo,
            policyFile: o.policyFile,
            trustFile: o.trustFile,
            clock: o.clock,
          })
        ).challengeId;
      } catch (e) {
        // The policy's run budget (SPEC §7.2) is the orchestrator's budget guard: NOT_CLEAN, never a
        // partial clean. Any other refusal is the caller's problem and surfaces with its own code.
        if (e instanceof GovernedError && e.code === 'challenge_budget_exhausted') {
          reasons.add('orchestrator_governed_budget_exhausted');
          roundClean = false;
          stopped = true;
          break;
        }
        throw e;
      }
      try {
        const r = await reviewRunFlow({
          home: o.home,
          challengeId,
          repo: o.repo,
          reviewersDir: o.reviewersDir,
          attestorsDir: o.attestorsDir,
          bwrapPath: o.bwrapPath,
          policyFile: o.policyFile,
          trustFile: o.trustFile,
          clock: o.clock,
        });
        runs.push({ round, slot, challenge_id: challengeId, run_id: r.runId, verdict: r.verdict, receipt_id: r.receiptId, error: null });
        roundFindings.push(...receiptFindings(o, slot, r.receiptId));
        if (r.verdict !== 'CLEAN') {
          roundClean = false;
          reasons.add('orchestrator_governed_dirty');
        }
      } catch (e) {
        if (!(e instanceof RunAborted)) throw e;
        runs.push({ round, slot, challenge_id: challengeId, run_id: e.runId, verdict: 'ABORTED', receipt_id: null, error: e.error.code });
        roundClean = false;
        reasons.add('orchestrator_governed_aborted');
      }
      ran++;
    }
    if (ran > 0) rounds = round;
    findings.push(...adjudicate(round, plan.protocol, slots.length, roundFindings));
    if (roundClean) cleanRounds++;
    else stopped = true;
  }
  return {
    protocol: plan.protocol,
    stage: plan.stage,
    unit: plan.unit,
    result: cleanRounds >= streak ? 'CLEAN' : 'NOT_CLEAN',
    reasons: [...reasons].sort(),
    streak,
    slots,
    rounds,
    clean_rounds: cleanRounds,
    runs,
    findings,
    focus_files: plan.focus_files,
  };
}
