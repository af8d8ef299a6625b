// The signed decision (docs/commands.md#what-each-command-guarantees `gate --attest`, docs/formats.md#receipt "Decisions (VSAs) ... are signed by their own
// credential (gate)"): a SLSA Verification Summary Attestation v1 (docs/formats.md#receipt), as the
// predicate of an in-toto Statement v1 in a DSSE envelope, signed by the policy's `gate` credential
// through its pinned attestor. Pure; closed at every level.
//
// The statement's subject is the subject commit's content, named like a receipt's subject
// (`workspace` + the manifest digest of docs/contract.md#workspace-digest), so a deploy system can check that the VSA is
// about exactly the tree it ships; `resourceUri` names the commit. The SLSA fields carry the outcome
// (`verificationResult`, `verifiedLevels`), the policy digest and the records the decision rests on
// (`inputAttestations`: every receipt, probe receipt and authority record of `reliedOn`, re-verified by the gate).
// governed's own facts sit in one closed `governed` object (unit, delivery state, every reason, the
// trust mode, the pinned and the deploy-side trust digests, the current state digests, the
// preservation waiver shown in every decision, docs/authority.md#human-authority-records), with the attestor's own sha256: the gate
// attestor is not blind either (docs/formats.md#attestors) — it signs only a statement that passes this schema and
// `vsaRuleViolation` and names its own digest.
import { VSA_BOUNDS, VSA_MAX_PAYLOAD_BYTES } from './limits.js';
import { VSA_PREDICATE } from './format/compiled.js';
import { formatOf } from './format/node.js';
import type { VsaPredicate } from './vsa-schema.js';
export type { VsaPredicate } from './vsa-schema.js';

export { VSA_HTTPS_URI_RE, VSA_REPOSITORY_URI_RE } from './vsa-uris.js';

export const VSA_PREDICATE_TYPE = 'https://slsa.dev/verification_summary/v1';
/** `verifier.id` when the policy names none (`vsa.verifier_id`, docs/gate.md#3-the-signed-decision---attest-file). */
export const VSA_VERIFIER_ID = 'https://governed.dev/gate/v1';
/** The policy descriptor's uri; its digest is the policy digest (sha256 of the RFC 8785 form of the parsed policy). */
export const VSA_POLICY_URI = 'https://governed.dev/policy';
/**
 * The key of governed's own facts in the predicate. SLSA VSA v1 defines no extension field; an
 * extension key that is a URI cannot collide with a field a later SLSA version adds.
 */
export const VSA_EXTENSION_KEY = 'https://governed.dev/vsa/decision/v1';
/** SLSA's `verifiedLevels` value when policy verification failed (SlsaResult `FAILED`). */
export const FAILED_LEVEL = 'FAILED';
/** The one custom level governed asserts (SLSA: custom levels must not start with `SLSA_`). */
export const RELEASE_LEVEL = 'GOVERNED_RELEASE_ELIGIBLE';
export const DECISION_SCHEMA_VERSION = 1;

/**
 * The bounds of a VSA predicate, defined here once. Each is far above what the decision rules produce for a real unit (a
 * `slot_blocked` reason lists every standing block of a slot; a `veto_standing` reason lists its
 * receipt, its slot and every ref of up to 32 findings x 4 refs = 130 ids), and one reason at the
 * bound (4096 ids of <= 200 characters, < 1 MiB) still fits the attestor's 16 MiB request. What
 * the whole statement may weigh is `VSA_MAX_PAYLOAD_BYTES`; beyond any bound `gate --attest`
 * fails with a coded error and attests nothing (docs/gate.md#3-the-signed-decision---attest-file "Bounds").
 */
export { VSA_BOUNDS };
/**
 * The RFC 8785 bytes of a whole VSA statement, at most: its envelope (base64, 4/3) must fit the
 * 4 MiB `gate --export` reads back as vsa.json (src/flows/decide/export.ts) with room for the
 * signature frame, and the attestor request (base64 too) its 16 MiB.
 */
export { VSA_MAX_PAYLOAD_BYTES };

/** The predicate's compiled form; its one definition is ./vsa-schema.ts (docs/architecture.md#compiled-formats). */
export const VSA_PREDICATE_FORMAT = /* @__PURE__ */ formatOf<VsaPredicate>(VSA_PREDICATE);

export type VsaDecisionFacts = VsaPredicate[typeof VSA_EXTENSION_KEY];

export interface VsaStatement {
  readonly _type: 'https://in-toto.io/Statement/v1';
  readonly subject: readonly { readonly name: string; readonly digest: { readonly sha256: string; readonly gitCommit: string } }[];
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
  /** Re-verified probe receipt ids (`sha256:<hex>`) the preservation check counted (docs/preservation.md#delivery-state). */
  readonly probes?: readonly string[] | undefined;
  readonly attestorSha256: string;
  /** The policy's `vsa.verifier_id` (else VSA_VERIFIER_ID) and `vsa.repository_uri` (else none). */
  readonly verifierId?: string | undefined;
  readonly repositoryUri?: string | undefined;
}

