// The text_fallback parse strategy (docs/review-pass-protocol.md#output-parsing-rules "Fallback: extract structured findings from
// freeform text") over the mandatory output format of docs/review-pass-protocol.md#reviewer-output-format:
//
//   ### Files Read
//   - `path/to/exact-file`
//   ### Findings
//   - `file:line [CRITICAL|HIGH|MEDIUM|LOW|INFO] [correctness|preservation|scope|authority|release] REQ-ID — description`
//   or NONE
//   ### REQ-ID Coverage
//   - REQ-001: COVERED (path/to/file:symbol_name)   |  - REQ-002: NOT FOUND  |  ALL COVERED  |  N/A
//   ### Verdict
//   CLEAN | FOUND_ISSUES | VETO
//
// Incomplete findings (governed's reading of docs/review-pass-protocol.md#finding-schema, docs/review-pass-protocol.md#output-parsing-rules, where every field but line/symbol/REQ-ID is
// mandatory):
//   - REJECTED (not a finding; counted in `rejected_findings`): no file location, no severity tag or an
//     unknown one, an unknown class tag, or an empty description. Such a line cannot be grouped (docs/review-pass-protocol.md#grouping
//     groups by file) or classified (docs/review-pass-protocol.md#classification needs the severity).
//   - DOWNGRADED (kept, `class_missing`): the class tag is absent. The finding is recorded as
//     `correctness` and is never AUTO_DISMISSED (classify-group.ts), because nothing proves it is not
//     a veto class; a missing tag can therefore neither create a veto nor be silently dropped.
//   - `file` alone (no `:line`/`:symbol`) is a file-level finding (line null), as docs/review-pass-protocol.md#finding-schema allows; it
//     only lowers the specificity signal of the health score (docs/review-pass-protocol.md#health-score).
// When no `### Findings` section exists, every line of the text is scanned for the finding pattern
// (docs/review-pass-protocol.md#output-parsing-rules "Match lines containing file:line [SEVERITY] patterns"); non-matching lines are ignored there.
// When neither a section nor a finding line exists, `structured` is false (docs/review-pass-protocol.md#output-parsing-rules → health LOW).
import { FINDING_CLASSES, SEVERITIES, makeFinding, VERDICTS } from './finding.js';
import type { AdjudicableFinding, FindingClass, ReviewerVerdict, Severity } from './finding.js';
import {
  isExactReadPath,
  type ParsedReviewerOutput,
  type ReqCoverageEntry,
  type ReqCoverageReport,
} from './reviewer-output.js';

type Section = 'files_read' | 'findings' | 'req_coverage' | 'verdict';

const HEADER = /^#{2,4}\s+(.+?)\s*#*\s*$/;
const REQ_ID = /\bREQ-\d+\b/;
// file-location  [SEV]  optional [class]  rest
const FINDING_LINE = /^(?<loc>[^\s[\]]+)\s+\[(?<sev>[A-Za-z_]+)\](?:\s*\[(?<cls>[A-Za-z_]+)\])?(?<rest>.*)$/;
const DASHES = /^\s*(?:[—–]|-{1,2}|:)\s*/;

