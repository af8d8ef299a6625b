// One way every command reports (docs/commands.md#common-behaviour): `--json` prints exactly one JSON object on stdout,
// also on failure; otherwise a short human summary on stdout and diagnostics on stderr. An error
// prints its stable code, fixed summary and IDs, never a rejected value (docs/threat-model.md#rules-that-hold-everywhere).
import { GovernedError, isGovernedError, EXIT, type ExitCode } from '../core/errors.js';

export interface CommandResult {
  readonly exit: ExitCode;
  /** The machine-readable result (printed with --json). */
  readonly json: Record<string, unknown>;
  /** The human summary (printed without --json). */
  readonly human: string;
}

export interface OutputOptions {
  readonly json?: boolean;
}

const useColor = (): boolean => !process.env.NO_COLOR && process.stderr.isTTY === true;

export function writeResult(result: CommandResult, opts: OutputOptions): void {
  if (opts.json) process.stdout.write(`${JSON.stringify(result.json)}\n`);
  else if (result.human) process.stdout.write(result.human.endsWith('\n') ? result.human : `${result.human}\n`);
}

export function writeError(err: GovernedError, opts: OutputOptions): void {
  const ids = err.ids.length > 0 ? ` [${err.ids.join(', ')}]` : '';
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ ok: false, error: err.toJSON() })}\n`);
  }
  const label = useColor() ? `\u001b[31merror\u001b[0m` : 'error';
  process.stderr.write(`governed: ${label} ${err.code}: ${err.message}${ids}\n`);
}

/** Run a command action, map every failure to its code, and set the process exit code. */
export async function runAction(opts: OutputOptions, action: () => Promise<CommandResult>): Promise<void> {
  try {
    const result = await action();
    writeResult(result, opts);
    process.exitCode = result.exit;
  } catch (e) {
    if (isGovernedError(e)) {
      writeError(e, opts);
      process.exitCode = e.exit;
      return;
    }
    // Unknown failures are internal errors. Their message may contain input text, so it is only
    // shown when the operator asks for it explicitly.
    const internal = new GovernedError('internal_error', { cause: e });
    writeError(internal, opts);
    if (process.env.GOVERNED_DEBUG === '1') process.stderr.write(`${(e as Error)?.stack ?? String(e)}\n`);
    process.exitCode = EXIT.internal;
  }
}
