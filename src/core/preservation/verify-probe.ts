// Offline verification of one preservation probe receipt (docs/preservation.md#verifying-a-probe-receipt-offline):
// the one probe-receipt verifier of `governed verify`. Pure and synchronous: bytes in, a verified
// probe receipt or a coded error out. Steps:
//   1. closed DSSE envelope, in-toto payload type; signatures before anything is parsed from the
//      payload — exactly one signature, by a trusted key in role `probe`, valid at `at`;
//   2. the payload is exactly RFC 8785; the statement's predicateType is the probe receipt's
//      (`receipt_kind_mismatch` otherwise: a probe key signs probe receipts only);
//   3. the closed probe predicate and its cross-field rules (predicate_invalid);
//   4. the subject is the sealed snapshot the predicate names (statement_invalid [subject]).
// And, given the preservation contract the probe claims to serve, its binding to it
// (probeContractMismatches): every result names a declared surface, that surface's `probe` entry and
// the evidence id of the receipt's phase.
import { fail } from '../errors.js';
import type { KeyRole, TrustRoot } from '../trust-root.js';
import { verifyStatementEnvelope, type VerifiedStatement, type VerifyOptions } from '../verify-receipt.js';
import { PROBE_PREDICATE_TYPE, probeRuleViolation, type ProbePredicate, PROBE_PREDICATE_FORMAT } from './probe.js';
import { checkFormat } from '../format/interpret.js';
import type { PreservationContract } from './schema.js';

/** The one signature of a probe receipt (docs/preservation.md#probes): a key in role `probe`. */
export const PROBE_ROLES: readonly KeyRole[] = ['probe'];

export interface VerifiedProbe extends VerifiedStatement {
  readonly predicate: ProbePredicate;
}

export function verifyProbeReceiptBytes(bytes: Uint8Array, trust: TrustRoot, opts: VerifyOptions): VerifiedProbe {
  const v = verifyStatementEnvelope(bytes, trust, PROBE_ROLES, opts);
  if (v.statement.predicateType !== PROBE_PREDICATE_TYPE) fail('receipt_kind_mismatch', ['predicateType']);
  const parsed = checkFormat(PROBE_PREDICATE_FORMAT, v.statement.predicate);
  if (!parsed.success) fail('predicate_invalid', parsed.issuePaths.slice(0, 4).map((path) => ['predicate', ...path.map(String)].join('.')));
  const p = parsed.data;
  const broken = probeRuleViolation(p);
  if (broken !== null) fail('predicate_invalid', [broken]);
  const [subject, ...rest] = v.statement.subject;
  if (
    subject === undefined ||
    rest.length > 0 ||
    subject.name !== `snapshot:${p.phase}` ||
    subject.digest.gitCommit !== undefined ||
    `sha256:${subject.digest.sha256}` !== p.snapshot_digest
  ) {
    fail('statement_invalid', ['subject']);
  }
  return { ...v, predicate: p };
}

/**
 * The surfaces of a probe receipt that the contract does not bind it to, sorted and unique: a result
 * whose surface the contract does not declare, whose entry is not that surface's `probe`, or whose
 * evidence id is not the surface's evidence id for the receipt's phase. Empty: every result is bound.
 */
export function probeContractMismatches(p: ProbePredicate, contract: PreservationContract): string[] {
  const surfaces = new Map(contract.surfaces.map((s) => [s.id, s]));
  const out = new Set<string>();
  for (const r of p.results) {
    const s = surfaces.get(r.surface);
    const evidence = s === undefined ? undefined : p.phase === 'baseline' ? s.baseline_evidence_id : s.current_evidence_id;
    if (s === undefined || s.probe !== r.entry || evidence !== r.evidence_id) out.add(r.surface);
  }
  return [...out].sort();
}

/**
 * Which verifier a receipt file goes to, from its claimed signer key ids and the roles the trust root
 * gives them. Routing only: the chosen verifier then checks every signature, so an unauthenticated key
 * id can only pick a verifier that refuses it. A probe receipt has exactly one signature (a review
 * receipt two): one signature by a key the trust root does not make a reviewer or runner key is judged
 * as a probe receipt; anything else as a review receipt, exactly as before probe receipts were taken.
 */
export function receiptKindOfSigners(keyIds: readonly string[], trust: TrustRoot): 'review' | 'probe' {
  if (keyIds.length !== 1) return 'review';
  const roles = trust.keys.get(keyIds[0] as string)?.roles;
  return roles !== undefined && (roles.has('reviewer') || roles.has('runner')) ? 'review' : 'probe';
}
