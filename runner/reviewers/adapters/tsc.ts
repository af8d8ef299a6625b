// Adapter for `tsc --noEmit --pretty false [--listFiles]` (docs/review-pass-protocol.md#reviewer-invocation "adapter interface:
// parse(raw_output)"). The non-pretty format is one diagnostic per line:
//   src/a.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.
// followed by indented continuation lines of the message chain; a diagnostic without a file
// (`error TS5057: ...`) is a configuration error of the run. `--listFiles` adds one absolute path
// per line: the repository files among them are the tool's read evidence (docs/review-pass-protocol.md#health-score
// files_read); lib files outside the repository are ignored.
import { oneLine, repoRelative, sortDiagnostics, type ToolDiagnostic, type ToolReport } from './tool-report.js';

const LOCATED = /^(?<file>.+?)\((?<line>\d+),(?<col>\d+)\): (?<level>error|warning) (?<code>TS\d+): (?<msg>.*)$/;
const GLOBAL = /^(?<level>error|warning) (?<code>TS\d+): (?<msg>.*)$/;

export function parseTscOutput(stdout: string, sandboxRepo: string): ToolReport {
  const diagnostics: ToolDiagnostic[] = [];
  const files = new Set<string>();
  let toolErrors = 0;
  let last: { d: ToolDiagnostic; extra: string[] } | null = null;
  const flush = (): void => {
    if (last === null) return;
    diagnostics.push({ ...last.d, message: oneLine([last.d.message, ...last.extra].join(' ')) });
    last = null;
  };
  for (const raw of stdout.split(/\r?\n/)) {
    if (raw.length === 0) continue;
    if (last !== null && /^\s/.test(raw)) {
      (last as { extra: string[] }).extra.push(raw.trim());
      continue;
    }
    flush();
    const m = LOCATED.exec(raw);
    if (m?.groups) {
      const g = m.groups as Record<string, string>;
      const file = repoRelative(g.file as string, sandboxRepo);
      if (file === null) {
        toolErrors++;
        continue;
      }
      last = {
        d: {
          file,
          line: Number(g.line),
          column: Number(g.col),
          code: g.code as string,
          message: `${g.code}: ${g.msg}`,
          level: g.level === 'warning' ? 'warning' : 'error',
        },
        extra: [],
      };
      continue;
    }
    if (GLOBAL.test(raw)) {
      toolErrors++;
      continue;
    }
    // `--listFiles`: absolute paths, one per line. Anything else is ignored (never echoed).
    if (raw.startsWith('/')) {
      const rel = repoRelative(raw.trim(), sandboxRepo);
      if (rel !== null) files.add(rel);
    }
  }
  flush();
  for (const d of diagnostics) files.add(d.file);
  return { tool: 'tsc', files_read: [...files].sort(), diagnostics: sortDiagnostics(diagnostics), tool_errors: toolErrors };
}
