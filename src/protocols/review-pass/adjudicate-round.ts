// One round's adjudication (docs/review-pass-protocol.md#the-round-loop steps 2, 4 and 5, docs/review-pass-protocol.md#graceful-degradation, docs/review-pass-protocol.md#health-score, docs/review-pass-protocol.md#known-issues, docs/review-pass-protocol.md#req-id-coverage), pure:
// runs → degradation → parse → health → known-issue invalidation and suppression → grouping →
// classification → REQ-ID coverage. The reducer (review-state.ts) adds resolutions and decides.
// The orchestrator may call `adjudicateRound` first to learn the CONTESTED group ids it has to
// arbitrate or ask the user about, then pass its resolutions to `recordRound`, which recomputes the
// very same adjudication from the same inputs.
import * as z from 'zod/mini';
import { str } from '../../core/schema-primitives.js';
import { fail } from '../../core/errors.js';
import { classifyGroup, type Classification } from './classify-group.js';
import { decideDegradation, type DegradationDecision } from './degradation.js';
import type { AdjudicableFinding } from './finding.js';
import { healthScore, type HealthScore } from './health-score.js';
import { invalidateKnownIssues, isSuppressed, type InvalidationReason, type KnownIssue } from './known-issues.js';
import { groupFindings, type FindingGroup } from './match-findings.js';
import { parseReviewerRunOutput } from './parse-reviewer-run.js';
import type { ParsedReviewerOutput, ReqCoverageStatus } from './reviewer-output.js';
import type { ReviewPassConfig } from './stage-profile.js';
import { REVIEW_PASS_RUN_MAX_TEXT } from '../../core/limits.js';

const RunOutputSchema = z.union([
  z.strictObject({ strategy: z.enum(['json', 'text_fallback']), text: str({ max: REVIEW_PASS_RUN_MAX_TEXT }) }),
  z.strictObject({ strategy: z.literal('governed'), value: z.unknown() }),
]);

export const ReviewerRunSchema = z
  .strictObject({
    slot: str({ min: 1, max: 64 }),
    execution_id: str({ min: 1, max: ID_FIELD_MAX_CHARS }),
    status: z.enum(['ok', 'timeout', 'failed']),
    output: z.optional(RunOutputSchema),
  })
  .check(z.refine((r) => (r.status === 'ok') === (r.output !== undefined)));
export type ReviewerRun = z.infer<typeof ReviewerRunSchema>;

export interface RoundContext {
  readonly config: ReviewPassConfig;
  readonly round: number;
  readonly convergence_threshold: number;
  readonly known_issues: readonly KnownIssue[];
  readonly seen_execution_ids: readonly string[];
}

export interface ClassifiedGroup {
  readonly group: FindingGroup;
  readonly classification: Classification;
  /** docs/review-pass-protocol.md#health-score "Flag findings from low-health reviewers as lower confidence": every supporter is low-health. */
  readonly low_confidence: boolean;
}

/** Defined once in zod/mini (src/core/review-pass-result.ts). */
export type { ReqCoverageLine } from '../../core/review-pass-result.js';
import type { ReqCoverageLine } from '../../core/review-pass-result.js';
import { ID_FIELD_MAX_CHARS } from '../../core/limits.js';

export interface RoundAdjudication {
  readonly degradation: DegradationDecision;
  readonly outputs: readonly ParsedReviewerOutput[];
  readonly health: readonly HealthScore[];
  readonly known_kept: readonly KnownIssue[];
  readonly known_removed: ReadonlyArray<{ readonly issue: KnownIssue; readonly reason: InvalidationReason }>;
  readonly suppressed: number;
  readonly groups: readonly ClassifiedGroup[];
  readonly req_coverage: readonly ReqCoverageLine[];
  /** docs/review-pass-protocol.md#health-score "At R=2 … inter-reviewer agreement … binary"; null unless exactly two reviewers answered. */
  readonly agreement: boolean | null;
}

/** Check that the runs name every configured slot exactly once (else `review_pass_round_invalid`). */
export function validateRuns(config: ReviewPassConfig, runs: unknown): ReviewerRun[] {
  const parsed = z.array(ReviewerRunSchema).safeParse(runs);
  if (!parsed.success) fail('review_pass_round_invalid', ['runs']);
  const slots = parsed.data.map((r) => r.slot);
  if (new Set(slots).size !== slots.length) fail('review_pass_round_invalid', ['slot']);
  for (const s of slots) if (!config.slots.includes(s)) fail('review_pass_round_invalid', ['slot']);
  for (const s of config.slots) if (!slots.includes(s)) fail('review_pass_round_invalid', [s]);
  return parsed.data;
}

