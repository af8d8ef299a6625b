// Governed mode of `governed review-pass` (docs/review-pass.md#review-protocols): every reviewer call is a real governed run.
//   - The slots, their reviewers and the convergence streak come from the PINNED policy (docs/bundle.md#views,
//     docs/policy.md#policy-and-trust-root): the stage's slots, each run by the policy reviewer of that slot; nothing the caller passes
//     (no config file, no flag) can add, remove or replace a slot or lower the streak.
//   - A round = one fresh `review-challenge` + `review-run` per slot (docs/bundle.md#the-review-bundle, docs/runner.md#the-run-step-by-step), called in-process
//     through the same flows the CLI commands use (issueChallengeFlow, reviewRunFlow): one process,
//     the same checks, the same store transactions, and no CLI output to re-parse. Slots run one
//     after another: a claimed challenge holds the unit, so parallel claims would refuse each other.
//   - Each run's outcome is read back from the store as its signed receipt, verified against the
//     pinned trust root at its recorded time (docs/formats.md#receipt) and checked to be the run that was asked for
//     (unit, stage, slot, challenge, run); its opaque findings {code, class, severity, refs} are what
//     the protocol adjudicates — the same pure engines as non-governed mode (governed-protocols.ts),
//     matching by code and refs.
//   - The protocol decides when to stop (review-pass: the engine's convergence and budget guard;
//     weave: the policy streak of clean syntheses). The orchestrator also stops — the engine records
//     a halt — after a round holding a DIRTY or ABORTED run (it blocks its slot on this content until
//     the content changes or an authority dismisses it, docs/decision.md#the-rules-in-short, so more rounds could never
//     converge) and when the policy's run budget refuses a challenge (`challenge_budget_exhausted`).
//   - The result is ADVISORY: the delivery state is decided by `governed status` / `gate` (docs/decision.md#the-rules-in-short)
//     from the receipts alone; nothing here feeds back into the store.
import { fail, GovernedError, isGovernedError, type ReasonCode } from '../../core/errors.js';
import { isoSecondsOf } from '../../core/trust-root.js';
import { verifyReceiptBytes } from '../../core/verify-receipt.js';
import { CONTROL_REGISTRY, pendingControls } from '../../core/decision/controls.js';
import type { Stage } from '../../protocols/review-pass/index.js';
import { closeStore, getReceipt, openStore } from '../../store/index.js';
import { getPreservation } from '../../store/preservation.js';
import { issueChallengeFlow } from '../challenge.js';
import { loadPinned } from '../challenge/pinned.js';
import { reviewRunFlow, RunAborted, type ReviewRunArgs } from '../run/review-run.js';
import type { GovernedPlan } from './governed-mode.js';
import { reviewPassDriver, weaveDriver, type GovernedDriver, type ProtocolResult } from './governed-protocols.js';
import type { ProgressSink } from '../../core/progress.js';

/** What every `review-run` of the loop takes (home, repo, locations, pin files, runner clock), plus the loop's own. */
export interface GovernedRunOptions extends Omit<ReviewRunArgs, 'challengeId' | 'progress'> {
  readonly writerSession: string;
  /** One call as each round and each slot's run starts (docs/commands.md#progress-on-stderr). */
  readonly progress?: ProgressSink<'review-pass'> | undefined;
  /** Each slot's challenge and run report their own phases, as `review-challenge` and `review-run` do. */
  readonly challengeProgress?: ProgressSink<'review-challenge'> | undefined;
  readonly runProgress?: ProgressSink<'review-run'> | undefined;
  /**
   * The protocol engine's clock in milliseconds (report times, durations, the seed's time budget);
   * default: the runner clock × 1000. Injected by the golden tests so reports are reproducible.
   */
  readonly engineClock?: () => number;
  /** Random bytes (weave blind labels); default node:crypto. Injected by the golden tests. */
  readonly random?: (n: number) => Buffer;
}

/** A finding exactly as the receipt binds it (docs/reviewers.md#reviewer-output): closed vocabulary, never text. */
export interface GovernedFinding {
  readonly code: string;
  readonly class: string;
  readonly severity: string;
  readonly refs: readonly string[];
}

export interface GovernedRunRecord {
  readonly round: number;
  readonly slot: string;
  /** The policy reviewer that served the slot (the receipt's reviewer name when there is one). */
  readonly reviewer: string;
  readonly challenge_id: string;
  readonly run_id: string;
  readonly verdict: 'CLEAN' | 'DIRTY' | 'ABORTED';
  /** `sha256:<hex>` of the signed receipt statement (docs/formats.md#receipt receipt_id); null for an ABORTED run. */
  readonly receipt_id: string | null;
  /** The receipt's execution id; null for an ABORTED run. */
  readonly execution_id: string | null;
  /** The abort code of an ABORTED run, else null. */
  readonly error: string | null;
  /** The receipt's findings; empty for CLEAN and ABORTED runs. */
  readonly findings: readonly GovernedFinding[];
}

