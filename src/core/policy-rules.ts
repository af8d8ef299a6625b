// The policy's cross-field rules and derived values (SPEC §13), without zod: ONE implementation for
// both loaders — `loadPolicy` (src/core/policy.ts, after its zod schema) and `loadPolicyLean`
// (src/core/lean/policy.ts, after its hand-written shape, on the gate's cold-start path). Each rule
// has its own code and names the offending stage/slot/credential, never a value. Pure.
import { digestOf } from './canonical.js';
import { STAGE_ORDER } from './decision/vocabulary.js';
import { parseDurationSeconds, parseSizeBytes } from './duration.js';
import { fail } from './errors.js';
import type { Policy, PolicyDocument, Stage } from './policy.js';

/** The four review roles (SPEC §7.1): the slots of planning and integration. */
export const ROLES = ['source_fidelity', 'baseline_preservation', 'implementation_test', 'authority_release'] as const;
/** Stages whose slots are the four roles and whose reviewers see role views (SPEC §7.1). */
export const ROLE_STAGES: ReadonlySet<Stage> = new Set(['planning', 'integration']);
/** The environment names a policy may never set for a reviewer (SPEC §7.3 fixed environment). */
const FIXED_ENV = new Set(['GOVERNED_BUNDLE', 'HOME', 'TMPDIR', 'PATH', 'LANG']);

/** Apply the cross-field rules to a document that passed the closed schema, and derive its values. */
export function policyFromDocument(doc: PolicyDocument): Policy {
  for (const stage of STAGE_ORDER) {
    const s = doc.stages[stage];
    if (s === undefined) continue;
    const slots = Object.keys(s.slots);
    if (slots.length === 0) fail('policy_invalid', [`stages.${stage}.slots`]);
    // Planning and integration slots are exactly the four roles (SPEC §7.1, §10.1).
    if (ROLE_STAGES.has(stage) && (slots.length !== ROLES.length || !ROLES.every((r) => slots.includes(r)))) {
      fail('policy_roles_incomplete', [`stages.${stage}`]);
    }
    for (const [slot, reviewer] of Object.entries(s.slots)) {
      if (!Object.prototype.hasOwnProperty.call(doc.reviewers, reviewer)) fail('policy_reviewer_unknown', [`stages.${stage}.slots.${slot}`]);
    }
  }
  // Integration requires the planning stage sealed (SPEC §10.1): a policy with integration needs planning.
  if (doc.stages.integration !== undefined && doc.stages.planning === undefined) fail('policy_invalid', ['stages.planning']);
  for (const [reviewer, r] of Object.entries(doc.reviewers)) {
    for (const k of Object.keys(r.env)) if (FIXED_ENV.has(k)) fail('policy_invalid', [`reviewers.${reviewer}.env`]);
  }
  // All credentials are distinct keys (SPEC §13).
  const ids = Object.values(doc.credentials).flatMap((c) => (c ? [c.key_id] : []));
  if (new Set(ids).size !== ids.length) fail('policy_credentials_not_distinct', ['credentials']);
  return {
    doc,
    digest: digestOf(doc),
    challengeTtlSeconds: parseDurationSeconds(doc.challenge_ttl, 'challenge_ttl'),
    reuseWindowSeconds: doc.reuse_window === undefined ? null : parseDurationSeconds(doc.reuse_window, 'reuse_window'),
    sandboxTimeoutSeconds: parseDurationSeconds(doc.sandbox.timeout, 'sandbox.timeout'),
    sandboxMemoryBytes: parseSizeBytes(doc.sandbox.memory, 'sandbox.memory'),
    maxOutputBytes: parseSizeBytes(doc.sandbox.max_output, 'sandbox.max_output'),
    maxBundleBytes: parseSizeBytes(doc.sandbox.max_bundle, 'sandbox.max_bundle'),
  };
}
