// Stage profiles and the review configuration (docs/review-pass-protocol.md#stages-and-their-roles, docs/review-pass-protocol.md#convergence-thresholds, docs/review-pass-protocol.md#budget-guard, docs/review-pass-protocol.md#default-profile, docs/review-pass-protocol.md#light-mode).
import * as z from 'zod/mini';
import { int, list, str } from '../../core/schema-primitives.js';
import { fail } from '../../core/errors.js';
import { NAME_RE } from '../../core/ids.js';

import { STAGES } from '../../core/review-vocabulary.js'; export { STAGES };
import { REVIEW_PROTOCOL_MAX_ITEMS } from '../../core/limits.js';
export type Stage = (typeof STAGES)[number];

/** docs/review-pass-protocol.md#separated-roles / docs/review-pass-protocol.md#default-profile: the four separated roles of planning and integration. */
export const ROLES = ['source_fidelity', 'baseline_preservation', 'implementation_test', 'authority_release'] as const;
export type Role = (typeof ROLES)[number];

export function isRoleStage(stage: Stage): boolean {
  return stage === 'planning' || stage === 'integration';
}

/** docs/review-pass-protocol.md#default-profile default reviewers and arbiters of the standard stages. */
export const DEFAULT_REVIEWERS: Readonly<Record<'development' | 'test', readonly string[]>> = {
  development: ['gemini', 'opencode', 'codex'],
  test: ['gemini', 'opencode'],
};
export const DEFAULT_ARBITER: Readonly<Record<Stage, string | null>> = {
  planning: null,
  development: 'claude',
  test: null,
  integration: null,
};

/** docs/review-pass-protocol.md#default-profile lenses (with / without REQ-IDs). */
export const LENSES: Readonly<Record<Stage, { readonly req: readonly string[]; readonly noReq: readonly string[] }>> = {
  planning: {
    req: ['source_fidelity', 'design_coherence', 'feasibility', 'preservation_setup'],
    noReq: ['source_fidelity', 'design_coherence', 'feasibility', 'preservation_setup'],
  },
  development: {
    req: ['correctness', 'completeness', 'consistency', 'pattern_compliance', 'req_to_code'],
    noReq: ['correctness', 'completeness', 'consistency', 'pattern_compliance'],
  },
  test: {
    req: ['test_validity', 'coverage', 'assertion_quality', 'req_to_test'],
    noReq: ['test_validity', 'coverage', 'assertion_quality'],
  },
  integration: {
    req: ['source_to_release', 'cross_stage_consistency', 'baseline_preservation', 'authority_release'],
    noReq: ['source_to_release', 'cross_stage_consistency', 'baseline_preservation', 'authority_release'],
  },
};

/** docs/review-pass-protocol.md#req-id-coverage lenses_no_req without REQ-IDs; docs/review-pass-protocol.md#light-mode light mode sends the first lens only. */
export function resolveLenses(stage: Stage, hasReqIds: boolean, light: boolean): string[] {
  const all = hasReqIds ? LENSES[stage].req : LENSES[stage].noReq;
  return light ? all.slice(0, 1) : [...all];
}

/** docs/review-pass-protocol.md#convergence-thresholds: every standard stage needs 2 clean rounds; --light needs 1 (where allowed). */
export const STANDARD_CONVERGENCE = 2;
export const LIGHT_CONVERGENCE = 1;

/** docs/review-pass-protocol.md#budget-guard budget guard; docs/review-pass-protocol.md#light-mode light max rounds. */
export const DEFAULT_MAX_ROUNDS = 8;
export const LIGHT_MAX_ROUNDS = 4;
export const DEFAULT_MAX_TOTAL_TIME_MS = 30 * 60 * 1000;

/** docs/review-pass-protocol.md#budget-guard / docs/review-pass-protocol.md#timeouts-and-retries per-call timeout in seconds, for the orchestrator. */
export const PER_CALL_TIMEOUT_S: Readonly<Record<Stage, number>> = {
  planning: 60,
  development: 120,
  test: 60,
  integration: 120,
};

const NAME = str({ re: NAME_RE });
const REQ = str({ re: /^REQ-\d+$/ });

export const ReviewPassConfigSchema = z.strictObject({
  stage: z.enum(STAGES),
  mode: z.enum(['governed', 'non_governed']),
  light: z.optional(z.boolean()),
  reviewers: z.optional(list(NAME, 1, 16)),
  arbiter: z.optional(z.nullable(NAME)),
  convergence: z.optional(int(1, 16)),
  budget: z.optional(
    z.strictObject({
      max_rounds: z.optional(int(1, 64)),
      max_total_time_ms: z.optional(int(1, 24 * 60 * 60 * 1000)),
    }),
  ),
  req_ids: z.optional(list(REQ, 0, REVIEW_PROTOCOL_MAX_ITEMS)),
  deferred_req_ids: z.optional(list(REQ, 0, REVIEW_PROTOCOL_MAX_ITEMS)),
  /**
   * Governed mode: the controls the pinned policy requires that governed's registry does not mark
   * implemented (`pendingControls`, src/core/decision/controls.ts) — exactly the decision's
   * `control_pending:<name>` reasons. Absent (non-governed: no policy), a role stage reports the
   * seed's pending cross-role comparison.
   */
  pending_controls: z.optional(list(NAME, 0, 16)),
  /** Product-preservation preflight inputs (planning/integration): present, immutable and valid. */
  preflight: z.optional(
    z.strictObject({
      source_artifacts: z.boolean(),
      baseline_ref: z.boolean(),
      preservation_contract: z.boolean(),
      incident_history: z.boolean(),
    }),
  ),
});
export type ReviewPassConfigInput = z.input<typeof ReviewPassConfigSchema>;

