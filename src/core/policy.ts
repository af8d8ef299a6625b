// The policy (docs/policy.md#policy-and-trust-root): strict, closed, one clear error per field. Its digest is pinned at init
// and bound into every challenge and receipt. Its one definition is ./policy-schema.ts, read here
// through its compiled form (docs/architecture.md#compiled-formats). Pure: callers pass the parsed value.
import { fail } from './errors.js';
import { STAGES } from './receipt-predicate.js';
import { CHECK_REPORTS, KNOWN_CONTROLS } from './review-vocabulary.js';
import type { EgressPolicy } from './egress-schema.js';
import { policyFromDocument, ROLES } from './policy-rules.js';
import { checkFormat } from './format/interpret.js';
import { POLICY } from './format/compiled.js';
import { formatOf } from './format/node.js';
import type { CheckConfig, PolicyDocument } from './policy-schema.js';
export type { CheckConfig, PolicyDocument } from './policy-schema.js';

export { ROLES, ROLE_STAGES } from './policy-rules.js';
export type Role = (typeof ROLES)[number];
export type Stage = (typeof STAGES)[number];

/** Control names a policy may require (./review-vocabulary.ts). */
export { KNOWN_CONTROLS };

/** The report format a check command prints (./review-vocabulary.ts). */
export { CHECK_REPORTS };

const POLICY_FORMAT = /* @__PURE__ */ formatOf<PolicyDocument>(POLICY);

/** The program file a policy reviewer runs: its check adapter, or its own name. */
export function reviewerProgramName(r: { readonly name: string; readonly check?: { readonly adapter?: string | undefined } | undefined }): string {
  return r.check?.adapter ?? r.name;
}

export interface Policy {
  readonly doc: PolicyDocument;
  /** sha256 over the RFC 8785 form of the parsed document (docs/threat-model.md#rules-that-hold-everywhere): YAML and JSON agree. */
  readonly digest: string;
  readonly challengeTtlSeconds: number;
  readonly reuseWindowSeconds: number | null;
  readonly sandboxTimeoutSeconds: number;
  readonly sandboxMemoryBytes: number;
  readonly maxOutputBytes: number;
  readonly maxBundleBytes: number;
}

/**
 * Validate a parsed policy. Schema failures are `policy_invalid` with the field paths; then the
 * cross-field rules of ./policy-rules.ts (shared with the lean loader), each with its own code.
 */
export function loadPolicy(value: unknown): Policy {
  const parsed = checkFormat(POLICY_FORMAT, value);
  if (!parsed.success) fail('policy_invalid', parsed.paths);
  return policyFromDocument(parsed.data);
}

/** The reviewer the policy assigns to a stage's slot (the caller never picks it, docs/decision.md#the-rules-in-short). */
export function reviewerForSlot(
  policy: Policy,
  stage: Stage,
  slot: string,
): { name: string; sha256: string; interpreter: string; env: Record<string, string>; egress?: EgressPolicy | undefined; check?: CheckConfig | undefined } {
  const s = policy.doc.stages[stage];
  if (s === undefined) fail('stage_not_in_policy', [stage]);
  const reviewer = Object.prototype.hasOwnProperty.call(s.slots, slot) ? s.slots[slot] : undefined;
  if (reviewer === undefined) fail('slot_unknown', [`${stage}.${slot}`]);
  const r = policy.doc.reviewers[reviewer];
  if (r === undefined) fail('policy_reviewer_unknown', [`${stage}.${slot}`]);
  return { name: reviewer, ...r };
}
