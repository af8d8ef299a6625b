// The review-pass result (`governed.review-pass-result/v1`, docs/review-pass.md#review-protocols "a
// JSON result"), defined once in zod/mini: its TypeScript types (the result and the parts the
// reducer builds it from: health scores, requirement coverage lines, group summaries, round log
// entries) are inferred from it, and docs/schemas/review-pass-result.schema.json is generated from
// it. The protocol (src/protocols/review-pass/) imports the TYPES only; test/schemas-doc.test.ts parses real results. Pure.
import * as z from 'zod/mini';
import { PROTOCOLS_REVIEW_PASS_REASONS } from './error-codes/protocols-review-pass.js';

const REASONS = Object.keys(PROTOCOLS_REVIEW_PASS_REASONS) as [keyof typeof PROTOCOLS_REVIEW_PASS_REASONS, ...(keyof typeof PROTOCOLS_REVIEW_PASS_REASONS)[]];
const ro = <T extends z.ZodMiniType>(t: T) => z.readonly(z.array(t));
const bit = z.union([z.literal(0), z.literal(1)]);
const n = z.number();

export const notCleanReasonSchema = z.enum(REASONS);

export const healthScoreSchema = z.readonly(
  z.strictObject({
    reviewer: z.string(),
    health: n,
    low: z.boolean(),
    signals: z.readonly(z.strictObject({ files_read: bit, specificity: bit, req_aligned: bit, verdict_ok: bit })),
  }),
);
export type HealthScore = z.infer<typeof healthScoreSchema>;
export type HealthSignals = HealthScore['signals'];

export const reqCoverageLineSchema = z.readonly(
  z.strictObject({ req_id: z.string(), status: z.enum(['COVERED', 'NOT_FOUND', 'DEFERRED']), locations: ro(z.string()) }),
);
export type ReqCoverageLine = z.infer<typeof reqCoverageLineSchema>;

export const groupSummarySchema = z.readonly(
  z.strictObject({
    id: z.string(),
    classification: z.enum(['CONFIRMED', 'CONTESTED', 'AUTO_DISMISSED', 'VETO']),
    file: z.string(),
    line: z.nullable(n),
    symbol: z.nullable(z.string()),
    severity: z.string(),
    finding_class: z.string(),
    req_id: z.nullable(z.string()),
    description: z.string(),
    supporters: ro(z.string()),
    low_confidence: z.boolean(),
    /** A member lost its class tag (text_fallback downgrade); its class was recorded as correctness. */
    class_missing: z.boolean(),
    resolution: z.nullable(z.readonly(z.strictObject({ decision: z.enum(['FIX', 'DISMISS']), by: z.enum(['arbiter', 'user']) }))),
  }),
);
export type GroupSummary = z.infer<typeof groupSummarySchema>;

export const roundLogEntrySchema = z.readonly(
  z.strictObject({
    round: n,
    time: n,
    lens: z.string(),
    result: z.enum(['CLEAN', 'NOT_CLEAN']),
    reasons: ro(notCleanReasonSchema),
    details: z.string(),
    r: n,
    reviewers_available: ro(z.string()),
    reviewers_unavailable: ro(z.readonly(z.strictObject({ slot: z.string(), reason: z.string() }))),
    counts: z.readonly(
      z.strictObject({
        confirmed: n,
        contested: n,
        contested_unresolved: n,
        auto_dismissed: n,
        vetoes: n,
        suppressed: n,
        known_issues_invalidated: n,
        rejected_findings: n,
        downgraded_findings: n,
      }),
    ),
    health: ro(healthScoreSchema),
    agreement: z.nullable(z.boolean()),
    probes: z.readonly(z.strictObject({ passed: n, total: n })),
  }),
);
export type RoundLogEntry = z.infer<typeof roundLogEntrySchema>;

export const deliveryReasonSchema = z.union([z.enum(['advisory_result', 'review_not_clean']), z.templateLiteral(['control_pending:', z.string()])]);

export const reviewPassResultSchema = z.readonly(
  z.strictObject({
    schema: z.literal('governed.review-pass-result/v1'),
    protocol: z.literal('review-pass'),
    stage: z.string(),
    mode: z.enum(['governed', 'non_governed']),
    light: z.boolean(),
    result: z.enum(['CLEAN', 'NOT_CLEAN']),
    reasons: ro(notCleanReasonSchema),
    delivery_state: z.literal('REVIEW_ONLY'),
    delivery_reasons: ro(deliveryReasonSchema),
    /** Governed mode only: the pinned policy's required controls still pending (absent: no policy governs). */
    pending_controls: z.optional(ro(z.string())),
    rounds: n,
    reviewers: ro(z.string()),
    r_actual: n,
    lenses: ro(z.string()),
    convergence: z.readonly(z.strictObject({ threshold: n, consecutive_clean: n })),
    budget: z.readonly(z.strictObject({ max_rounds: n, max_total_time_ms: n })),
    started_at: n,
    duration_ms: n,
    summary: z.readonly(
      z.strictObject({
        confirmed: n,
        contested_resolved: z.readonly(z.strictObject({ total: n, by_arbiter: n, by_user: n })),
        escalations: n,
        vetoes: n,
        auto_dismissed: n,
        suppressed: n,
        preservation_probes: z.readonly(z.strictObject({ passed: n, total: n })),
      }),
    ),
    req_coverage: ro(reqCoverageLineSchema),
    deferred_req_ids: ro(z.string()),
    confirmed: ro(groupSummarySchema),
    escalations: ro(groupSummarySchema),
    vetoes: ro(groupSummarySchema),
    review_log: ro(roundLogEntrySchema),
    health: ro(healthScoreSchema),
    agreement: z.nullable(z.boolean()),
    known_issues: n,
    warnings: ro(z.string()),
    auto_fix: z.literal('out_of_scope'),
    orchestrator_edits_code: z.literal(false),
    notices: ro(z.string()),
  }),
);
export type ReviewPassResult = z.infer<typeof reviewPassResultSchema>;
