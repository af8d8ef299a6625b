// The review-pass round loop with I/O (docs/review-pass-protocol.md#the-round-loop), on the pure engine
// (src/protocols/review-pass): the engine decides, this file only runs reviewers and feeds rounds in.
//
//   state = startReview(config)
//   while RUNNING:
//     checkBudget (docs/review-pass-protocol.md#budget-guard hard limits)            → may end NOT_CLEAN
//     run every slot's reviewer in parallel     (docs/review-pass-protocol.md#parallel-execution; timeout/failure → the engine degrades, docs/review-pass-protocol.md#graceful-degradation)
//     preview the adjudication                  → the CONTESTED groups
//     arbitrate them when an arbiter outside the pool is configured and available (docs/review-pass-protocol.md#the-arbiter-is-outside-the-pool, docs/review-pass-protocol.md#arbiter-decisions)
//     recordRound                               → CLEAN streak, NOT_CLEAN, or converged
//
// Non-interactive: there is no user prompt (docs/review-pass-protocol.md#the-round-loop step 6 "prompt_user"); a CONTESTED group the arbiter
// could not settle stays an escalation and the review ends NOT_CLEAN (the engine's rule). The
// orchestrator never edits code (docs/review-pass.md#review-protocols): CONFIRMED findings end the review NOT_CLEAN with the
// findings listed for a human or writer to fix; a re-review after the fix is a new run.
// Planning and integration need the product-preservation inputs that only governed mode can
// validate, so non-governed planning/integration reviews end NOT_CLEAN before any reviewer runs
// (`review_pass_mandatory_inputs_missing`, docs/review-pass-protocol.md#separated-roles).
import { fail } from '../../core/errors.js';
import {
  adjudicateRound,
  checkBudget,
  parseReviewerRunOutput,
  PER_CALL_TIMEOUT_S,
  recordRound,
  renderReviewPassJson,
  renderReviewPassMarkdown,
  reviewResult,
  roundContext,
  ROLES,
  isRoleStage,
  startReview,
  type ReviewState,
  type ReviewerRunOutput,
  type Resolution,
} from '../../protocols/review-pass/index.js';
import type { ResolvedTool } from './config-load.js';
import type { FlowContext, ProtocolOutcome } from './flow-types.js';
import { mapBounded } from './pool.js';
import { arbiterPrompt, reviewPassPrompt } from './prompts.js';
import { readRepoText, readRepoTexts } from './repo-files.js';
import type { ReviewerExecution } from './run-reviewer.js';
import { isToolStrategy, reviewPassOutputText, toolReportOf } from './tool-findings.js';

/** The engine accepts at most 1 MiB of reviewer text per run (adjudicate-round.ts RunOutputSchema). */
import { REVIEW_PASS_RUN_MAX_TEXT as ENGINE_MAX_TEXT } from '../../core/limits.js';

type EngineRun =
  | { slot: string; execution_id: string; status: 'ok'; output: ReviewerRunOutput }
  | { slot: string; execution_id: string; status: 'timeout' | 'failed' };

/** One execution → the engine's run record (parse strategy per tool, docs/review-pass-protocol.md#output-parsing-rules). */
export function engineRun(tool: ResolvedTool, x: ReviewerExecution): EngineRun {
  const id = { slot: x.reviewer, execution_id: x.execution_id };
  if (x.status !== 'ok') return { ...id, status: x.status };
  if (isToolStrategy(tool.parse)) {
    const report = toolReportOf(tool.parse, x.stdout);
    // A tool run that did not review (configuration error, foreign output) is unusable output:
    // no structured data, so the engine counts the reviewer unavailable (docs/review-pass-protocol.md#output-parsing-rules, docs/review-pass-protocol.md#graceful-degradation).
    const text = report === null ? '' : reviewPassOutputText(report);
    return { ...id, status: 'ok', output: { strategy: report === null ? 'text_fallback' : 'json', text } };
  }
  if (x.stdout.length > ENGINE_MAX_TEXT) return { ...id, status: 'failed' };
  return { ...id, status: 'ok', output: { strategy: tool.parse === 'json' ? 'json' : 'text_fallback', text: x.stdout } };
}

