// The body of governed's one error class, shared by the full module (./errors.ts: summary and exit
// from the code tables) and the pinned programs' module (./errors-pinned.ts: no tables), so the two
// `GovernedError`s differ only in where the summary and exit come from. Pure.
import type { ErrorCode, ExitCode, GovernedErrorOptions } from './errors.js';

export abstract class CodedError extends Error {
  readonly code: ErrorCode;
  readonly exit: ExitCode;
  readonly ids: readonly string[];

  protected constructor(code: ErrorCode, summary: string, exit: ExitCode, options: GovernedErrorOptions) {
    super(summary, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GovernedError';
    this.code = code;
    this.exit = exit;
    this.ids = options.ids ?? [];
  }

  toJSON(): { code: ErrorCode; exit: ExitCode; message: string; ids: readonly string[] } {
    return { code: this.code, exit: this.exit, message: this.message, ids: this.ids };
  }
}
