// Input of the weave synthesis (weave-review.txt "Phase 4: Synthesize Findings"). The lead has
// already verified claims against the codebase ("Step 1: Verify Claims") and cross-referenced lane
// findings into issues ("Cross-Reference and Deduplicate"); this engine turns those facts into the
// blind label map, consensus levels, severity promotion, ordering and the disagreement listing.
import * as z from 'zod/mini';
import { list, str } from '../../core/schema-primitives.js';
import { REPO_PATH_MAX_CHARS, REVIEW_PROTOCOL_MAX_FINDINGS, REVIEW_PROTOCOL_MAX_TEXT, WEAVE_MAX_ISSUES } from '../../core/limits.js';
import { PROTOCOL_ITEM_ID_RE } from '../../core/ids.js';

/** Weave reviewers report "Severity: Critical / Important / Suggestion" (Phase 3 prompts). */
export const WEAVE_SEVERITIES = ['Critical', 'Important', 'Suggestion'] as const;
export type WeaveSeverity = (typeof WEAVE_SEVERITIES)[number];

/** Step 1 claim classes: verified, plausible-unverified, or false (contradicted by code). */
export const VERIFICATIONS = ['verified', 'plausible-unverified', 'false'] as const;
export type Verification = (typeof VERIFICATIONS)[number];

/** Phase 3 failure classes (timeout, rate-limit, credit-exhausted, crash, empty). */
export const LANE_FAILURES = ['timeout', 'rate_limit', 'credit_exhausted', 'crash', 'empty'] as const;

export const MAX_LANES = 26; // labels A..Z
const id = str({ re: PROTOCOL_ITEM_ID_RE });
const text = str({ min: 1, max: REVIEW_PROTOCOL_MAX_TEXT });

const LaneFindingSchema = z.strictObject({
  issue_id: id,
  severity: z.enum(WEAVE_SEVERITIES),
  description: text,
  recommendation: text,
});

/** "dissent (incompatible position, including 'not an issue')". */
const DissentSchema = z.strictObject({ issue_id: id, reason: text });

const OkLaneSchema = z.strictObject({
  participant: id,
  status: z.literal('ok'),
  findings: list(LaneFindingSchema, 0, REVIEW_PROTOCOL_MAX_FINDINGS),
  dissents: list(DissentSchema, 0, REVIEW_PROTOCOL_MAX_FINDINGS),
});
const FailedLaneSchema = z.strictObject({
  participant: id,
  status: z.literal('failed'),
  failure: z.enum(LANE_FAILURES),
});

const IssueSchema = z.strictObject({
  issue_id: id,
  title: text,
  file: z.nullable(str({ min: 1, max: REPO_PATH_MAX_CHARS })),
  line: z.nullable(z.int().check(z.gte(1))),
  verification: z.enum(VERIFICATIONS),
  verification_note: text,
});

export const WeaveInputSchema = z.strictObject({
  lanes: list(z.discriminatedUnion('status', [OkLaneSchema, FailedLaneSchema]), 1, 64),
  issues: list(IssueSchema, 0, WEAVE_MAX_ISSUES),
});

export type WeaveInput = z.output<typeof WeaveInputSchema>;
export type WeaveLane = WeaveInput['lanes'][number];
export type WeaveIssueInput = WeaveInput['issues'][number];
