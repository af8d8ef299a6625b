// The two-pass result and its presentation rules (two-pass-review.txt "Present to user"):
// clean shape after pass 1, the P0/P1 list with severity moves, summary counts, P2/P3 as FYI,
// disagreement, the all-rejected case, and visibility. Pure: the caller feeds both outputs in.
import { fail } from '../../core/errors.js';
import { evaluatePass1 } from './pass1.js';
import { evaluatePass2 } from './verify.js';
import { isP0P1, severityRank, type Severity, type Verdict } from './schema.js';

export type TwoPassOutcome = 'clean' | 'verified' | 'all_rejected';
export type SeverityChange = 'none' | 'promoted' | 'demoted';

export interface TwoPassEntry {
  readonly id: number;
  readonly title: string;
  readonly body: string;
  readonly file: string | null;
  readonly line_start: number | null;
  readonly line_end: number | null;
  readonly criterion: string;
  readonly confidence: number;
  readonly original_severity: Severity;
  readonly final_severity: Severity;
  /** null = not adjudicated (pass 1 only): the seed's "unverified". */
  readonly verdict: Verdict | null;
  readonly validated_by: 'reviewer' | 'verifier' | 'machine' | null;
  readonly evidence: string | null;
  readonly severity_change: SeverityChange;
  /** Whether the report shows this finding (seed "Visibility"). */
  readonly visible: boolean;
}

export interface TwoPassSummary {
  /** Y: pass 1 P0/P1 findings. */
  readonly p0p1_total: number;
  /** X, W, Z of Y. */
  readonly confirmed: number;
  readonly demoted: number;
  readonly rejected: number;
  /** P2/P3 findings the verifier confirmed into P0/P1 (listed as "promoted Px→Py"). */
  readonly promoted_into_p0p1: number;
}

export interface TwoPassResult {
  readonly protocol: 'two-pass';
  readonly outcome: TwoPassOutcome;
  readonly passes_run: 1 | 2;
  readonly checks_run: { readonly pass1: readonly string[]; readonly pass2: readonly string[] | null };
  readonly findings: readonly TwoPassEntry[];
  /** Display order of the P0/P1 list, FYI list and disagreement list (ids). */
  readonly p0p1_ids: readonly number[];
  readonly fyi_ids: readonly number[];
  readonly rejected_ids: readonly number[];
  readonly summary: TwoPassSummary | null;
  readonly disagreement: 'none' | 'reviewer_verifier_split';
  /** Seed "All rejected: ... stop without another automatic review"; two-pass never loops. */
  readonly further_automatic_review: false;
  readonly shows_hidden: boolean;
}

export interface TwoPassInput {
  /** Pass 1 ReviewOutput (already parsed from JSON, not yet validated). */
  readonly pass1: unknown;
  /** Pass 2 ReviewOutput, or null when none was run. */
  readonly pass2: unknown;
  /** Seed "Visibility": hidden findings are shown only when the user asks. */
  readonly showHidden?: boolean;
}

function changeOf(from: Severity, to: Severity): SeverityChange {
  const d = severityRank(to) - severityRank(from);
  return d < 0 ? 'promoted' : d > 0 ? 'demoted' : 'none';
}

const byFinalSeverityThenId = (a: TwoPassEntry, b: TwoPassEntry): number =>
  severityRank(a.final_severity) - severityRank(b.final_severity) || a.id - b.id;