/** The resourceUri of a decision about `commit` (SLSA VSA v1: the resource the artifact came from). */
export function vsaResourceUri(commit: string, repositoryUri: string | undefined): string {
  return repositoryUri === undefined ? `git+commit:${commit}` : `${repositoryUri}@${commit}`;
}

const hexOf = (d: string): string => d.slice('sha256:'.length);

/** The VSA statement of one gate decision (the attestor signs its RFC 8785 bytes). */
export function buildVsaStatement(d: DecisionForVsa): VsaStatement {
  const eligible = d.state === 'RELEASE_ELIGIBLE';
  const inputs = [
    ...d.receipts.map((r) => ({ uri: `governed:receipt:${r}`, digest: { sha256: hexOf(r) } })),
    ...(d.probes ?? []).map((r) => ({ uri: `governed:probe:${r}`, digest: { sha256: hexOf(r) } })),
    ...d.authorities.map((a) => ({ uri: `governed:authority:${a.recordId}`, digest: { sha256: hexOf(a.payloadDigest) } })),
  ].sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  return {
    _type: 'https://in-toto.io/Statement/v1',
    subject: [{ name: 'workspace', digest: { sha256: hexOf(d.subject.manifestDigest), gitCommit: d.subject.commit } }],
    predicateType: VSA_PREDICATE_TYPE,
    predicate: {
      verifier: { id: d.verifierId ?? VSA_VERIFIER_ID, version: { governed: d.version } },
      timeVerified: d.evaluatedAt,
      resourceUri: vsaResourceUri(d.subject.commit, d.repositoryUri),
      policy: { uri: VSA_POLICY_URI, digest: { sha256: hexOf(d.policyDigest) } },
      inputAttestations: inputs,
      verificationResult: eligible ? 'PASSED' : 'FAILED',
      verifiedLevels: eligible ? [RELEASE_LEVEL] : [FAILED_LEVEL],
      slsaVersion: '1.0',
      [VSA_EXTENSION_KEY]: {
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

/**
 * The first count bound of `VSA_BOUNDS` a predicate of the right shape exceeds (its field path), or
 * null. Lets the gate tell "this decision is too large to attest" (a coded refusal) from "this
 * statement is malformed" (a bug) before anything is signed.
 */
export function vsaBoundExceeded(p: {
  readonly inputAttestations: readonly unknown[];
  readonly [VSA_EXTENSION_KEY]: { readonly reasons: readonly { readonly ids: readonly unknown[] }[] };
}): string | null {
  const reasons = p[VSA_EXTENSION_KEY].reasons;
  if (p.inputAttestations.length > VSA_BOUNDS.maxInputAttestations) return 'inputAttestations';
  if (reasons.length > VSA_BOUNDS.maxReasons) return 'governed.reasons';
  if (reasons.some((r) => r.ids.length > VSA_BOUNDS.maxIdsPerReason)) return 'governed.reasons.ids';
  return null;
}

/**
 * Cross-field rules of a VSA statement whose predicate passed `vsaPredicateSchema`: the outcome fields agree with each other, the subject is the commit content
 * the predicate names, the policy digest is the one named twice, inputs are sorted and unique.
 * Returns the first broken field, or null.
 */
export function vsaRuleViolation(statement: { subject: readonly { name: string; digest: { sha256: string; gitCommit?: string | undefined } }[]; predicate: VsaPredicate }): string | null {
  const p = statement.predicate;
  const g = p[VSA_EXTENSION_KEY];
  const eligible = g.state === 'RELEASE_ELIGIBLE';
  if ((p.verificationResult === 'PASSED') !== eligible) return 'verificationResult';
  if (eligible !== (g.reasons.length === 0)) return 'governed.reasons';
  if (p.verifiedLevels[0] !== (eligible ? RELEASE_LEVEL : FAILED_LEVEL)) return 'verifiedLevels';
  if (!(p.resourceUri === `git+commit:${g.subject.commit}` || (p.resourceUri.startsWith('git+https://') && p.resourceUri.endsWith(`@${g.subject.commit}`)))) return 'resourceUri';
  if (`sha256:${p.policy.digest.sha256}` !== g.policy_digest) return 'policy';
  const [subject, ...rest] = statement.subject;
  if (
    subject === undefined ||
    rest.length > 0 ||
    subject.name !== 'workspace' ||
    `sha256:${subject.digest.sha256}` !== g.subject.manifest_digest ||
    subject.digest.gitCommit !== g.subject.commit
  ) {
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
