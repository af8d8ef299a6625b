// Progress lines for long work (docs/commands.md#progress-on-stderr): one line on stderr as each
// phase of a long command starts. Every word of a line comes from this one table; the only
// variable part is a count (a non-negative safe integer). So a progress line can never carry a
// path, a rejected value, reviewer or tool output, or any content: the sink's type admits nothing
// else, and progressLine drops a count that is not an integer. Pure: the CLI decides whether and
// where lines are written (src/cli/progress.ts).

/** Per command, its phases in the order they run, each with the fixed words of its line. */
export const PROGRESS_PHASES = {
  'review-run': {
    load: 'loading and checking the challenge',
    claim: 'claiming the challenge',
    pin: 'pinning the reviewer and the attestors',
    seal: 'sealing the content the check runs on',
    review: 'running the reviewer in the sandbox',
    drift: 're-hashing everything the challenge bound',
    sign: 'signing the receipt (reviewer and runner attestors)',
    commit: 'recording the run',
  },
  'review-challenge': {
    check: 'checking the unit, the writer, the pins and the slot',
    scope: 're-checking the bound request contract and its sources',
    hash: 'hashing the workspace and the baseline',
    bundle: 'building the review bundle, workspace files:',
    record: 'recording the challenge',
  },
  'review-pass': {
    scope: 'files to review:',
    round: 'round',
    reviewer: 'reviewer run',
    results: 'writing the results',
  },
  'audit-verify': {
    open: 'opening the store read-only',
    replay: 'checking the chain and replaying the log, entries:',
    tree: 're-deriving the transparency tree',
    records: 'checking receipts, challenges and authority records',
    checkpoints: 'checking the signed checkpoints',
  },
} as const;

export type ProgressCommand = keyof typeof PROGRESS_PHASES;
export type ProgressPhase<C extends ProgressCommand> = keyof (typeof PROGRESS_PHASES)[C] & string;
/** Where a flow reports a phase; `count` is e.g. the log entries to replay or the round number. */
export type ProgressSink<C extends ProgressCommand> = (phase: ProgressPhase<C>, count?: number) => void;

/** The command name as the user types it. */
const COMMAND_WORDS: Record<ProgressCommand, string> = {
  'review-run': 'review-run',
  'review-challenge': 'review-challenge',
  'review-pass': 'review-pass',
  'audit-verify': 'audit verify',
};

/** Whether `phase` is one of `command`'s phases (a phase id from outside, e.g. a daemon's frame). */
export function isProgressPhase<C extends ProgressCommand>(command: C, phase: string): phase is ProgressPhase<C> {
  return Object.prototype.hasOwnProperty.call(PROGRESS_PHASES[command], phase);
}

/** `governed review-run [5/8] running the reviewer in the sandbox` (`(N)` appended when a count is given). */
export function progressLine<C extends ProgressCommand>(command: C, phase: ProgressPhase<C>, count?: number): string {
  const phases = PROGRESS_PHASES[command] as Record<string, string>;
  const ids = Object.keys(phases);
  const at = ids.indexOf(phase);
  if (at < 0) throw new TypeError('unknown progress phase');
  const n = count !== undefined && Number.isSafeInteger(count) && count >= 0 ? ` ${count}` : '';
  return `governed ${COMMAND_WORDS[command]} [${at + 1}/${ids.length}] ${phases[phase] as string}${n}\n`;
}
