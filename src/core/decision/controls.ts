// governed's registry of implemented controls (SPEC §13; seed preflight 8: procedure text never
// upgrades a pending control). A policy requiring a control that is not `implemented` here makes
// every unit REVIEW_ONLY with `control_pending:<name>`.
//
// Flip an entry only in the change that lands the control together with its acceptance tests:
// - deploy_gate: implemented with `governed gate` and its signed decision (issue 5 items 4-5);
//   pending until that command and its acceptance tests exist.
// - real_entry_probes, vendor_origin_attestation, incident_history: implemented with preservation.
// - cross_role_comparison, external_effect_gate: pending by SPEC §13.
import type { ControlName, ControlRegistry } from './types.js';
import { CONTROL_NAMES } from './vocabulary.js';

export const CONTROL_REGISTRY: ControlRegistry = Object.freeze({
  deploy_gate: 'pending',
  real_entry_probes: 'pending',
  vendor_origin_attestation: 'pending',
  incident_history: 'pending',
  cross_role_comparison: 'pending',
  external_effect_gate: 'pending',
});

/** Required controls the registry does not mark `implemented`, in registry order. Names outside
 * the vocabulary never reach here: a loaded policy is schema-checked against KNOWN_CONTROLS and
 * the input check refuses anything else. */
export function pendingControls(required: readonly ControlName[], registry: ControlRegistry): ControlName[] {
  const wanted = new Set(required);
  return CONTROL_NAMES.filter((name) => wanted.has(name) && registry[name] !== 'implemented');
}
