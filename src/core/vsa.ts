// The signed decision (docs/commands.md#what-each-command-guarantees `gate --attest`, docs/formats.md#receipt "Decisions (VSAs) ... are signed by their own
// credential (gate)"): a SLSA Verification Summary Attestation v1 (docs/formats.md#receipt), as the
// predicate of an in-toto Statement v1 in a DSSE envelope, signed by the policy's `gate` credential
// through its pinned attestor. Pure; closed at every level.
//
// The statement's subject is the subject commit's content, named like a receipt's subject
// (`workspace` + the manifest digest of docs/contract.md#workspace-digest), so a deploy system can check that the VSA is
// about exactly the tree it ships; `resourceUri` names the commit. The SLSA fields carry the outcome
// (`verificationResult`, `verifiedLevels`), the policy digest and the records the decision rests on
// (`inputAttestations`: every receipt and authority record of `reliedOn`, re-verified by the gate).
// governed's own facts sit in one closed `governed` object (unit, delivery state, every reason, the
// trust mode, the pinned and the deploy-side trust digests, the current state digests, the
// preservation waiver shown in every decision, docs/authority.md#human-authority-records), with the attestor's own sha256: the gate
// attestor is not blind either (docs/formats.md#attestors) — it signs only a statement that passes this schema and
// `vsaRuleViolation` and names its own digest.
import * as z from 'zod';
import { isoSeconds } from './receipt-predicate.js';
import { VSA_BOUNDS } from './lean/vsa.js';

export const VSA_PREDICATE_TYPE = 'https://slsa.dev/verification_summary/v1';
export const VSA_VERIFIER_ID = 'https://governed.dev/gate/v1';
/** The one custom level governed asserts (SLSA: custom levels must not start with `SLSA_`). */
export const RELEASE_LEVEL = 'GOVERNED_RELEASE_ELIGIBLE';
export const DECISION_SCHEMA_VERSION = 1;

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const digest = z.string().regex(/^sha256:[0-9a-f]{64}$/);
const gitId = z.string().regex(/^[0-9a-f]{40}$|^[0-9a-f]{64}$/);
const INPUT_URI_RE = /^governed:(?:receipt:sha256:[0-9a-f]{64}|authority:REC-[0-9a-f]{24})$/;
/** Reason codes and ids: closed alphabets only (docs/threat-model.md#rules-that-hold-everywhere "No secrets in output"). */
const reasonCode = z.string().regex(/^[a-z][a-z0-9_]{0,63}(?::[a-z][a-z0-9_]{0,63})?$/);
const reasonId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:>@-]{0,199}$/);

export const vsaPredicateSchema = z.strictObject({
  verifier: z.strictObject({ id: z.literal(VSA_VERIFIER_ID), version: z.strictObject({ governed: z.string().regex(/^\d+\.\d+\.\d+$/) }) }),
  timeVerified: isoSeconds,
  resourceUri: z.string().regex(/^git\+commit:(?:[0-9a-f]{40}|[0-9a-f]{64})$/),
  policy: z.strictObject({ uri: z.literal('https://governed.dev/policy'), digest: z.strictObject({ sha256: hex64 }) }),
  inputAttestations: z.array(z.strictObject({ uri: z.string().regex(INPUT_URI_RE), digest: z.strictObject({ sha256: hex64 }) })).max(VSA_BOUNDS.maxInputAttestations),
  verificationResult: z.enum(['PASSED', 'FAILED']),
  verifiedLevels: z.array(z.literal(RELEASE_LEVEL)).max(1),
  slsaVersion: z.literal('1.0'),
  governed: z.strictObject({
    decision_schema: z.literal(DECISION_SCHEMA_VERSION),
    unit: z.string().regex(/^UNIT-[0-9a-f]{32}$/),
    state: z.enum(['RELEASE_ELIGIBLE', 'REVIEW_ONLY']),
    reasons: z.array(z.strictObject({ code: reasonCode, ids: z.array(reasonId).max(VSA_BOUNDS.maxIdsPerReason) })).max(VSA_BOUNDS.maxReasons),
    trust_mode: z.enum(['co-located', 'separated']),
    policy_digest: digest,
    trust_digest: digest,
    gate_trust_digest: digest,
    subject: z.strictObject({ commit: gitId, manifest_digest: digest }),
    current: z.strictObject({ planning_state_digest: digest, content_digest: digest, work_state_digest: digest }),
    preservation_waiver: z.string().min(1).max(500).nullable(),
    attestor_sha256: hex64,
  }),
});