/** Files the round's findings and the known issues name (for docs/review-pass-protocol.md#known-issues hashes). */
function filesOf(state: ReviewState, runs: readonly EngineRun[]): Set<string> {
  const names = new Set<string>(state.known_issues.map((k) => k.file));
  for (const r of runs) {
    if (r.status !== 'ok') continue;
    try {
      for (const f of parseReviewerRunOutput(r.slot, r.output).findings) names.add(f.file);
    } catch {
      // The engine reports an unusable output itself; nothing to read for it.
    }
  }
  return names;
}

function excerpt(text: string | null, line: number | null): string {
  if (text === null) return '(file not readable)';
  const lines = text.split('\n');
  const from = line === null ? 0 : Math.max(0, line - 21);
  const to = line === null ? Math.min(lines.length, 41) : Math.min(lines.length, line + 20);
  return lines
    .slice(from, to)
    .map((l, i) => `${from + i + 1}: ${l}`)
    .join('\n');
}

/** docs/review-pass-protocol.md#arbiter-decisions arbiter decision from its output: the first line says CONFIRMED or DISMISSED. */
export function arbiterDecision(stdout: string): 'FIX' | 'DISMISS' | null {
  const first = stdout.split('\n').find((l) => l.trim().length > 0);
  const m = first === undefined ? null : /^[\s*#>`_-]*(CONFIRMED|DISMISSED)\b/.exec(first);
  if (m === null) return null;
  return m[1] === 'CONFIRMED' ? 'FIX' : 'DISMISS';
}

/** The review's start state from the stage's configuration (docs/review-pass-protocol.md#configuration), non-governed. */
function startNonGoverned(ctx: FlowContext): ReviewState {
  const stageCfg = ctx.config.stages[ctx.stage];
  const roleStage = isRoleStage(ctx.stage);
  const slots = roleStage ? [...ROLES] : [...stageCfg.reviewers];
  return startReview(
    {
      stage: ctx.stage,
      mode: 'non_governed',
      light: ctx.light,
      reviewers: slots,
      ...(stageCfg.arbiter === undefined ? {} : { arbiter: stageCfg.arbiter }),
      ...(stageCfg.convergence === undefined ? {} : { convergence: stageCfg.convergence }),
      budget: {
        ...(ctx.config.budget.max_rounds === undefined ? {} : { max_rounds: ctx.config.budget.max_rounds }),
        ...(ctx.config.budget.max_total_time_ms === undefined ? {} : { max_total_time_ms: ctx.config.budget.max_total_time_ms }),
      },
      req_ids: [...ctx.prompt.req_ids],
      deferred_req_ids: [...ctx.prompt.deferred_req_ids],
    },
    ctx.clock(),
  );
}

interface RoundCall {
  readonly ctx: FlowContext;
  readonly round: number;
  readonly defaultTimeout: number;
  readonly toolOf: (name: string) => ResolvedTool;
}

/**
 * docs/review-pass-protocol.md#arbiter-decisions: this round's CONTESTED groups each put to the arbiter
 * (outside the pool, docs/review-pass-protocol.md#the-arbiter-is-outside-the-pool); its executions are
 * appended to `executions`, its answers returned as resolutions.
 */
async function arbitrate(
  call: RoundCall,
  state: ReviewState,
  arbiter: string,
  runs: readonly EngineRun[],
  files: ReturnType<typeof readRepoTexts>,
  executions: ReviewerExecution[],
): Promise<Resolution[]> {
  const { ctx, round, defaultTimeout, toolOf } = call;
  const resolutions: Resolution[] = [];
  const preview = adjudicateRound(roundContext(state), runs, files);
  const contested = preview.groups.filter((g) => g.classification === 'CONTESTED');
  const arbTool = toolOf(arbiter);
  const answers = await mapBounded(contested, ctx.config.parallel, (g) => {
    const r = g.group.representative;
    return ctx.runner.run({
      reviewer: arbiter,
      tool: arbTool,
      purpose: 'arbitrate',
      round,
      prompt: arbiterPrompt(
        ctx.prompt,
        {
          file: r.file,
          line: r.line,
          severity: g.group.severity,
          finding_class: g.group.finding_class,
          description: r.description,
          supporters: g.group.supporters,
          others: preview.degradation.available.filter((s) => !g.group.supporters.includes(s)),
        },
        excerpt(readRepoText(ctx.repoDir, r.file), r.line),
      ),
      default_timeout_ms: defaultTimeout,
    });
  });
  executions.push(...answers);
  answers.forEach((a, i) => {
    const decision = a.status === 'ok' ? arbiterDecision(a.stdout) : null;
    const g = contested[i];
    if (decision !== null && g !== undefined) resolutions.push({ group_id: g.group.id, decision, by: 'arbiter' });
  });
  return resolutions;
}

/** The protocol's outcome from the final state (docs/review-pass-protocol.md#final-report). */
function outcomeOf(state: ReviewState, executions: ReviewerExecution[]): ProtocolOutcome {
  const result = reviewResult(state);
  return {
    protocol: 'review-pass',
    result: result.result,
    reasons: result.reasons,
    result_json: renderReviewPassJson(result),
    report_md: renderReviewPassMarkdown(result),
    executions,
    rounds: result.rounds,
    counts: {
      confirmed: result.summary.confirmed,
      escalations: result.summary.escalations,
      vetoes: result.summary.vetoes,
      auto_dismissed: result.summary.auto_dismissed,
      suppressed: result.summary.suppressed,
      r_actual: result.r_actual,
    },
  };
}

export async function runReviewPassProtocol(ctx: FlowContext): Promise<ProtocolOutcome> {
  const stageCfg = ctx.config.stages[ctx.stage];
  let state = startNonGoverned(ctx);
  const executions: ReviewerExecution[] = [];
  const defaultTimeout = stageCfg.timeout_ms ?? PER_CALL_TIMEOUT_S[ctx.stage] * 1000;
  const toolOf = (name: string): ResolvedTool => {
    const t = ctx.config.tools[name];
    if (t === undefined) fail('orchestrator_tool_unknown', [name]);
    return t;
  };
  const arbiter = state.config.arbiter;

  while (state.status === 'RUNNING') {
    state = checkBudget(state, ctx.clock()).state;
    if (state.status !== 'RUNNING') break;
    const round = state.next_round;
    const known = state.known_issues.map(
      (k) => `${k.file}${k.finding.line === null ? '' : `:${k.finding.line}`} [${k.finding.severity}] — ${k.finding.description}`,
    );
    // Each slot is a configured tool (docs/review-pass-protocol.md#reviewer-invocation); the arbiter is already out of the pool (docs/review-pass-protocol.md#the-arbiter-is-outside-the-pool).
    const slotsNow = state.config.slots;
    const xs = await mapBounded(slotsNow, ctx.config.parallel, (slot) => {
      const tool = toolOf(slot);
      return ctx.runner.run({
        reviewer: slot,
        tool,
        purpose: 'review',
        round,
        prompt: reviewPassPrompt(ctx.prompt, round, known, tool.parse === 'json'),
        default_timeout_ms: defaultTimeout,
      });
    });
    executions.push(...xs);
    const runs = xs.map((x) => engineRun(toolOf(x.reviewer), x));
    const files = readRepoTexts(ctx.repoDir, filesOf(state, runs));
    // CONTESTED groups go to the arbiter when one outside the pool is configured.
    const resolutions =
      arbiter !== null && !slotsNow.includes(arbiter) ? await arbitrate({ ctx, round, defaultTimeout, toolOf }, state, arbiter, runs, files, executions) : [];
    // Development/test have no mandatory inputs or preservation probes (docs/review-pass-protocol.md#clean-conditions).
    const evidence = { mandatory_inputs_valid: true, probes_passed: 0, probes_total: 0 };
    state = recordRound(state, { runs, files, evidence, resolutions }, ctx.clock()).state;
  }
  return outcomeOf(state, executions);
}
