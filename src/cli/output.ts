// One way every command reports (docs/commands.md#common-behaviour): `--json` prints exactly one JSON object on stdout,
// also on failure; otherwise a short human summary on stdout and diagnostics on stderr. An error
// prints its stable code, fixed summary and IDs, never a rejected value (docs/threat-model.md#rules-that-hold-everywhere).
import { GovernedError, type ExitCode } from '../core/errors.js';
import type { CommandErrorJson } from '../core/command-output.js';
import { withEnvelope } from '../core/json-style.js';

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
  // Every object carries schema_version and exit (docs/commands.md#the-json-style).
  if (opts.json) process.stdout.write(`${JSON.stringify(withEnvelope(result.json, result.exit))}\n`);
  else if (result.human) process.stdout.write(result.human.endsWith('\n') ? result.human : `${result.human}\n`);
}

export function writeError(err: GovernedError, opts: OutputOptions): void {
  const ids = err.ids.length > 0 ? ` [${err.ids.join(', ')}]` : '';
  if (opts.json) {
    const body: CommandErrorJson = { ok: false, error: { ...err.toJSON(), ids: [...err.ids] } };
    process.stdout.write(`${JSON.stringify(withEnvelope(body, err.exit))}\n`);
  }
  const label = useColor() ? `\u001b[31merror\u001b[0m` : 'error';
  process.stderr.write(`governed: ${label} ${err.code}: ${err.message}${ids}\n`);
}

