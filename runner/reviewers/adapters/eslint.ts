// Adapter for ESLint's `--format json` output (docs/review-pass-protocol.md#reviewer-invocation "adapter interface"). The output
// is an array of per-file results `{ filePath, messages: [{ ruleId, severity, message, line,
// column, fatal? }], ... }`; severity 2 is an error, 1 a warning, and `fatal: true` a file ESLint
// could not parse. Results also carry `source` (the file text) for files with messages: it is never
// read here, and the raw output is never echoed. ESLint adds fields between versions, so only the
// fields used are validated (closed where it matters: types of what is read).
import * as z from 'zod/mini';
import { oneLine, repoRelative, sortDiagnostics, type ToolDiagnostic, type ToolReport } from './tool-report.js';

const MessageSchema = z.object({
  ruleId: z.optional(z.nullable(z.string())),
  severity: z.union([z.literal(1), z.literal(2)]),
  message: z.string(),
  line: z.optional(z.int().check(z.gte(0))),
  column: z.optional(z.int().check(z.gte(0))),
  fatal: z.optional(z.boolean()),
});
const ResultSchema = z.object({ filePath: z.string(), messages: z.array(MessageSchema) });
const OutputSchema = z.array(ResultSchema);

/** Parse ESLint JSON; null when the output is not ESLint JSON at all (an unusable run). */
export function parseEslintJson(stdout: string, sandboxRepo: string): ToolReport | null {
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch {
    return null;
  }
  const parsed = OutputSchema.safeParse(value);
  if (!parsed.success) return null;
  const diagnostics: ToolDiagnostic[] = [];
  const files = new Set<string>();
  let toolErrors = 0;
  for (const r of parsed.data) {
    const file = repoRelative(r.filePath, sandboxRepo);
    if (file === null) {
      toolErrors++;
      continue;
    }
    files.add(file);
    for (const m of r.messages) {
      const fatal = m.fatal === true;
      const code = fatal ? 'parse-error' : (m.ruleId ?? 'eslint');
      diagnostics.push({
        file,
        line: m.line !== undefined && m.line > 0 ? m.line : null,
        column: m.column !== undefined && m.column > 0 ? m.column : null,
        code,
        message: `${code}: ${oneLine(m.message)}`,
        level: fatal ? 'fatal' : m.severity === 2 ? 'error' : 'warning',
      });
    }
  }
  return { tool: 'eslint', files_read: [...files].sort(), diagnostics: sortDiagnostics(diagnostics), tool_errors: toolErrors };
}
