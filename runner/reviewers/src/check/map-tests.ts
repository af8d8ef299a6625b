// The tests mapper: see ./mappers.ts for the rule table (docs/reviewers.md#check-reviewers).
import type { Finding } from '../coverage/findings.js';
import type { CheckInputs } from './bundle.js';
import type { RefMap } from './refs.js';
import { checkFinding, EXIT, NoVerdict, type CommandResult } from './run.js';
import { parseTap } from './tap.js';

export function mapTests(r: CommandResult, inputs: CheckInputs, refs: RefMap): Finding[] {
  if (inputs.report === 'exit-code') {
    if (r.status === 0) return [];
    if (r.status === 1) return [checkFinding('correctness', 'HIGH', refs.refsFor(null))];
    throw new NoVerdict(EXIT.failed);
  }
  const tap = parseTap(r.stdout, inputs.snapshot);
  if (!tap.version || tap.bailedOut) throw new NoVerdict(r.status === 0 ? EXIT.unparsable : EXIT.failed);
  if (r.status === 0) {
    if (tap.failures.length > 0 || tap.points === 0 || tap.plan === null || tap.plan !== tap.points) throw new NoVerdict(EXIT.unparsable);
    return [];
  }
  if (tap.failures.length === 0) throw new NoVerdict(EXIT.failed);
  return tap.failures.map((f) => checkFinding('correctness', 'HIGH', refs.refsFor(f.file)));
}
