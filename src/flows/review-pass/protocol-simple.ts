// simple-review with I/O (simple-review.txt "One-Pass Workflow"), on the pure engine
// (src/protocols/simple): exactly two user-confirmed reviewer slots (no default pair: the seed says
// "ask them to choose and stop before spawning"), one independent round in parallel, one rebuttal
// round with per-id verdicts, the lead's deterministic checks, a recommendation, no fix loop.
//   - Retries per slot are capped at two (seed "retry the same selected slot at most twice").
//   - Same-issue links: the docs/review-pass-protocol.md#matching-rules matching rules between the two reviewers' findings, one-to-one.
//   - material_disagreements: none are flagged (that is a judgement the seed gives the lead; every
//     CRITICAL/HIGH finding still goes to rebuttal, which is the seed's hard rule).
//   - Lead checks (bounded, never a judgement): a finding a real tool reported was observed by the
//     orchestrator's own run of that tool → `verified` (method command); a finding whose file is
//     missing or whose quoted snippet does not occur in the file → `disproved` (method search).
//   - A real tool answering a rebuttal re-runs itself: `agree` when it reports the same file and
//     line, otherwise `uncertain` (it cannot judge claims outside what it checks).
// CLEAN ⇔ the recommendation is NO_BLOCKING_EVIDENCE; the final decision stays the user's.
import * as z from 'zod/mini';
import { list, str } from '../../core/schema-primitives.js';
import { fail, isGovernedError, type ReasonCode } from '../../core/errors.js';
import { PER_CALL_TIMEOUT_S, type Severity } from '../../protocols/review-pass/index.js';
import {
  adjudicateSimple,
  assertReviewerPair,
  planSimpleRebuttal,
  renderSimpleJson,
  renderSimpleMarkdown,
  SimpleFindingSchema,
  type SimpleFinding,
} from '../../protocols/simple/index.js';
import type { ToolReport } from '../../../runner/reviewers/adapters/index.js';
import type { FlowContext, ProtocolOutcome } from './flow-types.js';
import { incompleteJson, incompleteMarkdown } from './incomplete.js';
import { checkLocation, sameIssue, snippetOccurs } from './lead.js';
import { mapBounded } from './pool.js';
import { simpleRebuttalPrompt, simpleReviewPrompt } from './prompts.js';
import { readRepoText, readRepoTexts } from './repo-files.js';
import { parseReviewerJson } from './reviewer-json.js';
import type { ResolvedTool } from './config-load.js';
import type { ReviewerExecution } from './run-reviewer.js';
import { isToolStrategy, simpleFindings, toolCheck, toolReportOf } from './tool-findings.js';
import { REPO_PATH_MAX_CHARS, REVIEW_PROTOCOL_MAX_FINDINGS, REVIEW_PROTOCOL_MAX_ITEMS, REVIEW_PROTOCOL_MAX_PATHS, REVIEW_PROTOCOL_MAX_TEXT } from '../../core/limits.js';

const PATH = str({ min: 1, max: REPO_PATH_MAX_CHARS });
const Round1AnswerSchema = z.strictObject({
  coverage: z.enum(['COMPLETE', 'INCOMPLETE']),
  reviewed_paths: list(PATH, 0, REVIEW_PROTOCOL_MAX_PATHS),
  unreadable_paths: list(PATH, 0, REVIEW_PROTOCOL_MAX_PATHS),
  restricted_steps: list(str({ min: 1, max: REVIEW_PROTOCOL_MAX_TEXT }), 0, REVIEW_PROTOCOL_MAX_ITEMS),
  findings: list(SimpleFindingSchema, 0, REVIEW_PROTOCOL_MAX_FINDINGS),
});
const RebuttalAnswerSchema = z.strictObject({
  verdicts: list(
    z.strictObject({ finding_id: str({ min: 1, max: 64 }), verdict: z.enum(['agree', 'disagree', 'uncertain']), evidence: str({ min: 1, max: REVIEW_PROTOCOL_MAX_TEXT }) }),
    0,
    1000,
  ),
});

