// The lead's deterministic steps for weave and simple-review (the seeds give them to an orchestrating
// model; governed does them by rule, so the same outputs always give the same result):
//   - cross-reference: two findings of different reviewers are "the same issue" when the
//     docs/review-pass-protocol.md#matching-rules matching rules say so (same file, and same symbol, line distance < 20, or
//     Jaccard > 0.5 on meaningful tokens) — weave "Cross-Reference and Deduplicate", simple
//     "same_issue" links;
//   - claim verification (weave Step 1, simple's bounded lead-side check), limited to what can be
//     checked without judgement: a finding whose file does not exist, or whose line lies beyond the
//     end of the file, is `false`; a finding observed by a real tool (tsc, ESLint) that the
//     orchestrator ran itself is `verified`; everything else stays `plausible-unverified` — the
//     lead never upgrades a model's claim it did not check.
import { groupFindings, makeFinding, matchRule, type AdjudicableFinding, type Severity } from '../../protocols/review-pass/index.js';
import { readRepoText } from './repo-files.js';

export interface LeadFinding {
  /** Reviewer (lane or slot) that reported it. */
  readonly reviewer: string;
  readonly file: string | null;
  readonly line: number | null;
  readonly severity: Severity;
  readonly description: string;
}

const GLOBAL_FILE = '(global)';

function asAdjudicable(f: LeadFinding): AdjudicableFinding {
  return makeFinding({
    file: f.file ?? GLOBAL_FILE,
    line: f.line,
    symbol: null,
    severity: f.severity,
    finding_class: 'correctness',
    req_id: null,
    description: f.description,
    reviewer: f.reviewer,
  });
}

/** Cross-reference findings into issues (connected components of the docs/review-pass-protocol.md#matching-rules matches), deterministic. */
export function crossReference<T extends LeadFinding>(findings: readonly T[]): T[][] {
  const adj = findings.map(asAdjudicable);
  const groups = groupFindings(adj);
  return groups.map((g) => g.members.map((m) => findings[adj.indexOf(m)] as T));
}

/** The same-issue test for one pair (different reviewers only). */
export function sameIssue(a: LeadFinding, b: LeadFinding): boolean {
  return matchRule(asAdjudicable(a), asAdjudicable(b)) !== null;
}

export type ClaimCheck =
  | { readonly verification: 'false'; readonly note: string }
  | { readonly verification: 'exists'; readonly note: string };

/** Does the place a finding points at exist in the repository? */
export function checkLocation(repoDir: string, file: string | null, line: number | null): ClaimCheck {
  if (file === null) return { verification: 'exists', note: 'global claim: no file to check' };
  const text = readRepoText(repoDir, file);
  if (text === null) return { verification: 'false', note: 'the referenced file does not exist in the repository' };
  if (line !== null && line > text.split('\n').length) {
    return { verification: 'false', note: 'the referenced line is beyond the end of the file' };
  }
  return { verification: 'exists', note: 'the referenced file and line exist' };
}

/** simple-review bounded check: every non-empty snippet line occurs in the file (after trimming). */
export function snippetOccurs(text: string, snippet: string): boolean {
  const fileLines = new Set(text.split('\n').map((l) => l.trim()));
  const wanted = snippet
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  return wanted.length > 0 && wanted.every((w) => fileLines.has(w) || text.includes(w));
}
