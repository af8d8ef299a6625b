// The tsc mapper: see ./mappers.ts for the rule table (docs/reviewers.md#check-reviewers).
import { parseTscOutput } from '../../adapters/tsc.js';
import type { Finding } from '../coverage/findings.js';
import type { CheckInputs } from './bundle.js';
import type { RefMap } from './refs.js';
import { checkFinding, EXIT, NoVerdict, type CommandResult } from './run.js';

export function mapTsc(r: CommandResult, inputs: CheckInputs, refs: RefMap): Finding[] {
  const report = parseTscOutput(r.stdout, inputs.snapshot);
  if (report.tool_errors > 0) throw new NoVerdict(EXIT.unparsable);
  if (r.status === 0) {
    if (report.diagnostics.length > 0) throw new NoVerdict(EXIT.unparsable);
    return [];
  }
  if (r.status !== 1 && r.status !== 2) throw new NoVerdict(EXIT.failed);
  if (report.diagnostics.length === 0) throw new NoVerdict(EXIT.failed);
  const files = new Set(report.diagnostics.map((d) => d.file));
  return [...files].map((f) => checkFinding('correctness', 'HIGH', refs.refsFor(f)));
}
