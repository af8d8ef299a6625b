// Writing a review-pass run's results (docs/review-pass.md#review-protocols "a JSON result and a Markdown report"):
//   result.json      the protocol's JSON result in its seed shape (or the incomplete-result shape);
//   report.md        the protocol's Markdown report, then an "Orchestrator" section: how reviewers ran
//                    (sandbox, network, timeouts, retries) and that auto-fix is out of scope;
//   executions.json  one record per reviewer call (status, attempts, exit code, duration) — never
//                    stdout or stderr.
// The directory is created 0700 and the files 0600. Results are never overwritten: when any of the
// three names exists the run is refused before a reviewer starts; the files are written with
// exclusive create, and a failure part-way removes what this run wrote (nothing half-recorded).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { canonicalJson } from '../../core/canonical.js';
import { fail } from '../../core/errors.js';
import type { ProtocolOutcome } from './flow-types.js';
import { EXIT_CLASS_TEXT, type ReviewerExecution } from './run-reviewer.js';

export const RESULT_FILES = { result: 'result.json', report: 'report.md', executions: 'executions.json' } as const;
export const EXECUTIONS_SCHEMA = 'governed.review-pass-executions/v1';

/** Create (or accept) the output directory; refuse one that already holds a result. */
export function prepareOutDir(out: string | undefined): { dir: string; created: boolean } {
  if (out === undefined) return { dir: mkdtempSync(join(realpathSync(tmpdir()), 'governed-review-pass-')), created: true };
  const dir = resolve(out);
  const created = !existsSync(dir);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    fail('orchestrator_out_invalid', ['out']);
  }
  if (!statSync(dir).isDirectory()) fail('orchestrator_out_invalid', ['out']);
  for (const name of Object.values(RESULT_FILES)) if (existsSync(join(dir, name))) fail('orchestrator_out_invalid', [name]);
  return { dir, created };
}

/** Remove an output directory this run created, when the run stopped before writing a result. */
export function discardOutDir(out: { dir: string; created: boolean }): void {
  if (!out.created) return;
  try {
    if (readdirSync(out.dir).length === 0) rmdirSync(out.dir);
  } catch {
    // Best effort: an empty directory left behind holds nothing.
  }
}

function statusCell(x: ReviewerExecution): string {
  if (x.status === 'ok') return 'ok';
  return x.failure === null ? x.status : `${x.status} (${x.failure})`;
}

export interface RunDescription {
  readonly stage: string;
  readonly mode: 'non-governed';
  readonly config_source: string | null;
  readonly files: number;
  /** Whether `--tool-log` kept the reviewers' stderr (its path is never written into the results). */
  readonly tool_log?: boolean;
}

export function orchestratorSection(o: ProtocolOutcome, d: RunDescription): string {
  const out = [
    '',
    '## Orchestrator',
    '',
    `- Protocol: ${o.protocol}; stage: ${d.stage}; mode: ${d.mode}; result: ${o.result}${o.reasons.length > 0 ? ` (${o.reasons.join(', ')})` : ''}`,
    `- Configuration: ${d.config_source === null ? 'built-in defaults (docs/review-pass-protocol.md#default-profile)' : basename(d.config_source)}`,
    `- Files in scope: ${d.files}`,
    '- Reviewers ran as child processes in a read-only bubblewrap view of the repository (mounted at /repo), with fresh /proc, /dev and /tmp, no capabilities, and no network unless the reviewer\'s entry says `network: true` (an egress path, marked below).',
    ...(o.executions.some((x) => x.network === 'broker')
      ? ['- Entries with `network: broker` (marked below) had no network but their own loopback: an in-sandbox relay took their TCP connections to the egress broker, which forwards only allowed requests to one model endpoint with the caller\'s key (docs/egress.md).']
      : []),
    '- Auto-fix is out of scope: the orchestrator never edits code. Findings are for a human or writer to act on; a re-review after a change is a new run.',
  ];
  if (o.executions.some((x) => x.exit_class !== 'exited_zero' || x.status !== 'ok')) {
    out.push(
      '- A reviewer call that did not exit cleanly with usable output has no usable review (health 0, "consider different model" above): its exit status is in the table below. ' +
        (d.tool_log
          ? 'Each attempt\'s stderr is in the --tool-log directory (`<execution id>-<attempt>.stderr`, 0600), never in these results.'
          : 'Run again with `--tool-log DIR` to keep each attempt\'s stderr in private 0600 files for you (never in these results).'),
    );
  }
  out.push(
    '',
    '| Round | Purpose | Reviewer | Status | Attempts | Exit code | Exit status | Network |',
    '|-------|---------|----------|--------|----------|-----------|-------------|---------|',
  );
  for (const x of o.executions) {
    out.push(
      `| ${x.round} | ${x.purpose} | ${x.reviewer} | ${statusCell(x)} | ${x.attempts} | ${x.exit_code ?? '—'} | ${EXIT_CLASS_TEXT[x.exit_class]} | ${x.network === 'broker' ? 'broker (one endpoint)' : x.network ? 'yes (egress)' : 'no'} |`,
    );
  }
  if (o.executions.length === 0) out.push('| — | — | — | no reviewer ran | — | — | — | — |');
  return `${out.join('\n')}\n`;
}

export function executionsJson(o: ProtocolOutcome, d: RunDescription): string {
  return `${canonicalJson({
    schema: EXECUTIONS_SCHEMA,
    protocol: o.protocol,
    stage: d.stage,
    mode: d.mode,
    config_source: d.config_source === null ? null : basename(d.config_source),
    executions: o.executions.map((x) => ({
      round: x.round,
      purpose: x.purpose,
      reviewer: x.reviewer,
      tool: x.tool,
      execution_id: x.execution_id,
      status: x.status,
      failure: x.failure,
      attempts: x.attempts,
      exit_code: x.exit_code,
      exit_class: x.exit_class,
      duration_ms: x.duration_ms,
      network: x.network,
      // `network: broker`: the call's egress transcript head and totals (null when the broker refused).
      ...(x.egress_transcript === undefined ? {} : { egress_transcript: x.egress_transcript }),
    })),
  })}\n`;
}

/** Write the three files; on any failure remove what was written and refuse. */
export function writeResults(dir: string, o: ProtocolOutcome, d: RunDescription): { result: string; report: string; executions: string } {
  const paths = { result: join(dir, RESULT_FILES.result), report: join(dir, RESULT_FILES.report), executions: join(dir, RESULT_FILES.executions) };
  const contents: Array<[string, string]> = [
    [paths.result, o.result_json],
    [paths.report, `${o.report_md.replace(/\n+$/, '')}\n${orchestratorSection(o, d)}`],
    [paths.executions, executionsJson(o, d)],
  ];
  writeAllOrNothing(contents);
  return paths;
}

/** Create every file (exclusive, 0600) or none: on any failure remove what was written and refuse. */
export function writeAllOrNothing(contents: ReadonlyArray<readonly [string, string]>): void {
  const written: string[] = [];
  try {
    for (const [p, text] of contents) {
      writeFileSync(p, text, { flag: 'wx', mode: 0o600 });
      written.push(p);
    }
  } catch {
    for (const p of written) rmSync(p, { force: true });
    fail('orchestrator_out_invalid', ['write']);
  }
}