const SIMPLE_TO_RP: Readonly<Record<string, Severity>> = { CRITICAL: 'CRITICAL', HIGH: 'HIGH', MEDIUM: 'MEDIUM', LOW: 'LOW', INFO: 'INFO' };

interface SlotRound {
  readonly slot: string;
  readonly prefix: string;
  readonly execution: ReviewerExecution;
  readonly report: ToolReport | null;
  readonly round: Record<string, unknown>;
  readonly findings: readonly SimpleFinding[];
}

/** What every call of one simple review shares: the confirmed pair, the per-call timeout, the tools. */
interface SimplePlan {
  readonly pair: readonly string[];
  readonly timeout: number;
  readonly invocation_id: string;
  readonly files: readonly string[];
  toolOf(slot: string): ResolvedTool;
}

type Round1 = ReturnType<typeof round1Record>;
type Rebuttal = { slot: string; status: string; verdicts: ReadonlyArray<{ finding_id: string; verdict: string; evidence: string }> };

/** The configured pair (no default: the seed stops without one), retries capped at two. */
function planSimple(ctx: FlowContext): SimplePlan {
  const configured = ctx.config.protocols.simple;
  if (configured === null) return fail('orchestrator_protocol_reviewers_invalid', ['protocols.simple.pair']);
  assertReviewerPair(configured.pair);
  return {
    pair: configured.pair,
    timeout: ctx.config.stages[ctx.stage].timeout_ms ?? PER_CALL_TIMEOUT_S[ctx.stage] * 1000,
    invocation_id: `INV-${ctx.random(8).toString('hex')}`,
    files: ctx.prompt.files,
    toolOf: (slot) => {
      const t = ctx.config.tools[slot];
      if (t === undefined) return fail('orchestrator_tool_unknown', [slot]);
      return { ...t, retries: Math.min(t.retries, 2) };
    },
  };
}

/** Round 1 for one slot: its independent review, read as a tool report or the seed's JSON answer. */
async function reviewSlot(ctx: FlowContext, plan: SimplePlan, slot: string): Promise<SlotRound> {
  const tool = plan.toolOf(slot);
  const prefix = `R1-${slot.toUpperCase()}`;
  const x = await ctx.runner.run({
    reviewer: slot,
    tool,
    purpose: 'review',
    round: 1,
    prompt: simpleReviewPrompt(ctx.prompt, { invocation_id: plan.invocation_id, pair: plan.pair, prefix }),
    default_timeout_ms: plan.timeout,
  });
  const base = { slot, finding_id_prefix: prefix, session_ids: [x.execution_id], retries: Math.max(0, x.attempts - 1), shutdown: true };
  const failed = { ...base, status: 'failed', coverage: 'INCOMPLETE', reviewed_paths: [], unreadable_paths: [], restricted_steps: [], findings: [] };
  if (x.status !== 'ok') return { slot, prefix, execution: x, report: null, round: failed, findings: [] };
  if (isToolStrategy(tool.parse)) {
    const report = toolReportOf(tool.parse, x.stdout);
    if (report === null) return { slot, prefix, execution: x, report: null, round: failed, findings: [] };
    const texts = readRepoTexts(ctx.repoDir, report.diagnostics.map((d) => d.file));
    const found = simpleFindings(report, prefix, texts) as SimpleFinding[];
    const round = { ...base, status: 'completed', coverage: 'COMPLETE', reviewed_paths: [...report.files_read], unreadable_paths: [], restricted_steps: [], findings: found };
    return { slot, prefix, execution: x, report, round, findings: found };
  }
  const parsed = Round1AnswerSchema.safeParse(parseReviewerJson(x.stdout));
  if (!parsed.success) return { slot, prefix, execution: x, report: null, round: failed, findings: [] };
  return { slot, prefix, execution: x, report: null, round: { ...base, status: 'completed', ...parsed.data }, findings: parsed.data.findings };
}

