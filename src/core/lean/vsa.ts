// The signed decision's predicate (SLSA VSA v1, src/core/vsa.ts) checked without zod, for the
// attestor program (docs/formats.md#attestors: the gate attestor is not blind, it signs only a statement that passes
// this schema and the cross-field rules). The shape has the same acceptance rule as
// `vsaPredicateSchema`, which stays the reference (test/lean-vsa.test.ts: valid predicates and
// hundreds of mutations); the cross-field rules below are the only implementation. Pure.
import type { VsaPredicate } from '../vsa.js';
import { arr, lit, obj, oneOf, str, union, isoSeconds, type Check } from './shape.js';

const VSA_VERIFIER_ID = 'https://governed.dev/gate/v1';
const RELEASE_LEVEL = 'GOVERNED_RELEASE_ELIGIBLE';
const DECISION_SCHEMA_VERSION = 1;

/**
 * The bounds of a VSA predicate, defined here once (src/core/vsa.ts builds its zod schema from them,
 * so the two cannot drift). Each is far above what the decision rules produce for a real unit (a
 * `slot_blocked` reason lists every standing block of a slot; a `veto_standing` reason lists its
 * receipt, its slot and every ref of up to 32 findings x 4 refs = 130 ids), and one reason at the
 * bound (4096 ids of <= 200 characters, < 1 MiB) still fits the attestor's 16 MiB request. What
 * the whole statement may weigh is `VSA_MAX_PAYLOAD_BYTES`; beyond any bound `gate --attest`
 * fails with a coded error and attests nothing (docs/gate.md §3 "Bounds").
 */
export const VSA_BOUNDS = { maxReasons: 4096, maxIdsPerReason: 4096, maxInputAttestations: 4096 } as const;
/**
 * The RFC 8785 bytes of a whole VSA statement, at most: its envelope (base64, 4/3) must fit the
 * 4 MiB `gate --export` reads back as vsa.json (src/flows/decide/export.ts) with room for the
 * signature frame, and the attestor request (base64 too) its 16 MiB.
 */
export const VSA_MAX_PAYLOAD_BYTES = 3 * 1024 * 1024 - 4096;

const hex64 = str({ re: /^[0-9a-f]{64}$/ });
const digest = str({ re: /^sha256:[0-9a-f]{64}$/ });
const gitId = str({ re: /^[0-9a-f]{40}$|^[0-9a-f]{64}$/ });
const INPUT_URI_RE = /^governed:(?:receipt:sha256:[0-9a-f]{64}|authority:REC-[0-9a-f]{24})$/;
const reasonCode = str({ re: /^[a-z][a-z0-9_]{0,63}(?::[a-z][a-z0-9_]{0,63})?$/ });
const reasonId = str({ re: /^[A-Za-z0-9][A-Za-z0-9._:>@-]{0,199}$/ });

/** `vsaPredicateSchema`, closed at every level. */
export const vsaPredicateShape: Check = obj({
  verifier: obj({ id: lit(VSA_VERIFIER_ID), version: obj({ governed: str({ re: /^\d+\.\d+\.\d+$/ }) }) }),
  timeVerified: isoSeconds,
  resourceUri: str({ re: /^git\+commit:(?:[0-9a-f]{40}|[0-9a-f]{64})$/ }),
  policy: obj({ uri: lit('https://governed.dev/policy'), digest: obj({ sha256: hex64 }) }),
  inputAttestations: arr(obj({ uri: str({ re: INPUT_URI_RE }), digest: obj({ sha256: hex64 }) }), 0, VSA_BOUNDS.maxInputAttestations),
  verificationResult: oneOf(['PASSED', 'FAILED']),
  verifiedLevels: arr(lit(RELEASE_LEVEL), 0, 1),
  slsaVersion: lit('1.0'),
  governed: obj({
    decision_schema: lit(DECISION_SCHEMA_VERSION),
    unit: str({ re: /^UNIT-[0-9a-f]{32}$/ }),
    state: oneOf(['RELEASE_ELIGIBLE', 'REVIEW_ONLY']),
    reasons: arr(obj({ code: reasonCode, ids: arr(reasonId, 0, VSA_BOUNDS.maxIdsPerReason) }), 0, VSA_BOUNDS.maxReasons),
    trust_mode: oneOf(['co-located', 'separated']),
    policy_digest: digest,
    trust_digest: digest,
    gate_trust_digest: digest,
    subject: obj({ commit: gitId, manifest_digest: digest }),
    current: obj({ planning_state_digest: digest, content_digest: digest, work_state_digest: digest }),
    preservation_waiver: union(lit(null), str({ min: 1, max: 500 })),
    attestor_sha256: hex64,
  }),
});

/**
 * The first count bound of `VSA_BOUNDS` a predicate of the right shape exceeds (its field path), or
 * null. Lets the gate tell "this decision is too large to attest" (a coded refusal) from "this
 * statement is malformed" (a bug) before anything is signed.
 */
export function vsaBoundExceeded(p: {
  readonly inputAttestations: readonly unknown[];
  readonly governed: { readonly reasons: readonly { readonly ids: readonly unknown[] }[] };
}): string | null {
  if (p.inputAttestations.length > VSA_BOUNDS.maxInputAttestations) return 'inputAttestations';
  if (p.governed.reasons.length > VSA_BOUNDS.maxReasons) return 'governed.reasons';
  if (p.governed.reasons.some((r) => r.ids.length > VSA_BOUNDS.maxIdsPerReason)) return 'governed.reasons.ids';
  return null;
}

/**
 * Cross-field rules of a VSA statement whose predicate passed the schema (`vsaPredicateSchema`) or
 * `vsaPredicateShape`: the outcome fields agree with each other, the subject is the commit content
 * the predicate names, the policy digest is the one named twice, inputs are sorted and unique.
 * Returns the first broken field, or null. The one implementation (src/core/vsa.ts re-exports it).
 */
export function vsaRuleViolation(statement: { subject: readonly { name: string; digest: { sha256: string } }[]; predicate: VsaPredicate }): string | null {
  const p = statement.predicate;
  const g = p.governed;
  const eligible = g.state === 'RELEASE_ELIGIBLE';
  if ((p.verificationResult === 'PASSED') !== eligible) return 'verificationResult';
  if (eligible !== (g.reasons.length === 0)) return 'governed.reasons';
  if (p.verifiedLevels.length !== (eligible ? 1 : 0)) return 'verifiedLevels';
  if (p.resourceUri !== `git+commit:${g.subject.commit}`) return 'resourceUri';
  if (`sha256:${p.policy.digest.sha256}` !== g.policy_digest) return 'policy';
  const [subject, ...rest] = statement.subject;
  if (subject === undefined || rest.length > 0 || subject.name !== 'workspace' || `sha256:${subject.digest.sha256}` !== g.subject.manifest_digest) {
    return 'subject';
  }
  for (let i = 1; i < p.inputAttestations.length; i++) {
    if (!((p.inputAttestations[i - 1]?.uri as string) < (p.inputAttestations[i]?.uri as string))) return 'inputAttestations';
  }
  for (const a of p.inputAttestations) {
    if (a.uri.startsWith('governed:receipt:') && a.uri !== `governed:receipt:sha256:${a.digest.sha256}`) return 'inputAttestations';
  }
  return null;
}

/** The constants the VSA builder uses, exported for the test that pins them to src/core/vsa.ts. */
export const VSA_LEAN_CONSTANTS = { VSA_VERIFIER_ID, RELEASE_LEVEL, DECISION_SCHEMA_VERSION } as const;
