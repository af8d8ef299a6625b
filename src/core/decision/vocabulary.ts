// The vocabularies the decision rules iterate over, typed for them: the very lists of
// ../review-vocabulary.ts (which imports nothing, so the decision modules still pull no schema
// library at run time, docs/gate.md#6-the-cold-gate-path). test/decision-purity checks they are
// the same objects.
import { KNOWN_CONTROLS, STAGES } from '../review-vocabulary.js';
import type { ControlName, Stage } from './types.js';

/** docs/overview.md#words stage order: the order stages are reported and their reasons listed. */
export const STAGE_ORDER: readonly Stage[] = STAGES;

/** Every control name a policy may require (docs/policy.md#policy-and-trust-root), in registry order. */
export const CONTROL_NAMES: readonly ControlName[] = KNOWN_CONTROLS;

/** The slot key used in reasons and maps: `stage.slot` (both are closed-alphabet names). */
export function slotKey(stage: Stage, slot: string): string {
  return `${stage}.${slot}`;
}
