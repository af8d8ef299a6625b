// The ESLint mapper: see ./mappers.ts for the rule table (docs/reviewers.md#check-reviewers).
import { parseEslintJson } from '../../adapters/eslint.js';
import type { Finding } from '../coverage/findings.js';
import type { CheckInputs } from './bundle.js';
import type { RefMap } from './refs.js';
import { checkFinding, EXIT, NoVerdict, type CommandResult } from './run.js';

export function mapEslint(r: CommandResult, inputs: CheckInputs, refs: RefMap): Finding[] {
  if (r.status !== 0 && r.status !== 1) throw new NoVerdict(EXIT.failed);
  const report = parseEslintJson(r.stdout, inputs.snapshot);
  if (report === null || report.tool_errors > 0) throw new NoVerdict(EXIT.unparsable);
  const errors = report.diagnostics.filter((d) => d.level !== 'warning');
  if (r.status === 0) {
    if (errors.length > 0) throw new NoVerdict(EXIT.unparsable);
    return [];
  }
  if (errors.length === 0) throw new NoVerdict(EXIT.unparsable);
  return errors.map((d) => (d.level === 'fatal' ? checkFinding('correctness', 'HIGH', refs.refsFor(d.file)) : checkFinding('other', 'MEDIUM', refs.refsFor(d.file))));
}