export interface ReviewPassConfig {
  readonly stage: Stage;
  readonly mode: 'governed' | 'non_governed';
  readonly light: boolean;
  /** The review slots: the four roles (planning/integration) or the standard reviewers. */
  readonly slots: readonly string[];
  readonly role_stage: boolean;
  readonly arbiter: string | null;
  readonly convergence: number;
  readonly max_rounds: number;
  readonly max_total_time_ms: number;
  readonly req_ids: readonly string[];
  readonly deferred_req_ids: readonly string[];
  readonly lenses: readonly string[];
  /** Product-preservation preflight satisfied (always true for development/test). */
  readonly preflight_ok: boolean;
  /** The policy's pending required controls (governed mode), or null when no policy governs. */
  readonly pending_controls: readonly string[] | null;
  readonly warnings: readonly string[];
}

/**
 * Validate and normalise a configuration. Refusals:
 * - light mode in planning/integration (docs/review-pass-protocol.md#light-mode "never planning/integration") → review_pass_light_forbidden_stage
 * - light mode in governed mode (docs/review-pass-protocol.md#light-mode) → review_pass_light_forbidden_governed
 * - convergence below the floor (docs/review-pass-protocol.md#convergence-thresholds: 2 clean; 1 only in light) → review_pass_convergence_below_floor
 * - a role stage whose reviewers are not exactly the four roles, duplicates, an arbiter in governed
 *   mode (docs/review-pass.md#review-protocols: governed adjudicates independent reviewers only), an empty pool → review_pass_config_invalid
 */
export function normalizeConfig(input: unknown): ReviewPassConfig {
  const parsed = ReviewPassConfigSchema.safeParse(input);
  if (!parsed.success) fail('review_pass_config_invalid', parsed.error.issues.map((i) => i.path.join('.') || '$'));
  const c = parsed.data;
  const light = c.light ?? false;
  const roleStage = isRoleStage(c.stage);
  if (light && roleStage) fail('review_pass_light_forbidden_stage', [c.stage]);
  if (light && c.mode === 'governed') fail('review_pass_light_forbidden_governed', [c.stage]);

  const warnings: string[] = [];
  let slots: string[];
  if (roleStage) {
    // docs/review-pass-protocol.md#separated-roles: roles are not optional and not provider names; slots are exactly the four roles.
    const given = c.reviewers ?? [...ROLES];
    const sorted = [...given].sort();
    if (sorted.length !== ROLES.length || sorted.some((r, i) => r !== [...ROLES].sort()[i])) {
      fail('review_pass_config_invalid', ['reviewers']);
    }
    slots = [...ROLES];
  } else {
    slots = [...(c.reviewers ?? DEFAULT_REVIEWERS[c.stage as 'development' | 'test'])];
    if (new Set(slots).size !== slots.length) fail('review_pass_config_invalid', ['reviewers']);
  }

  let arbiter = c.arbiter === undefined ? (c.mode === 'governed' ? null : DEFAULT_ARBITER[c.stage]) : c.arbiter;
  if (c.mode === 'governed' && arbiter !== null) fail('review_pass_config_invalid', ['arbiter']);
  // Governed mode: the bundle is the scope floor (docs/review-pass.md#review-protocols); REQ-ID focus lists are not an input there.
  if (c.mode === 'governed' && ((c.req_ids?.length ?? 0) > 0 || (c.deferred_req_ids?.length ?? 0) > 0)) {
    fail('review_pass_config_invalid', ['req_ids']);
  }
  if (arbiter !== null && slots.includes(arbiter)) {
    // docs/review-pass-protocol.md#the-arbiter-is-outside-the-pool / docs/review-pass-protocol.md#the-round-loop step 2: the arbiter must not be in the reviewer pool; auto-resolve by removing it.
    if (roleStage) arbiter = null;
    else slots = slots.filter((s) => s !== arbiter);
    warnings.push('arbiter_removed_from_reviewer_pool');
  }
  if (slots.length === 0) fail('review_pass_config_invalid', ['reviewers']);

  const floor = light ? LIGHT_CONVERGENCE : STANDARD_CONVERGENCE;
  const convergence = c.convergence ?? floor;
  if (convergence < floor) fail('review_pass_convergence_below_floor', [c.stage]);

  const maxRoundsDefault = light ? LIGHT_MAX_ROUNDS : DEFAULT_MAX_ROUNDS;
  const reqIds = [...new Set(c.req_ids ?? [])].sort();
  const deferred = [...new Set(c.deferred_req_ids ?? [])].sort();
  const pf = c.preflight;
  const preflightOk = roleStage
    ? pf !== undefined && pf.source_artifacts && pf.baseline_ref && pf.preservation_contract && pf.incident_history
    : true;
  return {
    stage: c.stage,
    mode: c.mode,
    light,
    slots,
    role_stage: roleStage,
    arbiter,
    convergence,
    max_rounds: Math.min(c.budget?.max_rounds ?? maxRoundsDefault, maxRoundsDefault),
    max_total_time_ms: Math.min(c.budget?.max_total_time_ms ?? DEFAULT_MAX_TOTAL_TIME_MS, DEFAULT_MAX_TOTAL_TIME_MS),
    req_ids: reqIds,
    deferred_req_ids: deferred,
    lenses: resolveLenses(c.stage, reqIds.length > 0, light),
    preflight_ok: preflightOk,
    pending_controls: c.pending_controls === undefined ? null : [...new Set(c.pending_controls)].sort(),
    warnings,
  };
}
