// The weave protocol with I/O (weave-review.txt Phases 3-4), on the pure engine
// (src/protocols/weave): every configured lane reviews in parallel with its role preamble; the lead
// (lead.ts, deterministic) cross-references the lanes' findings into issues and checks each claim's
// location; the engine assigns blind labels from fresh random bytes (recorded in the label map),
// computes consensus, promotes severity and lists disagreements.
// One pass: the seed's multi-pass residual re-attack (--passes) is left out (docs/review-pass.md).
// Lanes are independent, so no lane can dissent from another's finding in this pass; a lane that
// did not report an issue is "silent" (the seed keeps dissent and silence apart).
// Lane failures (weave "On failure: classify"): timeout → `timeout`; empty output → `empty`; a
// missing tool, crash, bad exit code or unusable output → `crash`.
// CLEAN ⇔ every lane answered and no finding survived verification (a degraded synthesis never is).
import * as z from 'zod/mini';
import { list, str } from '../../core/schema-primitives.js';
import { fail, isGovernedError, type ReasonCode } from '../../core/errors.js';
import { PER_CALL_TIMEOUT_S, type Severity } from '../../protocols/review-pass/index.js';
import { adjudicateWeave, renderWeaveJson, renderWeaveMarkdown, type WeaveLane, type WeaveSeverity } from '../../protocols/weave/index.js';
import type { FlowContext, ProtocolOutcome } from './flow-types.js';
import { incompleteJson, incompleteMarkdown } from './incomplete.js';
import { checkLocation, crossReference, type LeadFinding } from './lead.js';
import { mapBounded } from './pool.js';
import { weavePrompt } from './prompts.js';
import { parseReviewerJson } from './reviewer-json.js';
import type { ReviewerExecution } from './run-reviewer.js';
import { isToolStrategy, toolCheck, toolReportOf, weaveLaneFindings, type LaneFinding } from './tool-findings.js';
import { REPO_PATH_MAX_CHARS, REVIEW_PROTOCOL_MAX_TEXT } from '../../core/limits.js';

/** An issue's title in the synthesis: its description, cut to this many characters for display (not a bound on input). */
const TITLE_CHARS = 120;

const LaneAnswerSchema = z.strictObject({
  findings: list(
    z.strictObject({
      file: z.nullable(str({ min: 1, max: REPO_PATH_MAX_CHARS })),
      line: z.nullable(z.int().check(z.gte(1))),
      severity: z.enum(['Critical', 'Important', 'Suggestion']),
      description: str({ min: 1, max: REVIEW_PROTOCOL_MAX_TEXT }),
      recommendation: str({ min: 1, max: REVIEW_PROTOCOL_MAX_TEXT }),
    }),
    0,
    500,
  ),
});

const TO_RP_SEVERITY: Readonly<Record<WeaveSeverity, Severity>> = { Critical: 'CRITICAL', Important: 'HIGH', Suggestion: 'LOW' };
const RANK: Readonly<Record<WeaveSeverity, number>> = { Critical: 0, Important: 1, Suggestion: 2 };

interface Lead extends LeadFinding {
  readonly lane: LaneFinding;
  readonly machine: string | null;
}

function failureOf(x: ReviewerExecution): 'timeout' | 'empty' | 'crash' {
  if (x.status === 'timeout') return 'timeout';
  if (x.failure === 'empty_output') return 'empty';
  return 'crash';
}

/** Each lane's answer (docs/review-pass.md#review-protocols; a tool's report per docs/review-pass.md#reviewers-that-are-real-tools): a failed lane classified, an answering lane's findings as the lead's inputs. */
function lanesOf(ctx: FlowContext, xs: readonly ReviewerExecution[]): { lanes: WeaveLane[]; leads: Lead[] } {
  const lanes: WeaveLane[] = [];
  const leads: Lead[] = [];
  xs.forEach((x) => {
    const tool = ctx.config.tools[x.reviewer];
    let found: LaneFinding[] | null = null;
    let machine: string | null = null;
    if (x.status === 'ok' && tool !== undefined) {
      if (isToolStrategy(tool.parse)) {
        const report = toolReportOf(tool.parse, x.stdout);
        if (report !== null) {
          found = weaveLaneFindings(report);
          machine = toolCheck(report);
        }
      } else {
        const parsed = LaneAnswerSchema.safeParse(parseReviewerJson(x.stdout));
        if (parsed.success) found = parsed.data.findings;
      }
    }
    if (found === null) {
      lanes.push({ participant: x.reviewer, status: 'failed', failure: x.status === 'ok' ? 'crash' : failureOf(x) });
      return;
    }
    for (const f of found) {
      leads.push({ reviewer: x.reviewer, file: f.file, line: f.line, severity: TO_RP_SEVERITY[f.severity], description: f.description, lane: f, machine });
    }
    lanes.push({ participant: x.reviewer, status: 'ok', findings: [], dissents: [] });
  });
  return { lanes, leads };
}

