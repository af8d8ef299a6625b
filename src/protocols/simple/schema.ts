// Inputs of simple-review (simple-review.txt): the reviewer pair, each reviewer's round-1 output
// under the "Finding Contract" and "Reviewer Prompt Contract", the single rebuttal round, and the
// lead's bounded checks. Fields a finding may *lack* are nullable here on purpose: the seed's rule
// for an incomplete finding is to downgrade or reject it (finding-contract.ts), not to discard the
// whole review.
import * as z from 'zod/mini';
import { list, str } from '../../core/schema-primitives.js';
import { REPO_PATH_MAX_CHARS, REVIEW_PROTOCOL_MAX_FINDINGS, REVIEW_PROTOCOL_MAX_ITEMS, REVIEW_PROTOCOL_MAX_PATHS, REVIEW_PROTOCOL_MAX_TEXT } from '../../core/limits.js';
import { PROTOCOL_ITEM_ID_RE } from '../../core/ids.js';

export const SIMPLE_SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFO'] as const;
export type SimpleSeverity = (typeof SIMPLE_SEVERITIES)[number];

/** Seed: "search evidence, focused test, command result, or precise reasoning check". */
export const VERIFICATION_METHODS = ['search', 'focused_test', 'command', 'reasoning'] as const;

/** Seed: claims that need "a concrete trigger or state sequence and visible consequence". */
export const COMPLEX_CLAIM_KINDS = ['race', 'lifecycle', 'architecture', 'security', 'performance', 'multi_step_plan'] as const;
export const CLAIM_KINDS = [...COMPLEX_CLAIM_KINDS, 'other'] as const;

export const DECISION_IMPACTS = ['routine', 'major'] as const;
export type DecisionImpact = (typeof DECISION_IMPACTS)[number];

const id = str({ re: PROTOCOL_ITEM_ID_RE });
const slot = str({ re: /^[a-z][a-z0-9-]{0,63}$/ });
const text = str({ max: REVIEW_PROTOCOL_MAX_TEXT });
const text1 = str({ min: 1, max: REVIEW_PROTOCOL_MAX_TEXT });
const path = str({ min: 1, max: REPO_PATH_MAX_CHARS });
const line = z.int().check(z.gte(1));

const VerificationSchema = z.strictObject({ method: z.enum(VERIFICATION_METHODS), detail: text });

export const SimpleFindingSchema = z.strictObject({
  finding_id: id,
  title: text1,
  file: z.nullable(path),
  line: z.nullable(line),
  snippet: z.nullable(text),
  verification: z.nullable(VerificationSchema),
  severity: z.enum(SIMPLE_SEVERITIES),
  fix_direction: z.nullable(text),
  claim_kind: z.enum(CLAIM_KINDS),
  trigger: z.nullable(text),
  decision_impact: z.enum(DECISION_IMPACTS),
});
export type SimpleFinding = z.output<typeof SimpleFindingSchema>;

const ReviewerRoundSchema = z.strictObject({
  slot,
  /** Reviewer-specific prefix such as R1-CLAUDE (seed "Reviewer Prompt Contract"). */
  finding_id_prefix: str({ re: /^[A-Za-z0-9][A-Za-z0-9-]{0,31}$/ }),
  session_ids: list(id, 0, 3),
  /** Seed "Failure Handling": retry the same selected slot at most twice (checked in pair.ts). */
  retries: z.int().check(z.gte(0), z.lte(1000)),
  status: z.enum(['completed', 'failed']),
  coverage: z.enum(['COMPLETE', 'INCOMPLETE']),
  reviewed_paths: list(path, 0, REVIEW_PROTOCOL_MAX_PATHS),
  unreadable_paths: list(path, 0, REVIEW_PROTOCOL_MAX_PATHS),
  restricted_steps: list(text1, 0, REVIEW_PROTOCOL_MAX_ITEMS),
  findings: list(SimpleFindingSchema, 0, REVIEW_PROTOCOL_MAX_FINDINGS),
  shutdown: z.boolean(),
});
export type ReviewerRound = z.output<typeof ReviewerRoundSchema>;

/** Seed rebuttal: "one verdict per id: an independent agree, disagree, or uncertain judgment with evidence". */
const RebuttalVerdictSchema = z.strictObject({
  finding_id: id,
  verdict: z.enum(['agree', 'disagree', 'uncertain']),
  evidence: text1,
});
const RebuttalSchema = z.strictObject({
  slot,
  status: z.enum(['completed', 'failed']),
  verdicts: list(RebuttalVerdictSchema, 0, REVIEW_PROTOCOL_MAX_ITEMS),
});
export type Rebuttal = z.output<typeof RebuttalSchema>;

const LeadCheckSchema = z.strictObject({
  finding_id: id,
  outcome: z.enum(['verified', 'disproved', 'inconclusive']),
  method: z.enum(VERIFICATION_METHODS),
  evidence: text1,
});
export type LeadCheck = z.output<typeof LeadCheckSchema>;

export const SimpleRound1Schema = z.strictObject({
  invocation_id: id,
  review_type: z.enum(['code', 'plan', 'prompt', 'technical_decision', 'mixed']),
  baseline: str({ re: /^(?:commit:[0-9a-f]{7,64}|working-tree)$/ }),
  scope_paths: list(path, 1, REVIEW_PROTOCOL_MAX_PATHS),
  /** The user-confirmed pair; exactly two distinct slots (checked in pair.ts with its own codes). */
  pair: list(slot, 0, 16),
  reviewers: list(ReviewerRoundSchema, 0, 16),
  /** Lead cross-reference: findings of the two reviewers that report the same issue. */
  same_issue: list(z.strictObject({ a: id, b: id }), 0, REVIEW_PROTOCOL_MAX_ITEMS),
  /** Lead-flagged material disagreements, sent to rebuttal along with every CRITICAL/HIGH. */
  material_disagreements: list(id, 0, REVIEW_PROTOCOL_MAX_ITEMS),
});
export type SimpleRound1 = z.output<typeof SimpleRound1Schema>;

export const SimpleInputSchema = z.strictObject({
  ...SimpleRound1Schema.shape,
  rebuttals: list(RebuttalSchema, 0, 16),
  lead_checks: list(LeadCheckSchema, 0, REVIEW_PROTOCOL_MAX_ITEMS),
  /** Seed: "Decision impact: routine | major; the lead validates this classification". */
  impact_validation: list(z.strictObject({ finding_id: id, decision_impact: z.enum(DECISION_IMPACTS) }), 0, REVIEW_PROTOCOL_MAX_ITEMS),
  cache_cleanup: z.enum(['not_used', 'removed', 'failed']),
});
export type SimpleInput = z.output<typeof SimpleInputSchema>;

export function severityIndex(s: SimpleSeverity): number {
  return SIMPLE_SEVERITIES.indexOf(s);
}
export function isCriticalOrHigh(s: SimpleSeverity): boolean {
  return s === 'CRITICAL' || s === 'HIGH';
}
