// Weave synthesis (weave-review.txt Phase 4): blind labels first, then consensus per issue over the
// M lanes that produced output, severity promotion by consensus, band ordering, and the Reviewer
// Disagreements listing. Identities are revealed only through the recorded label map ("Step 3:
// Reveal After Scoring"); everything before that is computed on labels.
import { fail } from '../../core/errors.js';
import { parseOrFail } from '../two-pass/parse-or-fail.js';
import { assignBlindLabels, type LabelMap } from './blind-labels.js';
import {
  consensusLevel, consensusTag, orderingRank, promoteByConsensus, strongestSeverity, type ConsensusLevel,
} from './consensus.js';
import { WEAVE_SEVERITIES, WeaveInputSchema, type Verification, type WeaveSeverity } from './schema.js';

export interface WeaveAgreement {
  readonly label: string;
  readonly severity: WeaveSeverity;
  readonly description: string;
  readonly recommendation: string;
}
export interface WeaveDissent {
  readonly label: string;
  readonly reason: string;
}

export interface WeaveFinding {
  readonly issue_id: string;
  readonly title: string;
  readonly file: string | null;
  readonly line: number | null;
  readonly verification: Verification;
  readonly verification_note: string;
  readonly agree: readonly WeaveAgreement[];
  readonly dissent: readonly WeaveDissent[];
  readonly silent: readonly string[];
  readonly agree_count: number;
  readonly lanes: number;
  readonly level: ConsensusLevel;
  readonly tag: string;
  readonly reported_severity: WeaveSeverity;
  readonly final_severity: WeaveSeverity;
  readonly promoted: boolean;
  /** Listed under Reviewer Disagreements (every split finding, and any finding a lane dissents from). */
  readonly in_disagreements: boolean;
}

export interface WeaveResult {
  readonly protocol: 'weave';
  /** M: lanes that produced output. */
  readonly lanes: number;
  readonly label_map: LabelMap;
  readonly unavailable: readonly { readonly participant: string; readonly failure: string }[];
  /** Findings in report order (severity band, then the seed's consensus/verification order). */
  readonly findings: readonly WeaveFinding[];
  /** Claims verification found false: stripped from the findings, kept visible here. */
  readonly refuted: readonly WeaveFinding[];
  readonly disagreement_ids: readonly string[];
}

export function adjudicateWeave(value: unknown, labelSeed: Uint8Array): WeaveResult {
  const input = parseOrFail(WeaveInputSchema, value, 'weave_input_invalid');
  if (new Set(input.lanes.map((l) => l.participant)).size !== input.lanes.length) fail('weave_participant_duplicate', ['lanes']);
  const ok = input.lanes.flatMap((l) => (l.status === 'ok' ? [l] : []));
  // Seed Execution Strategy: a lane that failed after retries is "unavailable for this pass"; the
  // synthesis needs at least one output.
  if (ok.length === 0) fail('weave_no_participants', ['lanes']);
  const labelMap = assignBlindLabels(ok.map((l) => l.participant), labelSeed);
  const labelOf = new Map(Object.entries(labelMap).map(([label, p]) => [p, label]));
  const labels = Object.keys(labelMap).sort();
  const M = labels.length;

  const issues = new Map(input.issues.map((i) => [i.issue_id, i]));
  if (issues.size !== input.issues.length) fail('weave_input_invalid', ['issues']);
  const agreeBy = new Map<string, WeaveAgreement[]>();
  const dissentBy = new Map<string, WeaveDissent[]>();
  for (const lane of ok) {
    const label = labelOf.get(lane.participant) as string;
    const seen = new Set<string>();
    const take = (issueId: string): void => {
      if (!issues.has(issueId)) fail('weave_issue_unknown', [label, issueId]);
      // One lane, one position per issue: agree, dissent or silent (seed consensus map).
      if (seen.has(issueId)) fail('weave_position_conflict', [label, issueId]);
      seen.add(issueId);
    };
    for (const f of lane.findings) {
      take(f.issue_id);
      const list = agreeBy.get(f.issue_id) ?? [];
      list.push({ label, severity: f.severity, description: f.description, recommendation: f.recommendation });
      agreeBy.set(f.issue_id, list);
    }
    for (const d of lane.dissents) {
      take(d.issue_id);
      const list = dissentBy.get(d.issue_id) ?? [];
      list.push({ label, reason: d.reason });
      dissentBy.set(d.issue_id, list);
    }
  }

  const byLabel = <T extends { label: string }>(a: T, b: T): number => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0);
  const all = input.issues.map((issue): WeaveFinding => {
    const agree = (agreeBy.get(issue.issue_id) ?? []).sort(byLabel);
    const dissent = (dissentBy.get(issue.issue_id) ?? []).sort(byLabel);
    if (agree.length === 0) fail('weave_issue_unreported', [issue.issue_id]);
    const silent = labels.filter((l) => !agree.some((a) => a.label === l) && !dissent.some((d) => d.label === l));
    const level = consensusLevel(agree.length, dissent.length, M);
    const reported = strongestSeverity(agree.map((a) => a.severity));
    const final = promoteByConsensus(reported, agree.length);
    return {
      issue_id: issue.issue_id, title: issue.title, file: issue.file, line: issue.line,
      verification: issue.verification, verification_note: issue.verification_note,
      agree, dissent, silent, agree_count: agree.length, lanes: M, level, tag: consensusTag(level, agree.length, M),
      reported_severity: reported, final_severity: final, promoted: final !== reported,
      // Seed: split findings "MUST appear under Reviewer Disagreements with both positions — never
      // dropped"; Phase 6 also flags any finding one model calls fine and another a bug.
      in_disagreements: level === 'split' || dissent.length > 0,
    };
  });

  const order = (a: WeaveFinding, b: WeaveFinding): number =>
    WEAVE_SEVERITIES.indexOf(a.final_severity) - WEAVE_SEVERITIES.indexOf(b.final_severity) ||
    orderingRank(a.level, a.verification === 'verified') - orderingRank(b.level, b.verification === 'verified') ||
    b.agree_count - a.agree_count ||
    (a.issue_id < b.issue_id ? -1 : a.issue_id > b.issue_id ? 1 : 0);
  const sorted = [...all].sort(order);
  // Step 4 "strip unverified claims": claims verification showed false leave the findings list,
  // but stay in the report (a security tool never drops a reviewer's claim silently).
  const findings = sorted.filter((f) => f.verification !== 'false');
  const refuted = sorted.filter((f) => f.verification === 'false');
  return {
    protocol: 'weave',
    lanes: M,
    label_map: labelMap,
    unavailable: input.lanes.flatMap((l) => (l.status === 'failed' ? [{ participant: l.participant, failure: l.failure }] : [])),
    findings,
    refuted,
    disagreement_ids: sorted.filter((f) => f.in_disagreements).map((f) => f.issue_id),
  };
}
