// The two-pass protocol with I/O (two-pass-review.txt), on the pure engine (src/protocols/two-pass):
// pass 1 by the configured reviewer; when it reports P0/P1 findings, pass 2 by the verifier, which
// receives the reviewer's full Finding array (this is why governed mode refuses two-pass: docs/bundle.md#views
// forbids a reviewer seeing another's findings). Two-pass never loops ("stop without another
// automatic review").
//   - A real tool (tsc/ESLint) as reviewer reports machine routings (tool-findings.ts).
//   - A real tool as verifier is an independent re-run of the same tool; it can only judge that
//     tool's own findings, so it must be the same tool as the reviewer (checked up front).
//   - A reviewer that is unavailable, or whose output breaks the ReviewOutput contract, leaves the
//     review incomplete: NOT_CLEAN with the engine's refusal code, never a partial result.
// CLEAN ⇔ no finding is still P0/P1 after both passes (rejected ones and ones demoted below P1 do not count).
import { fail, isGovernedError, type ReasonCode } from '../../core/errors.js';
import { adjudicateTwoPass, evaluatePass1, isP0P1, renderTwoPassJson, renderTwoPassMarkdown, type ReviewOutput } from '../../protocols/two-pass/index.js';
import { PER_CALL_TIMEOUT_S } from '../../protocols/review-pass/index.js';
import type { ResolvedTool } from './config-load.js';
import type { FlowContext, ProtocolOutcome } from './flow-types.js';
import { incompleteJson, incompleteMarkdown } from './incomplete.js';
import { twoPassReviewerPrompt, twoPassVerifierPrompt } from './prompts.js';
import { parseReviewerJson } from './reviewer-json.js';
import type { ReviewerExecution } from './run-reviewer.js';
import { isToolStrategy, toolReportOf, twoPassMachineVerify, twoPassPass1Output } from './tool-findings.js';

/** An incomplete review (docs/review-pass.md#exit-codes): NOT_CLEAN with the refusal codes, never a partial result. */
function incompleteOutcome(ctx: FlowContext, executions: ReviewerExecution[], reasons: ReasonCode[], codes: string[], who: string[]): ProtocolOutcome {
  const i = { protocol: 'two-pass' as const, stage: ctx.stage, reasons, detail_codes: codes, reviewers: who };
  return {
    protocol: 'two-pass',
    result: 'NOT_CLEAN',
    reasons,
    result_json: incompleteJson(i),
    report_md: incompleteMarkdown(i),
    executions,
    rounds: executions.length,
    counts: { p0p1: 0 },
  };
}

/** Pass 1's output (docs/review-pass.md#reviewers-that-are-real-tools: a tool's report as machine routings); null: unusable. */
function pass1Output(reviewer: ResolvedTool, stdout: string): unknown {
  if (isToolStrategy(reviewer.parse)) {
    const report = toolReportOf(reviewer.parse, stdout);
    return report === null ? null : twoPassPass1Output(report);
  }
  return parseReviewerJson(stdout);
}

/** Pass 2's output (docs/review-pass.md#reviewers-that-are-real-tools: a tool verifier re-runs the same tool); null: unusable. */
function pass2Output(verifier: ResolvedTool, stdout: string, pass1: ReviewOutput): unknown {
  if (isToolStrategy(verifier.parse)) {
    const rerun = toolReportOf(verifier.parse, stdout);
    return rerun === null ? null : twoPassMachineVerify(pass1, rerun);
  }
  return parseReviewerJson(stdout);
}

/** The adjudicated outcome (docs/review-pass.md#output). */
function twoPassOutcome(result: ReturnType<typeof adjudicateTwoPass>, executions: ReviewerExecution[]): ProtocolOutcome {
  // The P0/P1 list also shows findings demoted out of P0/P1 (to mark the move); only findings whose
  // final severity is still P0/P1 and that the verifier did not reject block.
  const remaining = result.findings.filter((f) => f.verdict !== 'rejected' && isP0P1(f.final_severity)).length;
  const clean = remaining === 0;
  return {
    protocol: 'two-pass',
    result: clean ? 'CLEAN' : 'NOT_CLEAN',
    reasons: clean ? [] : ['orchestrator_p0p1_remaining'],
    result_json: renderTwoPassJson(result),
    report_md: renderTwoPassMarkdown(result),
    executions,
    rounds: result.passes_run,
    counts: {
      p0p1: remaining,
      fyi: result.fyi_ids.length,
      rejected: result.rejected_ids.length,
      passes: result.passes_run,
    },
  };
}

export async function runTwoPassProtocol(ctx: FlowContext): Promise<ProtocolOutcome> {
  const names = ctx.config.protocols.two_pass;
  const reviewer = ctx.config.tools[names.reviewer];
  const verifier = ctx.config.tools[names.verifier];
  if (reviewer === undefined || verifier === undefined) return fail('orchestrator_tool_unknown', ['protocols.two-pass']);
  if (isToolStrategy(verifier.parse) && verifier.parse !== reviewer.parse) {
    fail('orchestrator_protocol_reviewers_invalid', ['protocols.two-pass.verifier']);
  }
  const timeout = ctx.config.stages[ctx.stage].timeout_ms ?? PER_CALL_TIMEOUT_S[ctx.stage] * 1000;
  const executions: ReviewerExecution[] = [];
  const incomplete = (reasons: ReasonCode[], codes: string[], who: string[]): ProtocolOutcome => incompleteOutcome(ctx, executions, reasons, codes, who);

  // Pass 1 — Review.
  const x1 = await ctx.runner.run({
    reviewer: names.reviewer,
    tool: reviewer,
    purpose: 'review',
    round: 1,
    prompt: twoPassReviewerPrompt(ctx.prompt),
    default_timeout_ms: timeout,
  });
  executions.push(x1);
  if (x1.status !== 'ok') return incomplete(['orchestrator_reviewer_unavailable'], [], [names.reviewer]);
  const pass1 = pass1Output(reviewer, x1.stdout);
  if (pass1 === null) return incomplete(['orchestrator_output_invalid'], [], [names.reviewer]);
  let p1: ReturnType<typeof evaluatePass1>;
  try {
    p1 = evaluatePass1(pass1);
  } catch (e) {
    if (isGovernedError(e) && e.exit === 9) return incomplete(['orchestrator_output_invalid'], [e.code], [names.reviewer]);
    throw e;
  }

  // Pass 2 — Verify, only when pass 1 has P0/P1 findings ("auto-progression").
  let pass2: unknown = null;
  if (p1.progression === 'verify') {
    const x2 = await ctx.runner.run({
      reviewer: names.verifier,
      tool: verifier,
      purpose: 'verify',
      round: 2,
      prompt: twoPassVerifierPrompt(ctx.prompt, p1.output.findings),
      default_timeout_ms: timeout,
    });
    executions.push(x2);
    if (x2.status !== 'ok') return incomplete(['orchestrator_reviewer_unavailable'], [], [names.verifier]);
    pass2 = pass2Output(verifier, x2.stdout, p1.output as ReviewOutput);
    if (pass2 === null) return incomplete(['orchestrator_output_invalid'], [], [names.verifier]);
  }

  let result: ReturnType<typeof adjudicateTwoPass>;
  try {
    result = adjudicateTwoPass({ pass1, pass2 });
  } catch (e) {
    if (isGovernedError(e) && e.exit === 9) return incomplete(['orchestrator_output_invalid'], [e.code], [names.verifier]);
    throw e;
  }
  return twoPassOutcome(result, executions);
}
