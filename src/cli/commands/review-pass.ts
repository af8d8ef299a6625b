// `governed review-pass`: wiring from CLI options to the flow, and the summary it prints. Stdout
// carries counts, statuses and paths only — never reviewer output, finding text or stderr (docs/threat-model.md#rules-that-hold-everywhere
// "No secrets in output"); the findings are in the result files, created 0600 in a 0700 directory.
import type { ReviewPassGovernedOutput, ReviewPassOutput } from '../../core/command-output-areas.js';
import { resolve } from 'node:path';
import { closeInheritedDescriptors } from '../../../runner/repo-sandbox.js';
import { runGovernedMode, runReviewPass } from '../../flows/review-pass/index.js';
import { fail } from '../../core/errors.js';
import { resolveHome } from '../options.js';
import { progressSink } from '../progress.js';
import type { CommandResult } from '../output.js';
import type { ReviewPassCliOptions } from '../register/review-pass.js';

const splitList = (items: readonly string[] | string | undefined): string[] =>
  (typeof items === 'string' ? [items] : (items ?? []))
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

export async function reviewPassCommand(opts: ReviewPassCliOptions): Promise<CommandResult> {
  // docs/sandbox.md#inherited-descriptors: an inherited descriptor without close-on-exec would pass through
  // bwrap into every reviewer.
  closeInheritedDescriptors();
  const files = splitList(opts.files);
  if (opts.unit !== undefined) {
    // Governed reviewers run through review-run, whose stderr never leaves the sandbox host.
    if (opts.toolLog !== undefined) fail('orchestrator_tool_log_invalid', ['tool-log']);
    return governedCommand(opts, files);
  }
  const run = await runReviewPass({
    protocol: opts.protocol,
    stage: opts.stage,
    repoDir: resolve(opts.repo ?? '.'),
    ...(files.length > 0 ? { files } : {}),
    ...(opts.config === undefined ? {} : { config: opts.config }),
    ...(opts.out === undefined ? {} : { out: opts.out }),
    ...(opts.unit === undefined ? {} : { unit: opts.unit }),
    light: opts.light === true,
    reqIds: splitList(opts.reqIds),
    deferredReqIds: splitList(opts.deferredReqIds),
    ...(opts.toolLog === undefined ? {} : { toolLog: opts.toolLog }),
    env: process.env,
    progress: progressSink('review-pass', opts),
  });
  const o = run.outcome;
  const reviewers = o.executions.map((x) => ({
    round: x.round,
    purpose: x.purpose,
    reviewer: x.reviewer,
    status: x.status,
    failure: x.failure,
    attempts: x.attempts,
    exit_code: x.exit_code,
    exit_class: x.exit_class,
    network: x.network,
  }));
  const counts = Object.entries(o.counts)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const calls = o.executions.map(
    (x) => `${x.reviewer}${x.purpose === 'review' ? '' : `/${x.purpose}`} ${x.status === 'ok' ? 'ok' : x.failure ?? x.status}${x.exit_class === 'exited_zero' ? '' : ` (${x.exit_class})`}`,
  );
  const human = [
    `${o.protocol} (${opts.stage}, non-governed): ${o.result}${o.reasons.length > 0 ? ` — ${o.reasons.join(', ')}` : ''}`,
    `rounds: ${o.rounds}; reviewer calls: ${calls.length > 0 ? calls.join(', ') : 'none'}`,
    counts.length > 0 ? `counts: ${counts}` : '',
    `report: ${run.files.report}`,
    `result: ${run.files.result}`,
    opts.toolLog === undefined ? '' : `tool stderr logs: ${resolve(opts.toolLog)}`,
    'auto-fix is out of scope: the orchestrator never edits code',
  ].filter((l) => l.length > 0);
  return {
    exit: run.exit,
    json: {
      ok: run.exit === 0,
      protocol: o.protocol,
      stage: opts.stage,
      mode: 'non-governed',
      result: o.result,
      reasons: o.reasons,
      rounds: o.rounds,
      counts: o.counts,
      reviewers,
      config: run.config_source === null ? null : run.config_source,
      scope_files: run.scope_files,
      out_dir: run.out_dir,
      files: run.files,
      auto_fix: 'out_of_scope',
    } satisfies ReviewPassOutput,
    human: human.join('\n'),
  };
}