/**
 * The lead (docs/review-pass.md#review-protocols): cross-reference into issues, each claim's location
 * checked; each lane takes one position per issue (its most severe report), appended to that lane.
 */
function issuesOf(ctx: FlowContext, leads: readonly Lead[], lanes: WeaveLane[]) {
  return crossReference(leads).map((members, n) => {
    const issue_id = `ISSUE-${String(n + 1).padStart(3, '0')}`;
    const rep = members[0] as Lead;
    const loc = checkLocation(ctx.repoDir, rep.file, rep.line);
    const machine = members.find((m) => m.machine !== null)?.machine ?? null;
    const verification = loc.verification === 'false' ? 'false' : machine !== null ? 'verified' : 'plausible-unverified';
    const note =
      loc.verification === 'false' ? loc.note : machine !== null ? `observed by ${machine}, run by the orchestrator` : `${loc.note}; the claim itself was not machine-checked`;
    const byLane = new Map<string, Lead>();
    for (const m of members) {
      const cur = byLane.get(m.reviewer);
      if (cur === undefined || RANK[m.lane.severity] < RANK[cur.lane.severity]) byLane.set(m.reviewer, m);
    }
    for (const [lane, m] of byLane) {
      const target = lanes.find((l) => l.participant === lane);
      if (target?.status === 'ok') {
        target.findings.push({ issue_id, severity: m.lane.severity, description: m.lane.description, recommendation: m.lane.recommendation });
      }
    }
    const title = rep.description.length > TITLE_CHARS ? `${rep.description.slice(0, TITLE_CHARS - 1)}…` : rep.description;
    return { issue_id, title, file: rep.file, line: rep.line, verification, verification_note: note } as const;
  });
}

export async function runWeaveProtocol(ctx: FlowContext): Promise<ProtocolOutcome> {
  const participants = ctx.config.protocols.weave.reviewers;
  if (new Set(participants).size !== participants.length) fail('orchestrator_protocol_reviewers_invalid', ['protocols.weave.reviewers']);
  const timeout = ctx.config.stages[ctx.stage].timeout_ms ?? PER_CALL_TIMEOUT_S[ctx.stage] * 1000;
  const xs = await mapBounded(participants, ctx.config.parallel, (name, i) => {
    const tool = ctx.config.tools[name];
    if (tool === undefined) return fail('orchestrator_tool_unknown', [name]);
    return ctx.runner.run({ reviewer: name, tool, purpose: 'review', round: 1, prompt: weavePrompt(ctx.prompt, i), default_timeout_ms: timeout });
  });
  const { lanes, leads } = lanesOf(ctx, xs);
  const issues = issuesOf(ctx, leads, lanes);

  const reasonsOf = (r: ReasonCode[]): ReasonCode[] => r;
  try {
    const result = adjudicateWeave({ lanes, issues }, ctx.random(32));
    const reasons = reasonsOf([
      ...(result.unavailable.length > 0 ? (['orchestrator_weave_lane_unavailable'] as const) : []),
      ...(result.findings.length > 0 ? (['orchestrator_weave_findings'] as const) : []),
    ]);
    return {
      protocol: 'weave',
      result: reasons.length === 0 ? 'CLEAN' : 'NOT_CLEAN',
      reasons,
      result_json: renderWeaveJson(result),
      report_md: renderWeaveMarkdown(result),
      executions: xs,
      rounds: 1,
      counts: { lanes: result.lanes, findings: result.findings.length, refuted: result.refuted.length, disagreements: result.disagreement_ids.length, unavailable: result.unavailable.length },
    };
  } catch (e) {
    // weave_no_participants: no lane produced an output, nothing to synthesize.
    if (isGovernedError(e) && e.code === 'weave_no_participants') {
      const i = { protocol: 'weave' as const, stage: ctx.stage, reasons: reasonsOf(['orchestrator_reviewer_unavailable']), detail_codes: [e.code], reviewers: [...participants] };
      return { protocol: 'weave', result: 'NOT_CLEAN', reasons: i.reasons, result_json: incompleteJson(i), report_md: incompleteMarkdown(i), executions: xs, rounds: 1, counts: { lanes: 0 } };
    }
    throw e;
  }
}