/** The lead's one-to-one same-issue links between the two reviewers (closest line first). */
function linkSameIssues(a: SlotRound, b: SlotRound): Array<{ a: string; b: string }> {
  const lf = (slot: string, f: SimpleFinding) => ({ reviewer: slot, file: f.file, line: f.line, severity: SIMPLE_TO_RP[f.severity] as Severity, description: f.title });
  const linked = new Set<string>();
  const same_issue: Array<{ a: string; b: string }> = [];
  const distance = (x: SimpleFinding, y: SimpleFinding): number =>
    x.line === null || y.line === null ? Number.MAX_SAFE_INTEGER : Math.abs(x.line - y.line);
  for (const fa of a.findings) {
    // The closest matching finding of the other reviewer (first in its order on a tie).
    const fb = b.findings
      .filter((f) => !linked.has(f.finding_id) && sameIssue(lf(a.slot, fa), lf(b.slot, f)))
      .reduce<SimpleFinding | undefined>((best, f) => (best === undefined || distance(fa, f) < distance(fa, best) ? f : best), undefined);
    if (fb === undefined) continue;
    linked.add(fb.finding_id);
    same_issue.push({ a: fa.finding_id, b: fb.finding_id });
  }
  return same_issue;
}

/** The engine's round-1 record: scope, pair, each reviewer's round, the links. */
function round1Record(plan: SimplePlan, rounds: readonly SlotRound[]) {
  const [a, b] = rounds as [SlotRound, SlotRound];
  return {
    invocation_id: plan.invocation_id,
    review_type: 'code',
    baseline: 'working-tree',
    scope_paths: [...plan.files],
    pair: [...plan.pair],
    reviewers: rounds.map((r) => r.round),
    same_issue: linkSameIssues(a, b),
    material_disagreements: [] as string[],
  };
}

/** The one rebuttal round: each slot challenges the other's listed findings; calls go to `executions`. */
async function rebuttalRound(
  ctx: FlowContext,
  plan: SimplePlan,
  rounds: readonly SlotRound[],
  batches: Readonly<Record<string, readonly string[]>>,
  executions: ReviewerExecution[],
): Promise<Rebuttal[]> {
  const byId = new Map(rounds.flatMap((r) => r.findings.map((f) => [f.finding_id, f] as const)));
  const challengeSlots = plan.pair.filter((s) => (batches[s] ?? []).length > 0);
  return mapBounded(challengeSlots, ctx.config.parallel, async (slot): Promise<Rebuttal> => {
    const tool = plan.toolOf(slot);
    const ids = batches[slot] ?? [];
    const challenged = ids.map((id) => {
      const f = byId.get(id) as SimpleFinding;
      return { finding_id: id, title: f.title, file: f.file, line: f.line, severity: f.severity };
    });
    const x = await ctx.runner.run({
      reviewer: slot,
      tool,
      purpose: 'rebuttal',
      round: 2,
      prompt: simpleRebuttalPrompt({ invocation_id: plan.invocation_id, pair: plan.pair, files: plan.files }, challenged),
      default_timeout_ms: plan.timeout,
    });
    executions.push(x);
    if (x.status !== 'ok') return { slot, status: 'failed', verdicts: [] };
    if (isToolStrategy(tool.parse)) {
      const rerun = toolReportOf(tool.parse, x.stdout);
      if (rerun === null) return { slot, status: 'failed', verdicts: [] };
      return {
        slot,
        status: 'completed',
        verdicts: challenged.map((c) => {
          const d = rerun.diagnostics.find((y) => y.file === c.file && y.line === c.line);
          return d === undefined
            ? { finding_id: c.finding_id, verdict: 'uncertain', evidence: `${toolCheck(rerun)} reports nothing at this location; the claim is outside what it checks` }
            : { finding_id: c.finding_id, verdict: 'agree', evidence: `${toolCheck(rerun)} reports ${d.code} at the same location` };
        }),
      };
    }
    const parsed = RebuttalAnswerSchema.safeParse(parseReviewerJson(x.stdout));
    return parsed.success ? { slot, status: 'completed', verdicts: parsed.data.verdicts } : { slot, status: 'failed', verdicts: [] };
  });
}

