// A check adapter's view of its bundle (docs/reviewers.md#check-reviewers): the review bundle of
// the slot plus the top-level `check` object the runner adds for a check slot — the command the
// policy fixes, the sealed snapshot's path, the dependency root the challenge bound, the report
// format and the adapter's time budget. Read by the coverage reviewer's one reader
// (../coverage/bundle.ts `parseBundle`: governed's zod/mini `bundleSchema`, whose `check` is
// `checkInputsSchema`, and `bundleRuleViolation`, bundled into this file); this module only
// requires the `check` object to be there. Anything else is `Malformed` (exit 65, no stdout).
import type { CheckInputs } from '../../../../src/core/bundle/schema.js';
import { COVERAGE_KINDS, parseBundle, viewOf, type Bundle } from '../coverage/bundle.js';
import { malformed } from '../coverage/shape.js';

export type { CheckInputs };

export interface CheckBundle {
  readonly bundle: Bundle;
  readonly check: CheckInputs;
  /** Every ID of the view (the coverage object's kinds). */
  readonly visible: ReadonlySet<string>;
}

export function readCheckBundle(bytes: Uint8Array): CheckBundle {
  const b = parseBundle(bytes);
  if (b.check === undefined) return malformed();
  const bundle = viewOf(b);
  return { bundle, check: b.check, visible: new Set(COVERAGE_KINDS.flatMap((k) => bundle.coverage[k])) };
}
