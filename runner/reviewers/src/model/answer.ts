// Mapping a model's answer onto the closed review output (docs/reviewers.md
// "The model reviewer"): only closed codes and IDs of this view survive; every other key, free
// text, a path or an unknown ID is dropped and never printed. What cannot be mapped is an
// `Unusable` answer — the reviewer then exits non-zero with no stdout, so the run is ABORTED; an
// unusable answer is never turned into CLEAN.
import { FINDING_CLASSES, FINDING_CODES, SEVERITIES, finalizeFindings, type Finding } from '../coverage/findings.js';
import { REVIEW_MAX_REFS as MAX_REFS } from '../../../../src/core/limits.js';
import { compareUtf8 } from '../coverage/canonical.js';

export class Unusable extends Error {
  constructor(readonly reason: 'no_json' | 'shape' | 'verdict' | 'no_valid_findings' | 'clean_with_findings') {
    super(reason);
  }
}

/** The one JSON object of an answer: the whole text, or the text inside one ``` fence, or from the first `{` to the last `}`. */
export function extractJson(text: string): unknown {
  const candidates: string[] = [text.trim()];
  const fence = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  if (fence !== null) candidates.push((fence[1] as string).trim());
  const first = text.indexOf('{');
  const last = text.lastIndexOf('}');
  if (first >= 0 && last > first) candidates.push(text.slice(first, last + 1));
  for (const c of candidates) {
    try {
      const v: unknown = JSON.parse(c);
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v;
    } catch {
      // next candidate
    }
  }
  throw new Unusable('no_json');
}

const isIn = <T extends string>(list: readonly T[], v: unknown): v is T => typeof v === 'string' && (list as readonly string[]).includes(v);

/**
 * The answer's findings restricted to the closed vocabulary and the view's IDs. A finding with an
 * unknown code, class or severity is dropped; refs that are not IDs of the view are dropped, and a
 * finding left without refs is dropped. DIRTY with nothing left, CLEAN with findings, or any other
 * verdict is `Unusable`.
 */
export function mapAnswer(answer: unknown, visible: ReadonlySet<string>): { verdict: 'CLEAN' | 'DIRTY'; findings: Finding[] } {
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) throw new Unusable('shape');
  const a = answer as Record<string, unknown>;
  const verdict = a.verdict;
  if (verdict !== 'CLEAN' && verdict !== 'DIRTY') throw new Unusable('verdict');
  const raw = a.findings === undefined ? [] : a.findings;
  if (!Array.isArray(raw)) throw new Unusable('shape');
  const kept: Finding[] = [];
  for (const f of raw.slice(0, 256)) {
    if (f === null || typeof f !== 'object') continue;
    const o = f as Record<string, unknown>;
    if (!isIn(FINDING_CODES, o.code) || !isIn(FINDING_CLASSES, o.class) || !isIn(SEVERITIES, o.severity) || !Array.isArray(o.refs)) continue;
    const refs = [...new Set(o.refs.filter((r): r is string => typeof r === 'string' && visible.has(r)))].sort(compareUtf8).slice(0, MAX_REFS);
    if (refs.length === 0) continue;
    kept.push({ code: o.code, class: o.class, severity: o.severity, refs });
  }
  if (verdict === 'CLEAN') {
    if (raw.length > 0) throw new Unusable('clean_with_findings');
    return { verdict, findings: [] };
  }
  const findings = finalizeFindings(kept, visible);
  if (findings.length === 0) throw new Unusable('no_valid_findings');
  return { verdict, findings };
}
