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

/**
 * After a command appended to a store: its automatic checkpoint, if the pinned policy asks for one
 * and it is due (docs/audit.md "Automatic checkpoints"). Null when nothing was appended (the store
 * module is then not even loaded); else what was written, or the coded error that stopped it.
 */
async function checkpointAfter(opts: OutputOptions): Promise<{ written: { file: string; tree_size: number }[]; error: GovernedError | null } | null> {
  const { takeAppendedHomes } = await import('../store/appended.js');
  const homes = takeAppendedHomes();
  if (homes.length === 0) return null;
  const written: { file: string; tree_size: number }[] = [];
  try {
    const { autoCheckpoint } = await import('../flows/audit/auto-checkpoint.js');
    for (const home of homes) {
      const r = await autoCheckpoint({ home, attestorsDir: (opts as { attestors?: string }).attestors, now: new Date() });
      if (r !== null) written.push(r);
    }
    return { written, error: null };
  } catch (e) {
    return { written, error: isGovernedError(e) ? e : new GovernedError('internal_error', { cause: e }) };
  }
}

/** Run a command action, map every failure to its code, and set the process exit code. */
export async function runAction(opts: OutputOptions, action: () => Promise<CommandResult>): Promise<void> {
  try {
    let result = await action();
    // The command's own entries are committed; a due checkpoint is written now or its failure
    // becomes the command's exit (the entries stay recorded: they are whole without it).
    const cp = await checkpointAfter(opts);
    if (cp !== null && (cp.written.length > 0 || cp.error !== null)) {
      const field = cp.error === null ? { written: cp.written } : { written: cp.written, error: cp.error.toJSON() };
      result = {
        exit: cp.error !== null && result.exit === EXIT.ok ? cp.error.exit : result.exit,
        json: { ...result.json, tlog_checkpoint: field },
        human: result.human + cp.written.map((w) => `checkpoint written  ${w.file} (tree size ${w.tree_size})\n`).join(''),
      };
      if (cp.error !== null) {
        const ids = cp.error.ids.length > 0 ? ` [${cp.error.ids.join(', ')}]` : '';
        process.stderr.write(`governed: error ${cp.error.code}: the command's entries are recorded, but the automatic checkpoint was not written: ${cp.error.message}${ids}\n`);
      }
    }
    writeResult(result, opts);
    process.exitCode = result.exit;
  } catch (e) {
    const cp = await checkpointAfter(opts).catch(() => null);
    if (cp?.error) process.stderr.write(`governed: error ${cp.error.code}: the automatic checkpoint was not written\n`);
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
