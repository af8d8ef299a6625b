// Finding grouping and matching (docs/review-pass-protocol.md#grouping, docs/review-pass-protocol.md#matching-rules).
//
// docs/review-pass-protocol.md#grouping: findings are grouped by file path; within a file, findings of *different* reviewers are
// compared. docs/review-pass-protocol.md#matching-rules rules, in priority order (the first that holds names the match):
//   1. symbol  — both name the same function/class                     → MATCH
//   2. line    — line distance < 20                                     → MATCH candidate
//   3. keywords— Jaccard > 0.5 on meaningful tokens (shared/tokens.ts)  → MATCH candidate
//   4. none    — unique to one reviewer
// governed reads "candidate" as "joins the group": a matched group is then voted on by its number of
// distinct supporters (docs/review-pass-protocol.md#classification), which is where consensus is decided. Matching is transitive (connected
// components), so the groups do not depend on the order in which reviewers answered.
// Governed mode (docs/review-pass.md#review-protocols): findings with a match key match iff their keys are equal; the heuristics
// never apply to opaque data.
import { linesWithin } from '../shared/line-distance.js';
import { textSimilarity } from '../shared/tokens.js';
import { digestOfSet, stableDigest } from '../shared/stable-hash.js';
import { findingIdentity, maxSeverity, severityRank, type AdjudicableFinding, type FindingClass, type Severity } from './finding.js';

export const LINE_DISTANCE_LIMIT = 20; // docs/review-pass-protocol.md#the-line-distance-rule: "< 20 lines"
export const JACCARD_THRESHOLD = 0.5; // docs/review-pass-protocol.md#matching-rules rule 3: "> 0.5"

export type MatchRule = 'symbol' | 'line' | 'keywords' | 'match_key';

/** Which docs/review-pass-protocol.md#matching-rules rule makes two findings of one file match, or null. Same-reviewer pairs never match directly. */
export function matchRule(a: AdjudicableFinding, b: AdjudicableFinding): MatchRule | null {
  if (a.file !== b.file) return null;
  if (a.reviewer === b.reviewer) return null; // docs/review-pass-protocol.md#grouping "compare findings from different reviewers"
  if (a.match_key !== null || b.match_key !== null) {
    return a.match_key !== null && a.match_key === b.match_key ? 'match_key' : null;
  }
  if (a.symbol !== null && a.symbol === b.symbol) return 'symbol';
  if (linesWithin(a.line, b.line, LINE_DISTANCE_LIMIT)) return 'line';
  if (textSimilarity(a.description, b.description) > JACCARD_THRESHOLD) return 'keywords';
  return null;
}

export interface FindingGroup {
  /** Digest of the member finding ids: stable across runs and answer order. */
  readonly id: string;
  readonly file: string;
  readonly members: readonly AdjudicableFinding[];
  /** Distinct reviewers in the group (docs/review-pass-protocol.md#classification "supporters = count of unique reviewers"). */
  readonly supporters: readonly string[];
  /** The most severe member severity: a group is as serious as its most serious report (fail closed). */
  readonly severity: Severity;
  /** The class of the representative member. */
  readonly finding_class: FindingClass;
  /** True when any member is veto-shaped (docs/review-pass-protocol.md#classification: a veto needs only one supporter). */
  readonly veto: boolean;
  /** True when any member lost its class tag (parse-text-output.ts downgrade rule). */
  readonly class_missing: boolean;
  /** The member that represents the group in reports (veto first, then most severe, then id order). */
  readonly representative: AdjudicableFinding;
  readonly rules: readonly MatchRule[];
}

export function findingId(f: AdjudicableFinding): string {
  return stableDigest(findingIdentity(f));
}

/** docs/review-pass-protocol.md#grouping + docs/review-pass-protocol.md#matching-rules: partition findings into matched groups (connected components), deterministically. */
export function groupFindings(findings: readonly AdjudicableFinding[]): FindingGroup[] {
  const items = findings
    .map((f) => ({ f, id: findingId(f) }))
    .sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  const parent = items.map((_, i) => i);
  const find = (i: number): number => {
    let r = i;
    while (parent[r] !== r) r = parent[r] as number;
    let c = i;
    while (parent[c] !== r) {
      const next = parent[c] as number;
      parent[c] = r;
      c = next;
    }
    return r;
  };
  const rulesByRoot = new Map<number, Set<MatchRule>>();
  const pairRules: Array<[number, number, MatchRule]> = [];
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) {
      const a = items[i];
      const b = items[j];
      if (!a || !b) continue;
      const rule = matchRule(a.f, b.f);
      if (rule === null) continue;
      pairRules.push([i, j, rule]);
      const ri = find(i);
      const rj = find(j);
      if (ri !== rj) parent[Math.max(ri, rj)] = Math.min(ri, rj);
    }
  }
  for (const [i, , rule] of pairRules) {
    const r = find(i);
    const set = rulesByRoot.get(r) ?? new Set<MatchRule>();
    set.add(rule);
    rulesByRoot.set(r, set);
  }
  const byRoot = new Map<number, number[]>();
  for (let i = 0; i < items.length; i++) {
    const r = find(i);
    const list = byRoot.get(r) ?? [];
    list.push(i);
    byRoot.set(r, list);
  }
  const groups: FindingGroup[] = [];
  for (const [root, idxs] of byRoot) {
    const members = idxs.map((i) => (items[i] as { f: AdjudicableFinding }).f);
    const ids = idxs.map((i) => (items[i] as { id: string }).id);
    const representative = [...members].sort((a, b) => {
      if (a.veto !== b.veto) return a.veto ? -1 : 1;
      const s = severityRank(a.severity) - severityRank(b.severity);
      if (s !== 0) return s;
      const ia = findingId(a);
      const ib = findingId(b);
      return ia < ib ? -1 : ia > ib ? 1 : 0;
    })[0] as AdjudicableFinding;
    groups.push({
      id: digestOfSet(ids),
      file: representative.file,
      members,
      supporters: [...new Set(members.map((m) => m.reviewer))].sort(),
      severity: members.map((m) => m.severity).reduce(maxSeverity),
      finding_class: representative.finding_class,
      veto: members.some((m) => m.veto),
      class_missing: members.some((m) => m.class_missing),
      representative,
      rules: [...(rulesByRoot.get(root) ?? [])].sort(),
    });
  }
  return groups.sort(compareGroups);
}

/** Report order: file, then first line (file-level last), then id. */
export function compareGroups(a: FindingGroup, b: FindingGroup): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  const la = a.representative.line ?? Number.MAX_SAFE_INTEGER;
  const lb = b.representative.line ?? Number.MAX_SAFE_INTEGER;
  if (la !== lb) return la - lb;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