/** Why the orchestrator stopped a governed review (error-codes/review-pass.ts reasons). */
export type GovernedStopReason = Extract<
  ReasonCode,
  'orchestrator_governed_dirty' | 'orchestrator_governed_aborted' | 'orchestrator_governed_budget_exhausted'
>;

export interface GovernedOutcome {
  readonly protocol: 'review-pass' | 'weave';
  readonly stage: Stage;
  readonly unit: string;
  readonly result: 'CLEAN' | 'NOT_CLEAN';
  /** The protocol's reasons and the orchestrator's governed reasons, sorted. */
  readonly reasons: readonly string[];
  readonly governed_reasons: readonly GovernedStopReason[];
  readonly streak: number;
  readonly slots: readonly string[];
  /** slot → the policy reviewer that serves it. */
  readonly slot_reviewers: Readonly<Record<string, string>>;
  /** Rounds in which at least one run was recorded. */
  readonly rounds: number;
  /** Consecutive complete rounds, newest last, in which every slot produced a CLEAN receipt. */
  readonly clean_rounds: number;
  readonly runs: readonly GovernedRunRecord[];
  readonly focus_files: readonly string[];
  /** The engine's seed-shaped result (JSON and Markdown) before the governed section. */
  readonly protocol_result: ProtocolResult;
}

interface PolicyStage {
  readonly slots: string[];
  readonly streak: number;
  readonly reviewers: Record<string, string>;
  readonly preservationWaived: boolean;
  /**
   * A preservation contract is bound to the unit (with its incident-history digest): planning and
   * integration bundles then carry the preservation section (docs/bundle.md#the-preservation-section).
   */
  readonly preservationBound: boolean;
  /** The policy's required controls still pending: the decision's `control_pending:<name>` reasons. */
  readonly pendingControls: readonly string[];
}

/** The policy's slots (sorted, a stable order), their reviewers and the streak for the plan's stage. */
function policyStage(o: GovernedRunOptions, plan: GovernedPlan): PolicyStage {
  const store = openStore(o.home);
  try {
    const pinned = loadPinned(store, o.clock());
    const stages = pinned.policy.doc.stages as Record<string, { streak: number; slots: Record<string, string> } | undefined>;
    const s = Object.prototype.hasOwnProperty.call(stages, plan.stage) ? stages[plan.stage] : undefined;
    if (s === undefined) return fail('stage_not_in_policy', [plan.stage]);
    const slots = Object.keys(s.slots).sort();
    return {
      slots,
      streak: s.streak,
      reviewers: Object.fromEntries(slots.map((k) => [k, s.slots[k] as string])),
      preservationWaived: pinned.policy.doc.preservation !== 'required',
      preservationBound: getPreservation(store, plan.unit) !== null,
      pendingControls: pendingControls(pinned.policy.doc.controls, CONTROL_REGISTRY),
    };
  } finally {
    closeStore(store);
  }
}

interface ReceiptFacts {
  readonly reviewer: string;
  readonly execution_id: string;
  readonly findings: GovernedFinding[];
}

/**
 * The receipt of a run just recorded: verified against the pinned trust root at its recorded time,
 * and checked to be the very run that was asked for (a mismatch is never adjudicated).
 */
function receiptFacts(o: GovernedRunOptions, plan: GovernedPlan, slot: string, challengeId: string, runId: string, receiptId: string, verdict: string): ReceiptFacts {
  const store = openStore(o.home);
  try {
    const stored = getReceipt(store, receiptId);
    if (stored === null) return fail('orchestrator_governed_receipt_invalid', [receiptId]);
    const pinned = loadPinned(store, o.clock());
    try {
      const r = verifyReceiptBytes(stored.envelope, pinned.trust, { at: isoSecondsOf(new Date(stored.recordedAt * 1000)), offline: false });
      const p = r.predicate;
      const same =
        r.id === receiptId &&
        p.verdict === stored.verdict &&
        p.verdict === verdict &&
        p.unit === plan.unit &&
        p.stage === plan.stage &&
        p.slot === slot &&
        p.challenge_id === challengeId &&
        p.run_id === runId;
      if (!same) fail('orchestrator_governed_receipt_invalid', [receiptId]);
      return {
        reviewer: p.reviewer.name,
        execution_id: p.execution_id,
        findings: p.findings.map((f) => ({ code: f.code, class: f.class, severity: f.severity, refs: [...f.refs] })),
      };
    } catch (e) {
      if (isGovernedError(e) && e.code === 'orchestrator_governed_receipt_invalid') throw e;
      return fail('orchestrator_governed_receipt_invalid', [receiptId], e);
    }
  } finally {
    closeStore(store);
  }
}