/** The lead's bounded checks: tool-observed findings verified; a missing file or absent snippet disproved. */
function leadChecks(ctx: FlowContext, rounds: readonly SlotRound[]): Array<Record<string, string>> {
  const checks: Array<Record<string, string>> = [];
  for (const r of rounds) {
    for (const f of r.findings) {
      if (r.report !== null) {
        checks.push({ finding_id: f.finding_id, outcome: 'verified', method: 'command', evidence: `the orchestrator ran ${toolCheck(r.report)}, which reported this location` });
        continue;
      }
      const loc = checkLocation(ctx.repoDir, f.file, f.line);
      const text = f.file === null ? null : readRepoText(ctx.repoDir, f.file);
      if (loc.verification === 'false') checks.push({ finding_id: f.finding_id, outcome: 'disproved', method: 'search', evidence: loc.note });
      else if (text !== null && f.snippet !== null && f.snippet.trim() !== '' && !snippetOccurs(text, f.snippet)) {
        checks.push({ finding_id: f.finding_id, outcome: 'disproved', method: 'search', evidence: 'the quoted snippet does not occur in the file' });
      }
    }
  }
  return checks;
}

/** Adjudicate and shape the outcome: CLEAN ⇔ NO_BLOCKING_EVIDENCE. */
function simpleOutcome(round1: Round1, rebuttals: Rebuttal[], lead_checks: Array<Record<string, string>>, executions: ReviewerExecution[]): ProtocolOutcome {
  const result = adjudicateSimple({ ...round1, rebuttals, lead_checks, impact_validation: [], cache_cleanup: 'not_used' });
  const clean = result.recommendation === 'NO_BLOCKING_EVIDENCE';
  const count = (s: string): number => result.findings.filter((f) => f.status === s).length;
  return {
    protocol: 'simple',
    result: clean ? 'CLEAN' : 'NOT_CLEAN',
    reasons: clean ? [] : ['orchestrator_simple_not_clear'],
    result_json: renderSimpleJson(result),
    report_md: renderSimpleMarkdown(result),
    executions,
    rounds: 2,
    counts: { accepted: count('ACCEPTED'), rebutted: count('REBUTTED'), unverified: count('UNVERIFIED'), rejected_incomplete: count('REJECTED_INCOMPLETE') },
  };
}

/** A review whose outputs broke the finding or rebuttal contract: incomplete, NOT_CLEAN. */
function incompleteOutcome(ctx: FlowContext, plan: SimplePlan, executions: ReviewerExecution[], reasons: ReasonCode[], codes: string[]): ProtocolOutcome {
  const i = { protocol: 'simple' as const, stage: ctx.stage, reasons, detail_codes: codes, reviewers: [...plan.pair] };
  return { protocol: 'simple', result: 'NOT_CLEAN', reasons, result_json: incompleteJson(i), report_md: incompleteMarkdown(i), executions, rounds: 1, counts: {} };
}

export async function runSimpleProtocol(ctx: FlowContext): Promise<ProtocolOutcome> {
  const plan = planSimple(ctx);
  // Round 1: independent reviews, concurrently.
  const rounds = await mapBounded(plan.pair, ctx.config.parallel, (slot) => reviewSlot(ctx, plan, slot));
  const executions: ReviewerExecution[] = rounds.map((r) => r.execution);
  const round1 = round1Record(plan, rounds);
  try {
    const rebuttals = await rebuttalRound(ctx, plan, rounds, planSimpleRebuttal(round1), executions);
    return simpleOutcome(round1, rebuttals, leadChecks(ctx, rounds), executions);
  } catch (e) {
    // A reviewer output that breaks the finding or rebuttal contract (exit 9 codes) leaves the
    // review incomplete; configuration problems (exit 2) stop the command.
    if (isGovernedError(e) && e.exit === 9) return incompleteOutcome(ctx, plan, executions, ['orchestrator_output_invalid'], [e.code]);
    throw e;
  }
}
