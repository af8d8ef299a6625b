// Fixed vocabularies the decision rules iterate over, declared here so that the decision modules
// import no schema library at run time (lean gate path, docs/gate.md bench/gate). test/decision-purity
// checks each one equals its source of truth (receipt-predicate STAGES, policy KNOWN_CONTROLS).
import type { ControlName, Stage } from './types.js';

/** docs/overview.md#words stage order: the order stages are reported and their reasons listed. */
export const STAGE_ORDER: readonly Stage[] = ['planning', 'development', 'test', 'integration'];

/** Every control name a policy may require (docs/policy.md#policy-and-trust-root), in registry order. */
export const CONTROL_NAMES: readonly ControlName[] = [
  'deploy_gate',
  'real_entry_probes',
  'vendor_origin_attestation',
  'incident_history',
  'cross_role_comparison',
  'external_effect_gate',
];

/** The slot key used in reasons and maps: `stage.slot` (both are closed-alphabet names). */
export function slotKey(stage: Stage, slot: string): string {
  return `${stage}.${slot}`;
}