function sectionOf(title: string): Section | null {
  const t = title.toLowerCase().replace(/[`*]/g, '').trim();
  if (t === 'files read') return 'files_read';
  if (t === 'findings') return 'findings';
  if (t === 'req-id coverage' || t === 'req id coverage') return 'req_coverage';
  if (t === 'verdict') return 'verdict';
  return null;
}

/** Strip a list bullet and the backticks/bold markers that wrap an entry. */
function bulletBody(line: string): string | null {
  const m = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line);
  if (!m || m[1] === undefined) return null;
  return unwrap(m[1]);
}

function unwrap(s: string): string {
  let t = s.trim();
  for (;;) {
    const before = t;
    if (t.length >= 2 && t.startsWith('`') && t.endsWith('`')) t = t.slice(1, -1).trim();
    if (t.length >= 4 && t.startsWith('**') && t.endsWith('**')) t = t.slice(2, -2).trim();
    if (t === before) return t;
  }
}

/** `file:line`, `file:symbol` or `file` → its parts; null when there is no usable file part. */
export function parseLocation(loc: string): { file: string; line: number | null; symbol: string | null } | null {
  const idx = loc.lastIndexOf(':');
  if (idx < 0) return loc.length > 0 ? { file: loc, line: null, symbol: null } : null;
  const file = loc.slice(0, idx);
  const tail = loc.slice(idx + 1);
  if (file.length === 0 || tail.length === 0) return null;
  if (/^\d+$/.test(tail)) {
    const line = Number(tail);
    if (!Number.isSafeInteger(line) || line < 1) return null;
    return { file, line, symbol: null };
  }
  if (/^[A-Za-z_$][\w$.#]*$/.test(tail)) return { file, line: null, symbol: tail };
  return null;
}

type LineParse =
  | { kind: 'finding'; finding: AdjudicableFinding }
  | { kind: 'rejected' }
  | { kind: 'not_a_finding' };

/** Parse one finding entry (already stripped of bullet and backticks). */
export function parseFindingEntry(reviewer: string, entry: string): LineParse {
  const m = FINDING_LINE.exec(entry);
  if (!m || !m.groups) return { kind: 'not_a_finding' };
  const { loc = '', sev = '', cls, rest = '' } = m.groups;
  const location = parseLocation(loc);
  const severity = sev.toUpperCase();
  if (!location || !(SEVERITIES as readonly string[]).includes(severity)) return { kind: 'rejected' };
  let findingClass: FindingClass = 'correctness';
  let classMissing = true;
  if (cls !== undefined) {
    const c = cls.toLowerCase();
    if (!(FINDING_CLASSES as readonly string[]).includes(c)) return { kind: 'rejected' };
    findingClass = c as FindingClass;
    classMissing = false;
  }
  let text = rest.trim();
  let reqId: string | null = null;
  const lead = /^(REQ-\d+)\b/.exec(text);
  if (lead && lead[1] !== undefined) {
    reqId = lead[1];
    text = text.slice(lead[1].length);
  }
  text = text.replace(DASHES, '').trim();
  if (reqId === null) {
    // docs/review-pass-protocol.md#output-parsing-rules "Extract REQ-ID references (REQ-\d+)" anywhere in the description.
    const any = REQ_ID.exec(text);
    if (any) reqId = any[0];
  }
  if (text.length === 0) return { kind: 'rejected' };
  return {
    kind: 'finding',
    finding: makeFinding({
      file: location.file,
      line: location.line,
      symbol: location.symbol,
      severity: severity as Severity,
      finding_class: findingClass,
      req_id: reqId,
      description: text,
      reviewer,
      class_missing: classMissing,
    }),
  };
}

function parseCoverage(lines: readonly string[]): ReqCoverageReport | null {
  const entries: ReqCoverageEntry[] = [];
  let allCovered = false;
  let notApplicable = false;
  let seen = false;
  for (const raw of lines) {
    const body = bulletBody(raw) ?? unwrap(raw);
    if (body.length === 0) continue;
    seen = true;
    const upper = body.toUpperCase();
    if (upper === 'ALL COVERED') {
      allCovered = true;
      continue;
    }
    if (upper === 'N/A' || upper === 'NA') {
      notApplicable = true;
      continue;
    }
    const m = /^(REQ-\d+)\s*:\s*(COVERED|NOT FOUND|NOT_FOUND|DEFERRED)\b\s*(?:\((.*)\))?/i.exec(body);
    if (!m || m[1] === undefined || m[2] === undefined) continue;
    const status = m[2].toUpperCase().replace(' ', '_') as ReqCoverageEntry['status'];
    entries.push({ req_id: m[1], status, location: status === 'COVERED' && m[3] ? unwrap(m[3]) : null });
  }
  return seen ? { all_covered: allCovered, not_applicable: notApplicable, entries } : null;
}

function parseVerdict(lines: readonly string[]): ReviewerVerdict | null {
  for (const raw of lines) {
    const body = unwrap(bulletBody(raw) ?? raw);
    if (body.length === 0) continue;
    return (VERDICTS as readonly string[]).includes(body) ? (body as ReviewerVerdict) : null;
  }
  return null;
}

export function parseTextReviewerOutput(reviewer: string, text: string): ParsedReviewerOutput {
  const sections = new Map<Section, string[]>();
  let current: Section | null = null;
  const allLines = text.split(/\r?\n/);
  for (const line of allLines) {
    const h = HEADER.exec(line);
    if (h && h[1] !== undefined) {
      current = sectionOf(h[1]);
      if (current !== null && !sections.has(current)) sections.set(current, []);
      continue;
    }
    if (current !== null) sections.get(current)?.push(line);
  }

  // Files Read (docs/review-pass-protocol.md#reviewer-output-format): one exact path per bullet.
  const filesRead: string[] = [];
  let filesRejected = 0;
  for (const line of sections.get('files_read') ?? []) {
    const body = bulletBody(line);
    if (body === null || body.length === 0) continue;
    if (isExactReadPath(body)) filesRead.push(body);
    else filesRejected++;
  }

  // Findings (docs/review-pass-protocol.md#reviewer-output-format format; docs/review-pass-protocol.md#output-parsing-rules fallback scan when the section is absent).
  const findings: AdjudicableFinding[] = [];
  let rejected = 0;
  const findingSection = sections.get('findings');
  if (findingSection !== undefined) {
    for (const line of findingSection) {
      const body = bulletBody(line);
      if (body === null) continue;
      if (body.toUpperCase() === 'NONE' || body.length === 0) continue;
      const r = parseFindingEntry(reviewer, body);
      if (r.kind === 'finding') findings.push(r.finding);
      else rejected++; // a bullet in the Findings section that is not a complete finding
    }
  } else {
    for (const line of allLines) {
      const body = bulletBody(line) ?? unwrap(line);
      const r = parseFindingEntry(reviewer, body);
      if (r.kind === 'finding') findings.push(r.finding);
      else if (r.kind === 'rejected') rejected++;
    }
  }

  const coverageLines = sections.get('req_coverage');
  const verdictLines = sections.get('verdict');
  const structured = sections.size > 0 || findings.length > 0;
  return {
    reviewer,
    strategy: 'text_fallback',
    structured,
    files_read: filesRead,
    read_evidence: filesRead.length > 0,
    files_read_rejected: filesRejected,
    findings,
    rejected_findings: rejected,
    downgraded_findings: findings.filter((f) => f.class_missing).length,
    req_coverage: coverageLines === undefined ? null : parseCoverage(coverageLines),
    verdict: verdictLines === undefined ? null : parseVerdict(verdictLines),
  };
}
