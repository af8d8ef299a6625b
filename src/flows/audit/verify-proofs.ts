// `governed audit verify --checkpoint F... --inclusion-proof P... [--consistency-proof C...]`
// (docs/audit.md "Checking proofs without the log"): the proof files of the transparency log checked
// with no log at all — no store is opened except to read the pinned trust root when --trust is not
// given. Each checkpoint must carry a signature by a log key of the trust root, valid now and not
// revoked (and, with witness keys, enough cosignatures); two checkpoints of one origin and size
// with different roots are a fork. Each inclusion proof is checked against the verified checkpoint
// of its origin and tree size — the path from its entry's leaf hash to that checkpoint's root —
// and, with --receipt / --entry, that its entry records that receipt / is that entry. Each
// consistency proof is checked between the two verified checkpoints of its origin and sizes.
// The rules of one proof are src/core/tlog-proof.ts (the same `verify --inclusion-proof` and `audit
// cosign` use). Failures are collected; the exit is the worst by docs/commands.md#exit-codes precedence.
import { EXIT_PRECEDENCE, GovernedError, isGovernedError, type ExitCode } from '../../core/errors.js';
import { cosignatureCount, parseCheckpointNote, verifyCheckpointNote } from '../../core/tlog-checkpoint.js';
import { checkConsistencyProof, checkInclusionProof, parseConsistencyProof, parseInclusionProof } from '../../core/tlog-proof.js';
import type { Checkpoint } from '../../core/signed-note.js';
import { isoSecondsOf, type TrustRoot } from '../../core/trust-root.js';
import type { WitnessPolicy } from './tlog-verify.js';

/** Defined once in zod/mini (src/core/command-output.ts auditVerifyProofsSchema); type imports only. */
export type { AuditProofsReport } from '../../core/command-output.js';
import type { AuditFailure, AuditProofsReport } from '../../core/command-output.js';

export interface ProofFile {
  readonly file: string;
  readonly bytes: Buffer;
}

export interface ProofAuditInput {
  readonly checkpoints: readonly ProofFile[];
  readonly inclusion: readonly ProofFile[];
  readonly consistency: readonly ProofFile[];
  /** The one inclusion proof's entry must record this receipt id (a run_receipt entry). */
  readonly receipt?: string;
  /** The one inclusion proof's entry must be this log position. */
  readonly entry?: number;
  readonly trust: TrustRoot;
  readonly now: Date;
  readonly witnesses?: WitnessPolicy;
}

const failureOf = (e: GovernedError): AuditFailure => ({ code: e.code, exit: e.exit, ids: [...e.ids] });

function worstExit(failures: readonly AuditFailure[]): ExitCode {
  for (const exit of EXIT_PRECEDENCE) if (failures.some((f) => f.exit === exit)) return exit;
  return 0;
}

/** Thrown by a check that is not judged at all (its checkpoint did not verify). */
const NOT_JUDGED = Symbol('not judged');

/** A checkpoint's body when it parses, whatever its signatures (to name what a proof was for). */
function parsedOrNull(c: ProofFile): Checkpoint | null {
  try {
    return parseCheckpointNote(c.bytes, c.file).cp;
  } catch {
    return null;
  }
}

/** Run `check`; a coded refusal becomes a failure (false), anything else is a bug and is thrown. */
function attempt(failures: AuditFailure[], check: () => void): boolean {
  try {
    check();
    return true;
  } catch (e) {
    if (e === NOT_JUDGED) return false;
    if (!isGovernedError(e)) throw e;
    failures.push(failureOf(e));
    return false;
  }
}

