// The two code lists of docs/commands.md#exit-codes: error codes (stop a command, one exit code each) and reason
// codes (explain REVIEW_ONLY, always exit 3). docs/errors.md is generated from this file
// (scripts/gen-errors-doc.ts); test/errors.test.ts fails when the doc is stale.
//
// Messages never contain a rejected value (docs/threat-model.md#rules-that-hold-everywhere "No secrets in output"): a GovernedError
// carries a fixed summary from this table plus IDs the caller vouches are identifiers.

import type { ErrorDef, ExitCode } from './error-codes/def.js';
import { CodedError } from './coded-error.js';
import { FOUNDATION_ERRORS, FOUNDATION_REASONS } from './error-codes/foundation.js';
import { WORKSPACE_ERRORS, WORKSPACE_REASONS } from './error-codes/workspace.js';
import { CONTRACT_ERRORS, CONTRACT_REASONS } from './error-codes/contract.js';
import { STORE_ERRORS, STORE_REASONS } from './error-codes/store.js';
import { PROTOCOLS_REVIEW_PASS_ERRORS, PROTOCOLS_REVIEW_PASS_REASONS } from './error-codes/protocols-review-pass.js';
import { PROTOCOLS_TWO_PASS_WEAVE_SIMPLE_ERRORS, PROTOCOLS_TWO_PASS_WEAVE_SIMPLE_REASONS } from './error-codes/protocols-two-pass-weave-simple.js';
import { REVIEW_PASS_ERRORS, REVIEW_PASS_REASONS } from './error-codes/review-pass.js';
import { DECISION_ERRORS, DECISION_REASONS } from './error-codes/decision.js';
import { RUNNER_ERRORS, RUNNER_REASONS } from './error-codes/runner.js';
import { SANDBOX_ERRORS, SANDBOX_REASONS } from './error-codes/sandbox.js';
import { CHALLENGE_ERRORS, CHALLENGE_REASONS } from './error-codes/challenge.js';
import { AUTHORITY_ERRORS, AUTHORITY_REASONS } from './error-codes/authority.js';
import { AUDIT_ERRORS, AUDIT_REASONS } from './error-codes/audit.js';
import { EGRESS_ERRORS, EGRESS_REASONS } from './error-codes/egress.js';
import { TLOG_ERRORS, TLOG_REASONS } from './error-codes/tlog.js';
import { CHECKS_ERRORS, CHECKS_REASONS } from './error-codes/checks.js';
import { PRESERVATION_ERRORS, PRESERVATION_REASONS } from './error-codes/preservation.js';
import { RUNNERD_ERRORS, RUNNERD_REASONS } from './error-codes/runnerd.js';
import { SETUP_ERRORS, SETUP_REASONS } from './error-codes/setup.js';
import { VERIFY_ERRORS, VERIFY_REASONS } from './error-codes/verify.js';

export type { ExitCode } from './error-codes/def.js';

export const EXIT = {
  ok: 0,
  internal: 1,
  usage: 2,
  review_only: 3,
  verification: 4,
  stale: 5,
  untrusted: 6,
  no_evidence: 7,
  state: 8,
  not_clean: 9,
} as const;

/** Precedence when several codes apply (docs/commands.md#exit-codes): 1 > 4 > 6 > 5 > 8 > 7 > 2 > 3. */
export const EXIT_PRECEDENCE: readonly ExitCode[] = [1, 4, 6, 5, 8, 7, 2, 3];


// Each domain owns one table under ./error-codes/ (so parallel work never edits one shared
// object, each named after the source folder it serves); a code may appear in exactly one table
// (test/error-tables-disjoint.test.ts checks it: spread objects would let a later table win silently).
export const ERROR_CODES = {
  ...FOUNDATION_ERRORS,
  ...WORKSPACE_ERRORS,
  ...CONTRACT_ERRORS,
  ...STORE_ERRORS,
  ...PROTOCOLS_REVIEW_PASS_ERRORS,
  ...PROTOCOLS_TWO_PASS_WEAVE_SIMPLE_ERRORS,
  ...REVIEW_PASS_ERRORS,
  ...DECISION_ERRORS,
  ...RUNNER_ERRORS,
  ...SANDBOX_ERRORS,
  ...CHALLENGE_ERRORS,
  ...AUTHORITY_ERRORS,
  ...AUDIT_ERRORS,
  ...EGRESS_ERRORS,
  ...TLOG_ERRORS,
  ...CHECKS_ERRORS,
  ...PRESERVATION_ERRORS,
  ...RUNNERD_ERRORS,
  ...SETUP_ERRORS,
  ...VERIFY_ERRORS,
} as const satisfies Record<string, ErrorDef>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const REASON_CODES = {
  ...FOUNDATION_REASONS,
  ...WORKSPACE_REASONS,
  ...CONTRACT_REASONS,
  ...STORE_REASONS,
  ...PROTOCOLS_REVIEW_PASS_REASONS,
  ...PROTOCOLS_TWO_PASS_WEAVE_SIMPLE_REASONS,
  ...REVIEW_PASS_REASONS,
  ...DECISION_REASONS,
  ...RUNNER_REASONS,
  ...SANDBOX_REASONS,
  ...CHALLENGE_REASONS,
  ...AUTHORITY_REASONS,
  ...AUDIT_REASONS,
  ...EGRESS_REASONS,
  ...TLOG_REASONS,
  ...CHECKS_REASONS,
  ...PRESERVATION_REASONS,
  ...RUNNERD_REASONS,
  ...SETUP_REASONS,
  ...VERIFY_REASONS,
} as const satisfies Record<string, string>;

export type ReasonCode = keyof typeof REASON_CODES;

export function exitCodeOf(code: ErrorCode): ExitCode {
  return ERROR_CODES[code].exit;
}

export interface GovernedErrorOptions {
  /** Identifiers only (unit/challenge/receipt/directive IDs, key ids, field paths): never values. */
  readonly ids?: readonly string[];
  readonly cause?: unknown;
}

/** The one error class of governed. `code` is from ERROR_CODES; summary and `exit` follow from it. */
export class GovernedError extends CodedError {
  constructor(code: ErrorCode, options: GovernedErrorOptions = {}) {
    super(code, ERROR_CODES[code].summary, ERROR_CODES[code].exit, options);
  }
}

/** Throw a coded error; typed `never` so control-flow narrowing works at call sites. */
export function fail(code: ErrorCode, ids?: readonly string[], cause?: unknown): never {
  throw new GovernedError(code, { ids, cause });
}

export function isGovernedError(e: unknown): e is GovernedError {
  return e instanceof GovernedError;
}

/** Pick the exit code that wins among several failures (docs/commands.md#exit-codes precedence). */
export function highestPrecedence(exits: readonly ExitCode[]): ExitCode {
  for (const candidate of EXIT_PRECEDENCE) if (exits.includes(candidate)) return candidate;
  return EXIT.ok;
}

/** The error that wins among several (docs/commands.md#exit-codes precedence), the first one on a tie; null for none. */
export function worstError(errors: readonly GovernedError[]): GovernedError | null {
  for (const exit of EXIT_PRECEDENCE) {
    const e = errors.find((x) => x.exit === exit);
    if (e !== undefined) return e;
  }
  return errors[0] ?? null;
}
