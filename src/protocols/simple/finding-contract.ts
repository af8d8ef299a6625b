// simple-review.txt "Finding Contract": every finding carries a location (file:line), a snippet of
// at most 6 lines, a verification method, a severity and a 1-2 line fix direction, and — for race,
// lifecycle, architecture, security, performance or multi-step plan claims — a concrete trigger or
// state sequence. "Mark limited evidence as *unverified*. Downgrade or reject findings that lack a
// location, snippet, verification, fix direction, or concrete example for a complex claim."
//
// The seed leaves "downgrade or reject" to judgment; governed fixes it deterministically:
// - no location → rejected (nothing can be checked or rebutted without a place to look);
// - two or more other gaps → rejected;
// - exactly one other gap → severity lowered one level and the finding marked limited evidence
//   (it can then only be ACCEPTED by an independent second report or a lead-side check).
import { COMPLEX_CLAIM_KINDS, SIMPLE_SEVERITIES, type SimpleFinding, type SimpleSeverity } from './schema.js';

export const MAX_SNIPPET_LINES = 6;
export const MAX_FIX_DIRECTION_LINES = 2;

export type Deficiency = 'location' | 'snippet' | 'verification' | 'fix_direction' | 'trigger';
export type ContractDisposition = 'complete' | 'downgraded' | 'rejected';

export interface ContractCheck {
  readonly deficiencies: readonly Deficiency[];
  readonly disposition: ContractDisposition;
  /** Severity after the contract rule (unchanged unless downgraded). */
  readonly severity: SimpleSeverity;
  readonly limited_evidence: boolean;
}

const blank = (s: string | null): boolean => s === null || s.trim() === '';
const lineCount = (s: string): number => s.replace(/\r\n?/gu, '\n').replace(/\n+$/u, '').split('\n').length;

export function lowerOneLevel(s: SimpleSeverity): SimpleSeverity {
  return SIMPLE_SEVERITIES[Math.min(SIMPLE_SEVERITIES.length - 1, SIMPLE_SEVERITIES.indexOf(s) + 1)] as SimpleSeverity;
}

export function deficienciesOf(f: SimpleFinding): Deficiency[] {
  const out: Deficiency[] = [];
  if (blank(f.file) || f.line === null) out.push('location');
  if (f.snippet === null || blank(f.snippet) || lineCount(f.snippet) > MAX_SNIPPET_LINES) out.push('snippet');
  if (f.verification === null || blank(f.verification.detail)) out.push('verification');
  // "a 1-2 line fix direction, not a full patch".
  if (f.fix_direction === null || blank(f.fix_direction) || lineCount(f.fix_direction) > MAX_FIX_DIRECTION_LINES) out.push('fix_direction');
  if ((COMPLEX_CLAIM_KINDS as readonly string[]).includes(f.claim_kind) && blank(f.trigger)) out.push('trigger');
  return out;
}

export function checkFindingContract(f: SimpleFinding): ContractCheck {
  const deficiencies = deficienciesOf(f);
  const others = deficiencies.filter((d) => d !== 'location').length;
  if (deficiencies.includes('location') || others >= 2) {
    return { deficiencies, disposition: 'rejected', severity: f.severity, limited_evidence: true };
  }
  if (others === 1) return { deficiencies, disposition: 'downgraded', severity: lowerOneLevel(f.severity), limited_evidence: true };
  return { deficiencies, disposition: 'complete', severity: f.severity, limited_evidence: false };
}
