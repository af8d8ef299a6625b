// The error module as the PINNED programs see it (attestors; docs/formats.md#attestors): scripts/pinned-build.mjs
// resolves every import of ./errors.ts to this file when it bundles a pinned program. Same names and
// the same `code` on every error, without the code tables: a pinned program never prints a
// GovernedError's summary or exit (the attestor answers with its own refusal codes, and "failed" for
// anything else), so the tables would only make its sha256 — which every policy allowlists — change
// whenever any unrelated error code is added anywhere in governed. Here `exit` is always 1 (internal)
// and the message is the code itself. test/errors-pinned.test.ts checks the API matches errors.ts and
// that no table text reaches the attestor bundle.
import { CodedError } from './coded-error.js';
import type { ErrorCode, GovernedErrorOptions } from './errors.js';

export type { ErrorCode, ExitCode, GovernedErrorOptions } from './errors.js';

export class GovernedError extends CodedError {
  constructor(code: ErrorCode, options: GovernedErrorOptions = {}) {
    super(code, code, 1, options);
  }
}

export function fail(code: ErrorCode, ids?: readonly string[], cause?: unknown): never {
  throw new GovernedError(code, { ids, cause });
}

export function isGovernedError(e: unknown): e is GovernedError {
  return e instanceof GovernedError;
}
