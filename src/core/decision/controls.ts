// governed's registry of implemented controls (docs/policy.md#policy-and-trust-root: procedure text never
// upgrades a pending control). A policy requiring a control that is not `implemented` here makes
// every unit REVIEW_ONLY with `control_pending:<name>`.
//
// Flip an entry only in the change that lands the control together with its acceptance tests:
// - deploy_gate: implemented by `governed gate` and its signed decision (docs/gate.md#3-the-signed-decision---attest-file;
//   docs/decision.md#8-delivery-state-and-reason-codes, docs/policy.md#policy-and-trust-root): deploy automation runs `gate` with its own trust root, policy digest and subject,
//   and may require the gate's signed VSA. Acceptance tests: test/gate-story.test.ts (a complete
//   story reaches RELEASE_ELIGIBLE under `controls: [deploy_gate]`), test/gate-refusals.test.ts
//   (never exit 0 on an error path), test/gate-attest.test.ts (the signed decision).
// - real_entry_probes: implemented by `preservation probe` (docs/preservation.md#probes): the allowlisted
//   adapter runs each surface's real entry in the check sandbox on a sealed snapshot, its result signed
//   by the probe credential (attestor kind `probe`). Acceptance tests: test/preservation-product.test.ts
//   (real product, real bwrap: capability lost, stale snapshot, altered snapshot, non-allowlisted
//   adapter, hand-written probe JSON), test/preservation-gate.test.ts (at the gate, probe receipts under --trust).
// - vendor_origin_attestation: implemented by `preservation vendor-attest` (docs/preservation.md#vendor-sources):
//   the origin tree digest computed from the origin repository's own objects; the local copy refused.
//   Acceptance tests: test/preservation-product.test.ts (vendor tests), test/preservation-set.test.ts.
// - incident_history: implemented by the hash-chained history assembled from governed's own log
//   (docs/preservation.md#incident-history). Acceptance tests: test/preservation-set.test.ts
//   (none refused with incidents, corrections, an edited history detected), test/preservation-rules.test.ts.
// - cross_role_comparison, external_effect_gate: pending by docs/policy.md#policy-and-trust-root.
import type { ControlName, ControlRegistry } from './types.js';
import { CONTROL_NAMES } from './vocabulary.js';

export const CONTROL_REGISTRY: ControlRegistry = Object.freeze({
  deploy_gate: 'implemented',
  real_entry_probes: 'implemented',
  vendor_origin_attestation: 'implemented',
  incident_history: 'implemented',
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