export type VsaPredicate = z.infer<typeof vsaPredicateSchema>;

export interface VsaStatement {
  readonly _type: 'https://in-toto.io/Statement/v1';
  readonly subject: readonly { readonly name: string; readonly digest: { readonly sha256: string } }[];
  readonly predicateType: typeof VSA_PREDICATE_TYPE;
  readonly predicate: VsaPredicate;
}

export interface DecisionForVsa {
  readonly version: string;
  readonly evaluatedAt: string;
  readonly unit: string;
  readonly state: 'RELEASE_ELIGIBLE' | 'REVIEW_ONLY';
  readonly reasons: readonly { readonly code: string; readonly ids: readonly string[] }[];
  readonly trustMode: 'co-located' | 'separated';
  readonly policyDigest: string;
  readonly trustDigest: string;
  readonly gateTrustDigest: string;
  readonly subject: { readonly commit: string; readonly manifestDigest: string };
  readonly current: { readonly planningStateDigest: string; readonly contentDigest: string; readonly workStateDigest: string };
  readonly preservationWaiver: string | null;
  /** Re-verified receipt ids (`sha256:<hex>`) and authority records (id + payload digest). */
  readonly receipts: readonly string[];
  readonly authorities: readonly { readonly recordId: string; readonly payloadDigest: string }[];
  readonly attestorSha256: string;
}

const hexOf = (d: string): string => d.slice('sha256:'.length);

/** The VSA statement of one gate decision (the attestor signs its RFC 8785 bytes). */
export function buildVsaStatement(d: DecisionForVsa): VsaStatement {
  const eligible = d.state === 'RELEASE_ELIGIBLE';
  const inputs = [
    ...d.receipts.map((r) => ({ uri: `governed:receipt:${r}`, digest: { sha256: hexOf(r) } })),
    ...d.authorities.map((a) => ({ uri: `governed:authority:${a.recordId}`, digest: { sha256: hexOf(a.payloadDigest) } })),
  ].sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  return {
    _type: 'https://in-toto.io/Statement/v1',
    subject: [{ name: 'workspace', digest: { sha256: hexOf(d.subject.manifestDigest) } }],
    predicateType: VSA_PREDICATE_TYPE,
    predicate: {
      verifier: { id: VSA_VERIFIER_ID, version: { governed: d.version } },
      timeVerified: d.evaluatedAt,
      resourceUri: `git+commit:${d.subject.commit}`,
      policy: { uri: 'https://governed.dev/policy', digest: { sha256: hexOf(d.policyDigest) } },
      inputAttestations: inputs,
      verificationResult: eligible ? 'PASSED' : 'FAILED',
      verifiedLevels: eligible ? [RELEASE_LEVEL] : [],
      slsaVersion: '1.0',
      governed: {
        decision_schema: DECISION_SCHEMA_VERSION,
        unit: d.unit,
        state: d.state,
        reasons: d.reasons.map((r) => ({ code: r.code, ids: [...r.ids] })),
        trust_mode: d.trustMode,
        policy_digest: d.policyDigest,
        trust_digest: d.trustDigest,
        gate_trust_digest: d.gateTrustDigest,
        subject: { commit: d.subject.commit, manifest_digest: d.subject.manifestDigest },
        current: {
          planning_state_digest: d.current.planningStateDigest,
          content_digest: d.current.contentDigest,
          work_state_digest: d.current.workStateDigest,
        },
        preservation_waiver: d.preservationWaiver,
        attestor_sha256: d.attestorSha256,
      },
    },
  };
}

// The cross-field rules of a VSA statement (PASSED ⇔ RELEASE_ELIGIBLE ⇔ no reason ⇔ the release
// level; the subject is the commit content the predicate names; one policy digest; inputs sorted and
// unique) are zod-free and live with the lean shape, so the attestor program and this module share
// ONE implementation.
export { vsaRuleViolation } from './lean/vsa.js';
// Its bounds too (one definition, shared with the attestor's lean check; docs/gate.md §3).
export { VSA_BOUNDS, VSA_MAX_PAYLOAD_BYTES, vsaBoundExceeded } from './lean/vsa.js';