export function auditVerifyProofs(input: ProofAuditInput): Omit<AuditProofsReport, 'ok'> {
  const failures: AuditFailure[] = [];
  const at = isoSecondsOf(input.now);
  // 1. Checkpoints: signed by the log key, cosigned as required, no two of one size with two roots.
  const verified: { file: string; cp: Checkpoint }[] = [];
  const unverified: Checkpoint[] = [];
  const checkpoints: AuditProofsReport['checkpoints'] = [];
  for (const c of input.checkpoints) {
    let cp: Checkpoint | null = null;
    const ok = attempt(failures, () => {
      const v = verifyCheckpointNote(c.bytes, c.file, input.trust, at);
      cp = v.cp;
      if (input.witnesses !== undefined && cosignatureCount(v.note, input.witnesses.keys) < input.witnesses.threshold) {
        throw new GovernedError('tlog_witness_insufficient', { ids: [c.file] });
      }
    });
    let got = cp as Checkpoint | null;
    if (!ok && got === null) got = parsedOrNull(c);
    if (!ok && got !== null) unverified.push(got);
    if (ok && got !== null) {
      const twin = verified.find((v) => v.cp.origin === got.origin && v.cp.size === got.size && !v.cp.root.equals(got.root));
      if (twin !== undefined) failures.push(failureOf(new GovernedError('tlog_fork', { ids: [twin.file, c.file, `size:${got.size}`] })));
      verified.push({ file: c.file, cp: got });
    }
    checkpoints.push({ file: c.file, origin: got?.origin ?? null, tree_size: got?.size ?? null, verified: ok });
  }
  /**
   * The verified checkpoint a proof of `origin` and `size` is checked against, else its refusal.
   * A proof whose checkpoint was given but did not verify is not judged (NOT_JUDGED): that
   * checkpoint's own failure already fails the audit, and a root nobody trusted proves nothing.
   */
  const checkpointFor = (origin: string, size: number, id: string): { file: string; cp: Checkpoint } => {
    const same = verified.filter((v) => v.cp.origin === origin);
    if (!same.some((v) => v.cp.size === size) && unverified.some((u) => u.origin === origin && u.size === size)) throw NOT_JUDGED;
    if (same.length === 0) throw new GovernedError('tlog_origin_mismatch', { ids: [id] });
    const match = same.find((v) => v.cp.size === size);
    if (match === undefined) throw new GovernedError('tlog_proof_size_mismatch', { ids: [id, `size:${size}`] });
    return match;
  };

  // 2. Inclusion proofs.
  const inclusion: AuditProofsReport['inclusion'] = [];
  for (const p of input.inclusion) {
    let row: AuditProofsReport['inclusion'][number] = { proof: p.file, checkpoint: null, tree_size: null, seq: null, receipt: input.receipt ?? null, verified: false };
    const ok = attempt(failures, () => {
      const proof = parseInclusionProof(p.bytes.toString('utf8'), p.file);
      row = { ...row, tree_size: proof.tree_size, seq: proof.entry.seq };
      const { file, cp } = checkpointFor(proof.origin, proof.tree_size, p.file);
      row = { ...row, checkpoint: file };
      checkInclusionProof(proof, cp, p.file, input.receipt);
      if (input.entry !== undefined && proof.entry.seq !== input.entry) throw new GovernedError('tlog_proof_entry_mismatch', { ids: [p.file, `seq:${proof.entry.seq}`] });
    });
    inclusion.push({ ...row, verified: ok });
  }

  // 3. Consistency proofs.
  const consistency: AuditProofsReport['consistency'] = [];
  for (const p of input.consistency) {
    let row: AuditProofsReport['consistency'][number] = { proof: p.file, from: null, to: null, old_size: null, new_size: null, verified: false };
    const ok = attempt(failures, () => {
      const proof = parseConsistencyProof(p.bytes.toString('utf8'), p.file);
      row = { ...row, old_size: proof.old_size, new_size: proof.new_size };
      const from = checkpointFor(proof.origin, proof.old_size, p.file);
      const to = checkpointFor(proof.origin, proof.new_size, p.file);
      row = { ...row, from: from.file, to: to.file };
      checkConsistencyProof(proof, from.cp, to.cp, p.file);
    });
    consistency.push({ ...row, verified: ok });
  }

  return { exit: worstExit(failures), mode: 'proofs', trust_digest: input.trust.digest, evaluated_at: at, checkpoints, inclusion, consistency, failures };
}
