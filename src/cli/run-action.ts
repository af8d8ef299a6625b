// Running a command action (docs/commands.md): map every failure to its code, set the exit code,
// and after a command that appended, write its automatic checkpoint (docs/audit.md "Automatic
// checkpoints"). Apart from ./output.ts so the gate's bundle (which prints through ./output.ts)
// does not carry this module's lazy imports (test/gate-cold-imports.test.ts).
import { GovernedError, isGovernedError, EXIT } from '../core/errors.js';
import { writeError, writeResult, type CommandResult, type OutputOptions } from './output.js';
import type { CheckpointSigner } from '../flows/audit/tlog-checkpoint.js';

export interface CheckpointStep {
  readonly written: { file: string; tree_size: number }[];
  readonly error: GovernedError | null;
}

/**
 * After a command appended to a store: its automatic checkpoint, if the pinned policy asks for one
 * and it is due (docs/audit.md "Automatic checkpoints"). Null when nothing was appended (the store
 * module is then not even loaded); else what was written, or the coded error that stopped it.
 * `signer`: the daemon's warm log attestor (docs/runnerd.md#checkpoints); absent, a one-shot child.
 */
export async function checkpointAfter(opts: OutputOptions, signer?: CheckpointSigner): Promise<CheckpointStep | null> {
  const { takeAppendedHomes } = await import('../store/appended.js');
  const homes = takeAppendedHomes();
  if (homes.length === 0) return null;
  const written: { file: string; tree_size: number }[] = [];
  try {
    const { autoCheckpoint } = await import('../flows/audit/auto-checkpoint.js');
    for (const home of homes) {
      const r = await autoCheckpoint({ home, attestorsDir: (opts as { attestors?: string }).attestors, now: new Date(), signer });
      if (r !== null) written.push(r);
    }
    return { written, error: null };
  } catch (e) {
    return { written, error: isGovernedError(e) ? e : new GovernedError('internal_error', { cause: e }) };
  }
}

/** The command's result with what its checkpoint step did (`tlog_checkpoint`; its error becomes the exit of a success). */
export function withCheckpoint(result: CommandResult, cp: CheckpointStep): CommandResult {
  if (cp.written.length === 0 && cp.error === null) return result;
  const field = cp.error === null ? { written: cp.written } : { written: cp.written, error: cp.error.toJSON() };
  return {
    exit: cp.error !== null && result.exit === EXIT.ok ? cp.error.exit : result.exit,
    json: { ...result.json, tlog_checkpoint: field },
    human: result.human + cp.written.map((w) => `checkpoint written  ${w.file} (tree size ${w.tree_size})\n`).join(''),
  };
}

/** Run a command action, map every failure to its code, and set the process exit code. */
export async function runAction(opts: OutputOptions, action: () => Promise<CommandResult>): Promise<void> {
  try {
    let result = await action();
    // The command's own entries are committed; a due checkpoint is written now or its failure
    // becomes the command's exit (the entries stay recorded: they are whole without it).
    const cp = await checkpointAfter(opts);
    if (cp !== null && (cp.written.length > 0 || cp.error !== null)) {
      result = withCheckpoint(result, cp);
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