/** docs/review-pass-protocol.md#req-id-coverage: deferred REQ-IDs are noted; a non-deferred one is COVERED only with evidence. */
export function aggregateReqCoverage(
  reqIds: readonly string[],
  deferred: readonly string[],
  outputs: readonly ParsedReviewerOutput[],
): ReqCoverageLine[] {
  return reqIds.map((req) => {
    if (deferred.includes(req)) return { req_id: req, status: 'DEFERRED' as const, locations: [] };
    let covered = false;
    let notFound = false;
    const locations = new Set<string>();
    for (const o of outputs) {
      const cov = o.req_coverage;
      if (cov === null) continue;
      const entry = cov.entries.find((e) => e.req_id === req);
      if (entry?.status === 'NOT_FOUND') notFound = true;
      else if (entry?.status === 'COVERED' || (entry === undefined && cov.all_covered)) {
        covered = true;
        if (entry?.location) locations.add(entry.location);
      }
    }
    // Fail closed: one reviewer's NOT FOUND outweighs another's COVERED; silence is not coverage.
    const status: ReqCoverageStatus = covered && !notFound ? 'COVERED' : 'NOT_FOUND';
    return { req_id: req, status, locations: status === 'COVERED' ? [...locations].sort() : [] };
  });
}

export function adjudicateRound(
  ctx: RoundContext,
  runsInput: unknown,
  files: Readonly<Record<string, string | null>>,
): RoundAdjudication {
  const config = ctx.config;
  const runs = validateRuns(config, runsInput);

  // docs/review-pass-protocol.md#output-parsing-rules parse every answered run; a governed output that fails its schema throws (never degraded).
  const parsedBySlot = new Map<string, ParsedReviewerOutput>();
  for (const run of runs) {
    if (run.status === 'ok' && run.output !== undefined) parsedBySlot.set(run.slot, parseReviewerRunOutput(run.slot, run.output));
  }
  const degradation = decideDegradation(
    config.role_stage,
    runs.map((r) => ({
      slot: r.slot,
      execution_id: r.execution_id,
      status: r.status,
      usable: parsedBySlot.get(r.slot)?.structured ?? false,
    })),
    config.slots,
    ctx.seen_execution_ids,
    ctx.convergence_threshold,
  );
  const outputs = degradation.available.map((s) => parsedBySlot.get(s) as ParsedReviewerOutput);
  // docs/review-pass-protocol.md#health-score health for every reviewer that answered (an unparseable answer scores 0 and is reported).
  const health = [...parsedBySlot.values()]
    .map((o) => healthScore(o, config.req_ids))
    .sort((a, b) => (a.reviewer < b.reviewer ? -1 : a.reviewer > b.reviewer ? 1 : 0));
  const lowHealth = new Set(health.filter((h) => h.low).map((h) => h.reviewer));

  // docs/review-pass-protocol.md#invalidation invalidate before the round's findings are considered; docs/review-pass-protocol.md#suppression suppress re-reports.
  const inv = invalidateKnownIssues(ctx.known_issues, files);
  const all: AdjudicableFinding[] = outputs.flatMap((o) => o.findings);
  const kept = all.filter((f) => !isSuppressed(f, inv.kept));

  const groups = groupFindings(kept).map((group) => ({
    group,
    classification: classifyGroup(group, {
      reviewers_available: degradation.r,
      available: degradation.available,
      auto_dismiss_enabled: degradation.auto_dismiss_enabled,
      low_health: lowHealth,
    }),
    low_confidence: group.supporters.every((s) => lowHealth.has(s)),
  }));

  const agreement =
    outputs.length === 2
      ? (outputs[0]?.verdict === 'CLEAN') === (outputs[1]?.verdict === 'CLEAN')
      : null;
  return {
    degradation,
    outputs,
    health,
    known_kept: inv.kept,
    known_removed: inv.removed,
    suppressed: all.length - kept.length,
    groups,
    req_coverage: aggregateReqCoverage(config.req_ids, config.deferred_req_ids, outputs),
    agreement,
  };
}