/**
 * Governed mode: every reviewer is a real review-challenge + review-run, in-process (governed-run.ts).
 * Stdout carries the result, counts and the run/receipt ids — never reviewer output; the adjudicated
 * findings are in result.json / report.md.
 */
async function governedCommand(opts: ReviewPassCliOptions, files: string[]): Promise<CommandResult> {
  const env = (k: string): string | undefined => process.env[k] || undefined;
  const run = await runGovernedMode({
    unit: opts.unit as string,
    protocol: opts.protocol,
    stage: opts.stage,
    ...(files.length > 0 ? { files } : {}),
    ...(opts.config === undefined ? {} : { config: opts.config }),
    ...(opts.out === undefined ? {} : { out: opts.out }),
    light: opts.light === true,
    writerSession: opts.writerSession,
    home: resolveHome(opts.home),
    repo: resolve(opts.repo ?? '.'),
    reviewersDir: opts.reviewersDir,
    attestorsDir: opts.attestors,
    bwrapPath: opts.bwrap,
    policyFile: opts.policy ?? env('GOVERNED_POLICY'),
    trustFile: opts.trust ?? env('GOVERNED_TRUST'),
    clock: () => Math.floor(Date.now() / 1000),
    progress: progressSink('review-pass', opts),
    challengeProgress: progressSink('review-challenge', opts),
    runProgress: progressSink('review-run', opts),
  });
  const o = run.outcome;
  const runs = o.runs.map((r) => ({ round: r.round, slot: r.slot, verdict: r.verdict, run_id: r.run_id, receipt_id: r.receipt_id, error: r.error }));
  const severities: Record<string, number> = {};
  for (const r of o.runs) for (const f of r.findings) severities[f.severity] = (severities[f.severity] ?? 0) + 1;
  const counts = o.protocol_result.counts;
  const human = [
    `${o.protocol} (${o.stage}, governed, unit ${o.unit}): ${o.result}${o.reasons.length > 0 ? ` — ${o.reasons.join(', ')}` : ''}`,
    `rounds: ${o.rounds} (clean ${o.clean_rounds} of streak ${o.streak}); slots: ${o.slots.join(', ')}`,
    ...o.runs.map((r) => `round ${r.round} ${r.slot}: ${r.verdict} run ${r.run_id} receipt ${r.receipt_id ?? '-'}${r.error === null ? '' : ` (${r.error})`}`),
    `counts: ${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(', ')}`,
    `report: ${run.files.report}`,
    `result: ${run.files.result}`,
    'advisory: the delivery state is decided by governed status / gate (docs/decision.md#the-rules-in-short)',
    'auto-fix is out of scope: the orchestrator never edits code',
  ];
  return {
    exit: run.exit,
    json: {
      ok: run.exit === 0,
      protocol: o.protocol,
      stage: o.stage,
      mode: 'governed',
      unit: o.unit,
      result: o.result,
      reasons: o.reasons,
      advisory: true,
      delivery_state: 'decided by governed status / gate (docs/decision.md#the-rules-in-short)',
      streak: o.streak,
      slots: o.slots,
      rounds: o.rounds,
      clean_rounds: o.clean_rounds,
      runs,
      finding_groups: counts.finding_groups ?? 0,
      counts,
      severities,
      focus_files: o.focus_files.length,
      out_dir: run.out_dir,
      files: run.files,
      auto_fix: 'out_of_scope',
    } satisfies ReviewPassGovernedOutput,
    human: human.join('\n'),
  };
}
