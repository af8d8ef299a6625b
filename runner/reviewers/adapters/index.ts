// Real-tool reviewer adapters (non-governed mode): raw tool output → a neutral ToolReport.
export { parseTscOutput } from './tsc.js';
export { parseEslintJson } from './eslint.js';
export { repoRelative, type ToolDiagnostic, type ToolReport, type ToolName, type DiagnosticLevel } from './tool-report.js';