export function adjudicateTwoPass(input: TwoPassInput): TwoPassResult {
  const showHidden = input.showHidden === true;
  const p1 = evaluatePass1(input.pass1);

  if (p1.progression === 'clean') {
    // Seed: "Zero P0/P1 findings → terminate after Pass 1"; a verifier output here would mean the
    // caller ran a pass the protocol does not have.
    if (input.pass2 !== null) fail('two_pass_verifier_not_expected', ['pass2']);
    // Unverified P2/P3 findings stay hidden unless the user asks (seed "Visibility"); a finding a
    // caller routed as machine-confirmed is verified and shown.
    const findings = p1.output.findings.map(
      (f): TwoPassEntry => ({
        id: f.id, title: f.title, body: f.body, file: f.file, line_start: f.line_start, line_end: f.line_end,
        criterion: f.criterion, confidence: f.confidence, original_severity: f.severity, final_severity: f.severity,
        verdict: f.verdict, validated_by: f.validated_by, evidence: f.evidence, severity_change: 'none',
        visible: showHidden || f.verdict !== null,
      }),
    );
    return {
      protocol: 'two-pass', outcome: 'clean', passes_run: 1,
      checks_run: { pass1: p1.output.checks_run, pass2: null },
      findings, p0p1_ids: [], fyi_ids: [...findings].sort(byFinalSeverityThenId).map((f) => f.id), rejected_ids: [],
      summary: null, disagreement: 'none', further_automatic_review: false, shows_hidden: showHidden,
    };
  }

  // Seed: "One or more P0/P1 findings → proceed automatically to Pass 2. No user prompt."
  if (input.pass2 === null) fail('two_pass_verifier_output_missing', ['pass2']);
  const p2 = evaluatePass2(p1.output, input.pass2);

  const entries0 = p2.findings.map((v) => ({
    id: v.pass1.id, title: v.pass1.title, body: v.pass2.body, file: v.pass1.file, line_start: v.pass1.line_start,
    line_end: v.pass1.line_end, criterion: v.pass1.criterion, confidence: v.pass2.confidence,
    original_severity: v.originalSeverity, final_severity: v.finalSeverity, verdict: v.verdict as Verdict | null,
    validated_by: v.pass2.validated_by, evidence: v.evidence as string | null,
    severity_change: changeOf(v.originalSeverity, v.finalSeverity),
  }));

  const originalP0P1 = entries0.filter((e) => isP0P1(e.original_severity));
  const summary: TwoPassSummary = {
    p0p1_total: originalP0P1.length,
    confirmed: originalP0P1.filter((e) => e.verdict === 'confirmed').length,
    demoted: originalP0P1.filter((e) => e.verdict === 'demoted').length,
    rejected: originalP0P1.filter((e) => e.verdict === 'rejected').length,
    promoted_into_p0p1: entries0.filter((e) => !isP0P1(e.original_severity) && isP0P1(e.final_severity) && e.verdict !== 'rejected').length,
  };
  // The P0/P1 list holds every surviving finding that was or became P0/P1, so each demotion out
  // of P0/P1 and each promotion into it is marked where the user looks (seed "Severity changes").
  const inP0P1List = (e: (typeof entries0)[number]): boolean =>
    e.verdict !== 'rejected' && (isP0P1(e.original_severity) || isP0P1(e.final_severity));
  const listed = entries0.filter(inP0P1List);
  // Seed "All rejected": zero confirmed P0/P1 after both passes because the verifier rejected them all.
  const allRejected = summary.p0p1_total > 0 && summary.rejected === summary.p0p1_total && listed.length === 0;
  const rejectedVisible = allRejected || showHidden;

  const findings = entries0.map(
    (e): TwoPassEntry => ({ ...e, visible: e.verdict === 'rejected' ? rejectedVisible : true }),
  );
  const sorted = [...findings].sort(byFinalSeverityThenId);
  return {
    protocol: 'two-pass',
    outcome: allRejected ? 'all_rejected' : 'verified',
    passes_run: 2,
    checks_run: { pass1: p1.output.checks_run, pass2: p2.output.checks_run },
    findings,
    p0p1_ids: sorted.filter(inP0P1List).map((e) => e.id),
    fyi_ids: sorted.filter((e) => e.verdict !== 'rejected' && !inP0P1List(e)).map((e) => e.id),
    rejected_ids: sorted.filter((e) => e.verdict === 'rejected').map((e) => e.id),
    summary,
    disagreement: summary.rejected > 0 || findings.some((e) => e.verdict === 'rejected') ? 'reviewer_verifier_split' : 'none',
    further_automatic_review: false,
    shows_hidden: showHidden,
  };
}
