// `audit verify --checkpoint F` for C2SP checkpoints (docs/audit.md "Checkpoints"): each file
// signed by a log key of the trust root (now, offline), covering no more entries than the log has
// (tlog_log_truncated), with exactly the root of the log's first `size` entries (tlog_root_mismatch);
// two checkpoints of one origin and size with different roots are a fork (tlog_fork); with
// `--witness-key`, each needs `threshold` valid cosignatures (tlog_witness_insufficient).
import { GovernedError, isGovernedError, type ExitCode } from '../../core/errors.js';
import { treeHash, type HashReader } from '../../core/merkle.js';
import { cosignatureCount, verifyCheckpointNote, type WitnessKey } from '../../core/tlog-checkpoint.js';
import type { Checkpoint } from '../../core/signed-note.js';
import { isoSecondsOf, type TrustRoot } from '../../core/trust-root.js';

export interface TlogFailure {
  readonly code: string;
  readonly exit: ExitCode;
  readonly ids: readonly string[];
}

export interface WitnessPolicy {
  readonly keys: readonly WitnessKey[];
  readonly threshold: number;
}

const failure = (e: GovernedError): TlogFailure => ({ code: e.code, exit: e.exit, ids: e.ids });

export function checkNoteCheckpoints(
  files: readonly { readonly file: string; readonly bytes: Buffer }[],
  /** The log's length and its Merkle tree, derived from the checked log rows (the audit's pass). */
  entries: number,
  read: HashReader,
  trust: TrustRoot,
  now: Date,
  failures: TlogFailure[],
  witnesses?: WitnessPolicy,
): { file: string; log_entries: number | null; matches: boolean }[] {
  const out: { file: string; log_entries: number | null; matches: boolean }[] = [];
  if (files.length === 0) return out;
  const seen = new Map<string, { file: string; cp: Checkpoint }>();
  for (const f of files) {
    let cp: Checkpoint;
    try {
      const v = verifyCheckpointNote(f.bytes, f.file, trust, isoSecondsOf(now));
      cp = v.cp;
      if (witnesses !== undefined && cosignatureCount(v.note, witnesses.keys) < witnesses.threshold) {
        failures.push(failure(new GovernedError('tlog_witness_insufficient', { ids: [f.file] })));
      }
    } catch (e) {
      if (!isGovernedError(e)) throw e;
      failures.push(failure(e));
      out.push({ file: f.file, log_entries: null, matches: false });
      continue;
    }
    const key = `${cp.origin}\n${cp.size}`;
    const twin = seen.get(key);
    if (twin !== undefined && !twin.cp.root.equals(cp.root)) failures.push(failure(new GovernedError('tlog_fork', { ids: [twin.file, f.file, `size:${cp.size}`] })));
    seen.set(key, { file: f.file, cp });
    let matches = false;
    if (cp.size > entries) failures.push(failure(new GovernedError('tlog_log_truncated', { ids: [f.file, `size:${cp.size}`, `log:${entries}`] })));
    else if (!treeHash(cp.size, read).equals(cp.root)) failures.push(failure(new GovernedError('tlog_root_mismatch', { ids: [f.file, `size:${cp.size}`] })));
    else matches = true;
    out.push({ file: f.file, log_entries: cp.size, matches });
  }
  return out;
}
