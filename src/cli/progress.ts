// Whether and where progress lines go (docs/commands.md#progress-on-stderr): on stderr only, when
// `--progress` is given, or when stderr is a terminal and neither `--json` nor
// GOVERNED_NO_PROGRESS (any non-empty value) is set. stdout is never written: a `--json` object stays
// the only thing on stdout. The words of each line come from src/core/progress.ts alone.
import { Option } from 'commander';
import { progressLine, type ProgressCommand, type ProgressSink } from '../core/progress.js';

export const progressOption = (): Option =>
  new Option('--progress', 'one line per phase on stderr even when stderr is not a terminal (default: only on a terminal, off with --json or GOVERNED_NO_PROGRESS)');

interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

export function progressEnabled(opts: { json?: boolean; progress?: boolean }, stream: ProgressStream = process.stderr, env: NodeJS.ProcessEnv = process.env): boolean {
  if (opts.progress === true) return true;
  return stream.isTTY === true && opts.json !== true && !env.GOVERNED_NO_PROGRESS;
}

/** The sink a flow reports to, or undefined when progress is off (the flow then reports nothing). */
export function progressSink<C extends ProgressCommand>(
  command: C,
  opts: { json?: boolean; progress?: boolean },
  stream: ProgressStream = process.stderr,
  env: NodeJS.ProcessEnv = process.env,
): ProgressSink<C> | undefined {
  if (!progressEnabled(opts, stream, env)) return undefined;
  return (phase, count) => {
    stream.write(progressLine(command, phase, count));
  };
}
