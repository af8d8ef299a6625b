// Opaque findings (docs/reviewers.md#reviewer-output): closed codes, classes and severities, 1–4 sorted unique refs that
// are IDs of the view, at most 32 per output, sorted and unique. Findings are ordered by the UTF-8
// bytes of their canonical JSON, the order the runner's parser (src/core/review-output.ts) and the
// receipt predicate check. When a bundle has more than 32 gaps the 32 most severe are kept (ties broken by that
// same order), so the verdict is DIRTY either way and the worst gaps are the ones reported.
import { canonicalJson, compareUtf8 } from './canonical.js';

// The closed vocabulary is shared with the runner's parser and the receipt schema (zod-free module,
// so the bundled reviewer stays small).
import { FINDING_CODES, FINDING_CLASSES, SEVERITIES } from '../../../../src/core/review-vocabulary.js';

export { FINDING_CODES, FINDING_CLASSES, SEVERITIES };
import { REVIEW_MAX_FINDINGS as MAX_FINDINGS } from '../../../../src/core/limits.js';
import { REVIEW_MAX_REFS as MAX_REFS } from '../../../../src/core/limits.js';

export interface Finding {
  readonly code: (typeof FINDING_CODES)[number];
  readonly class: (typeof FINDING_CLASSES)[number];
  readonly severity: (typeof SEVERITIES)[number];
  readonly refs: readonly string[];
}

/** A finding of this reviewer violates docs/reviewers.md#reviewer-output — a bug here, never the bundle's fault. */
export class InvalidFinding extends Error {
  constructor() {
    super('invalid_finding');
  }
}

export function finding(code: Finding['code'], cls: Finding['class'], severity: Finding['severity'], refs: readonly string[]): Finding {
  const sorted = [...new Set(refs)].sort(compareUtf8);
  if (sorted.length < 1 || sorted.length > MAX_REFS) throw new InvalidFinding();
  return { code, class: cls, severity, refs: sorted };
}

/**
 * The output list: every ref must be an ID of the view (`visible`, from its coverage object),
 * duplicates collapse, at most MAX_FINDINGS survive (most severe first), sorted by canonical text.
 */
export function finalizeFindings(all: readonly Finding[], visible: ReadonlySet<string>): Finding[] {
  for (const f of all) if (f.refs.some((r) => !visible.has(r))) throw new InvalidFinding();
  const byText = new Map<string, Finding>();
  for (const f of all) byText.set(canonicalJson(f), f);
  const rank = (f: Finding): number => SEVERITIES.indexOf(f.severity);
  const byCanonical = (a: Finding, b: Finding): number => compareUtf8(canonicalJson(a), canonicalJson(b));
  const kept = [...byText.values()].sort((a, b) => rank(a) - rank(b) || byCanonical(a, b)).slice(0, MAX_FINDINGS);
  return kept.sort(byCanonical);
}