/** One slot's challenge + run. `null`: the policy's run budget refused the challenge. */
async function runSlot(o: GovernedRunOptions, plan: GovernedPlan, round: number, slot: string, reviewer: string): Promise<GovernedRunRecord | null> {
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
        progress: o.challengeProgress,
      })
    ).challengeId;
  } catch (e) {
    // The policy's run budget (docs/reviewers.md#reviewer-output) is the governed budget guard: NOT_CLEAN, never a partial
    // clean. Any other refusal is the caller's problem and surfaces with its own code.
    if (e instanceof GovernedError && e.code === 'challenge_budget_exhausted') return null;
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
      progress: o.runProgress,
    });
    const facts = receiptFacts(o, plan, slot, challengeId, r.runId, r.receiptId, r.verdict);
    return { round, slot, reviewer: facts.reviewer, challenge_id: challengeId, run_id: r.runId, verdict: r.verdict, receipt_id: r.receiptId, execution_id: facts.execution_id, error: null, findings: facts.findings };
  } catch (e) {
    if (!(e instanceof RunAborted)) throw e;
    return { round, slot, reviewer, challenge_id: challengeId, run_id: e.runId, verdict: 'ABORTED', receipt_id: null, execution_id: null, error: e.error.code, findings: [] };
  }
}

export async function runGovernedReviewPass(o: GovernedRunOptions, plan: GovernedPlan): Promise<GovernedOutcome> {
  const policy = policyStage(o, plan);
  const engineClock = o.engineClock ?? (() => o.clock() * 1000);
  const driver: GovernedDriver =
    plan.protocol === 'weave'
      ? weaveDriver({ stage: plan.stage, slots: policy.slots, streak: policy.streak }, o.random)
      : reviewPassDriver(
          { stage: plan.stage, slots: policy.slots, streak: policy.streak, preservationWaived: policy.preservationWaived, preservationBound: policy.preservationBound, pendingControls: policy.pendingControls },
          engineClock,
        );
  const runs: GovernedRunRecord[] = [];
  const stop = new Set<GovernedStopReason>();
  let round = 0;
  let rounds = 0;
  // docs/decision.md#the-rules-in-short: a round counts as clean only when EVERY slot produced a CLEAN receipt (the engine's
  // own log may call a degraded round clean, docs/review-pass-protocol.md#graceful-degradation; its convergence line says so).
  let cleanRounds = 0;
  while (driver.running()) {
    driver.beforeRound();
    if (!driver.running()) break;
    round++;
    o.progress?.('round', round);
    const roundRuns: GovernedRunRecord[] = [];
    let exhausted = false;
    for (const slot of policy.slots) {
      o.progress?.('reviewer', runs.length + roundRuns.length + 1);
      const rec = await runSlot(o, plan, round, slot, policy.reviewers[slot] as string);
      if (rec === null) {
        exhausted = true;
        break;
      }
      roundRuns.push(rec);
    }
    if (roundRuns.length > 0) rounds = round;
    runs.push(...roundRuns);
    if (roundRuns.some((r) => r.verdict === 'DIRTY')) stop.add('orchestrator_governed_dirty');
    if (roundRuns.some((r) => r.verdict === 'ABORTED')) stop.add('orchestrator_governed_aborted');
    if (exhausted) {
      // A partial round is not adjudicated (the engines need every slot); its runs are listed in
      // the governed section with their receipts' findings.
      stop.add('orchestrator_governed_budget_exhausted');
      driver.halt();
      break;
    }
    driver.recordRound(roundRuns);
    cleanRounds = roundRuns.every((r) => r.verdict === 'CLEAN') ? cleanRounds + 1 : 0;
    if (stop.size > 0) driver.halt();
  }
  const governed = [...stop].sort();
  const result = driver.finish(governed);
  const clean = result.result === 'CLEAN' && governed.length === 0;
  return {
    protocol: plan.protocol,
    stage: plan.stage,
    unit: plan.unit,
    result: clean ? 'CLEAN' : 'NOT_CLEAN',
    reasons: [...new Set([...result.reasons, ...governed])].sort(),
    governed_reasons: governed,
    streak: policy.streak,
    slots: policy.slots,
    slot_reviewers: policy.reviewers,
    rounds,
    clean_rounds: cleanRounds,
    runs,
    focus_files: plan.focus_files,
    protocol_result: result,
  };
}
