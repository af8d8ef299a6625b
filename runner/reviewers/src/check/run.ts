// The part every check adapter shares (docs/reviewers.md#check-reviewers): read the bundle, run
// the policy's command inside the sandbox on the sealed snapshot, let the adapter's mapper turn its
// exit status and stdout into findings, print one review output (docs/reviewers.md#reviewer-output) — or exit with a fixed
// status and no stdout when the check did not reach a verdict. Nothing the command printed ever
// leaves this process: stdout is parsed and dropped, stderr is not even read.
//
// Exit status (the runner maps each to its code, src/flows/run/check-run.ts):
//   0   a review output was printed (CLEAN or DIRTY)
//   64  GOVERNED_BUNDLE is not set          66  the bundle cannot be read
//   65  the bundle is malformed             70  internal error
//   80  the command could not be started, crashed, or exited with a status the adapter does not map
//   81  the command exceeded the adapter's time budget (killed)
//   82  the command's output is not what the adapter parses, or contradicts its exit status
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { canonicalJson } from '../coverage/canonical.js';
import { CHECK_COMMAND_MAX_STDOUT } from '../../../../src/core/limits.js';
import { finalizeFindings, type Finding } from '../coverage/findings.js';
import { Malformed } from '../coverage/shape.js';
import { readCheckBundle, type CheckInputs } from './bundle.js';
import { RefMap } from './refs.js';

export const OUTPUT_SCHEMA_ID = 'governed.review-output/v1';
export const EXIT = { ok: 0, usage: 64, malformed: 65, unreadable: 66, internal: 70, failed: 80, timeout: 81, unparsable: 82 } as const;

/** A check that reached no verdict: the adapter exits with this status, printing nothing. */
export class NoVerdict extends Error {
  constructor(readonly status: 80 | 81 | 82) {
    super('no_verdict');
  }
}

export interface CommandResult {
  /** Exit status, or null when a signal ended the command. */
  readonly status: number | null;
  readonly stdout: string;
}

/** What an adapter supplies: its name (for its one fixed stderr line) and its mapper. */
export interface Adapter {
  readonly name: string;
  /** Failures as findings; throw NoVerdict when the result is not a verdict. Must never be empty for a failing run. */
  map(result: CommandResult, inputs: CheckInputs, refs: RefMap): Finding[];
}

/** The most the command may print on stdout before the run is unparsable. */
export const MAX_COMMAND_STDOUT = CHECK_COMMAND_MAX_STDOUT;

function runCommand(inputs: CheckInputs): CommandResult {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'GOVERNED_BUNDLE') env[k] = v;
  env.CI = '1';
  env.NO_COLOR = '1';
  const [program, ...args] = inputs.command as [string, ...string[]];
  const r = spawnSync(program, args, {
    cwd: inputs.snapshot,
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
    maxBuffer: MAX_COMMAND_STDOUT,
    timeout: inputs.timeout_ms,
    killSignal: 'SIGKILL',
  });
  const err = r.error as (Error & { code?: string }) | undefined;
  if (err !== undefined) {
    if (err.code === 'ETIMEDOUT') throw new NoVerdict(EXIT.timeout);
    if (err.code === 'ENOBUFS') throw new NoVerdict(EXIT.unparsable);
    throw new NoVerdict(EXIT.failed);
  }
  if (r.signal !== null) throw new NoVerdict(EXIT.failed);
  let stdout: string;
  try {
    stdout = new TextDecoder('utf-8', { fatal: false }).decode(r.stdout);
  } catch {
    throw new NoVerdict(EXIT.unparsable);
  }
  return { status: r.status, stdout };
}

/** The whole adapter program; returns its exit status. */
export function main(adapter: Adapter): number {
  const say = (what: string): void => void process.stderr.write(`${adapter.name}: ${what}\n`);
  const path = process.env.GOVERNED_BUNDLE;
  if (path === undefined || path === '') {
    say('GOVERNED_BUNDLE is not set');
    return EXIT.usage;
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    say('bundle unreadable');
    return EXIT.unreadable;
  }
  try {
    const b = readCheckBundle(bytes);
    const refs = new RefMap(b.bundle, b.visible);
    const result = runCommand(b.check);
    const findings = finalizeFindings(adapter.map(result, b.check, refs), b.visible);
    process.stdout.write(canonicalJson({ coverage: b.bundle.coverage, findings, schema: OUTPUT_SCHEMA_ID, verdict: findings.length === 0 ? 'CLEAN' : 'DIRTY' }));
    return EXIT.ok;
  } catch (e) {
    if (e instanceof Malformed) {
      say('bundle malformed');
      return EXIT.malformed;
    }
    if (e instanceof NoVerdict) {
      say(e.status === EXIT.timeout ? 'command timed out' : e.status === EXIT.failed ? 'command failed' : 'command output unparsable');
      return e.status;
    }
    say('internal error');
    return EXIT.internal;
  }
}

/** A finding of a check: class `correctness` always (a check never vetoes, docs/reviewers.md#reviewer-output). */
export function checkFinding(code: 'correctness' | 'other', severity: 'HIGH' | 'MEDIUM', refs: readonly string[]): Finding {
  if (refs.length === 0) throw new NoVerdict(EXIT.unparsable); // a view with nothing to refer to cannot carry a failure
  return { code, class: 'correctness', severity, refs: [...new Set(refs)].sort() };
}
