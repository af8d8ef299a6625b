// Governed mode of `governed review-pass` (`--unit U`, docs/review-pass.md#review-protocols): the argument rules, enforced before
// anything runs, and the seam where every reviewer call becomes a `governed review-run`.
//   - Only `review-pass` and `weave`: their reviewers are independent and adjudicated afterwards.
//     `two-pass` and `simple` need a verifier/rebuttal that sees another reviewer's findings, which
//     docs/bundle.md#views forbids ("No role ever sees another role's verdict of the same stage").
//   - Reviewers, slots and convergence come from the policy only: a writer-owned review-pass.yaml
//     could lower them, so `--config` is refused (and the repository's own file is never read).
//   - `--light` is refused (docs/review-pass-protocol.md#light-mode; the engine's own check, reused).
//   - The bundle is the scope floor: `--files` may add focus, never remove scope. The files are
//     recorded as focus only; nothing the caller passes can narrow what the bundle binds.
// The runner itself is governed-run.ts: every reviewer call a real `review-challenge` + `review-run`
// (docs/runner.md#the-run-step-by-step) of the policy's slot reviewer. Without a writer session no challenge can be claimed, so
// governed mode stops with `orchestrator_governed_runner_unavailable` (exit 8) after the argument
// checks: it never fakes a governed run and never falls back to non-governed reviewers.
import { fail } from '../../core/errors.js';
import { normalizeConfig, ROLES, isRoleStage, type Stage } from '../../protocols/review-pass/index.js';
import type { Protocol } from './flow-types.js';
import { isRepoRelative } from './repo-files.js';
import { UNIT_ID_RE } from '../../core/ids.js';

export const UNIT_ID = UNIT_ID_RE;

export interface GovernedRequest {
  readonly unit: string;
  readonly protocol: Protocol;
  readonly stage: Stage;
  readonly light: boolean;
  readonly config: string | undefined;
  readonly files: readonly string[];
}

export interface GovernedPlan {
  readonly unit: string;
  readonly protocol: 'review-pass' | 'weave';
  readonly stage: Stage;
  /** Extra focus for reviewers; never a narrowing of the bundle. */
  readonly focus_files: readonly string[];
}

/** Check a governed request; returns the plan a governed runner would execute. */
export function checkGovernedRequest(req: GovernedRequest): GovernedPlan {
  if (!UNIT_ID.test(req.unit)) fail('orchestrator_unit_invalid', ['unit']);
  if (req.protocol === 'two-pass' || req.protocol === 'simple') fail('orchestrator_protocol_not_governed', [req.protocol]);
  if (req.config !== undefined) fail('orchestrator_governed_config_refused', ['config']);
  // The engine's own governed-mode rules (light mode refused, no arbiter, no REQ-ID narrowing).
  // The reviewer names here are placeholders for the policy's slots, which only the store knows.
  normalizeConfig({ stage: req.stage, mode: 'governed', light: req.light, reviewers: isRoleStage(req.stage) ? [...ROLES] : ['policy'] });
  req.files.forEach((f, i) => {
    if (!isRepoRelative(f)) fail('orchestrator_files_invalid', [`files[${i}]`]);
  });
  return { unit: req.unit, protocol: req.protocol, stage: req.stage, focus_files: [...new Set(req.files)] };
}

/** Governed mode needs a writer session to claim challenges (docs/bundle.md#the-review-bundle); none → nothing runs. */
export function requireWriterSession(plan: GovernedPlan, writerSession: string | undefined): string {
  if (writerSession === undefined || writerSession.length === 0) return fail('orchestrator_governed_runner_unavailable', [plan.unit]);
  return writerSession;
}
