// The neutral form of a real tool's verdict (tsc, ESLint) before it is turned into the findings of
// one review protocol (src/flows/review-pass/tool-findings.ts). A diagnostic is an *observed* tool
// result — "a machine result proves only the observed failure, not an inferred cause"
// (two-pass-review.txt field notes) — so the protocols may count it as machine-verified.

export type ToolName = 'tsc' | 'eslint';
export type DiagnosticLevel = 'fatal' | 'error' | 'warning';

export interface ToolDiagnostic {
  /** Repository-relative path (no leading `./`, no `..`). */
  readonly file: string;
  readonly line: number | null;
  readonly column: number | null;
  /** `TS2322`, an ESLint rule id, or `parse-error` for an ESLint fatal message. */
  readonly code: string;
  /** The tool's message folded onto one line. */
  readonly message: string;
  readonly level: DiagnosticLevel;
}

export interface ToolReport {
  readonly tool: ToolName;
  /** Repository files the tool read (tsc `--listFiles`, ESLint's linted files), sorted, unique. */
  readonly files_read: readonly string[];
  /** Sorted by file, line, column, code. */
  readonly diagnostics: readonly ToolDiagnostic[];
  /**
   * Diagnostics the tool could not attach to a repository file (tsc configuration errors such as
   * TS5057, ESLint results outside the repository). A report with tool errors is not a usable
   * review: the tool did not check what it was asked to check.
   */
  readonly tool_errors: number;
}

/** `/repo/src/a.ts` or `src/a.ts` or `./src/a.ts` → `src/a.ts`; null for anything outside the repository. */
export function repoRelative(path: string, sandboxRepo: string): string | null {
  let p = path;
  if (p.startsWith('/')) {
    if (!p.startsWith(`${sandboxRepo}/`)) return null;
    p = p.slice(sandboxRepo.length + 1);
  }
  while (p.startsWith('./')) p = p.slice(2);
  if (p.length === 0 || p.includes('\0') || p.includes('\\')) return null;
  if (p.split('/').some((c) => c === '' || c === '.' || c === '..')) return null;
  return p;
}

export function oneLine(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

export function sortDiagnostics(ds: readonly ToolDiagnostic[]): ToolDiagnostic[] {
  const key = (d: ToolDiagnostic): [string, number, number, string, string] => [
    d.file,
    d.line ?? Number.MAX_SAFE_INTEGER,
    d.column ?? Number.MAX_SAFE_INTEGER,
    d.code,
    d.message,
  ];
  return [...ds].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    for (let i = 0; i < ka.length; i++) {
      const x = ka[i] as string | number;
      const y = kb[i] as string | number;
      if (x < y) return -1;
      if (x > y) return 1;
    }
    return 0;
  });
}
