// `governed audit verify` (docs/commands.md#what-each-command-guarantees, docs/state.md#the-store, docs/threat-model.md#trust-modes item 6): re-check the whole store from its log alone.
//   1. the chain: contiguous seq, payload digests, entry hashes, links, every payload well-formed;
//   2. replay: every log entry applied to an empty database gives exactly the stored state;
//   3. every receipt the log recorded: its envelope verifies (DSSE, canonical payload, statement,
//      predicate, two signatures by distinct reviewer and runner keys) under the trust root in
//      force at its log position (or the auditor's own, `--trust`), and its signed predicate equals
//      the `run_receipt`, `run_claim` and `challenge_issue` entries it belongs to;
//   4. single use: no challenge claimed or answered twice, no receipt without its claim and issue;
//   5. every authority record verifies at the log position where it took effect (its consumption,
//      docs/authority.md#human-authority-records; else where it was recorded) and matches its entry;
//   6. each signed checkpoint given (`audit checkpoint`) is extended by this log.
// Read-only: nothing is written to the state directory (replay goes to a private temp directory).
// A chain failure stops the audit (nothing after a broken link can be trusted); other failures are
// collected, and the exit code is the worst by docs/commands.md#exit-codes precedence.
//
// What it proves, and what not (docs/threat-model.md#trust-modes): every record is internally consistent and signed by
// keys the trust root held for that role at that position. In co-located mode a writer with the
// uid that owns the keys and the store could rewrite the log and re-sign consistently; only a
// checkpoint that has left the machine (step 6) makes such a rewrite of what it covers detectable.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { receiptBindingMismatches, type ClaimFacts, type IssuedChallengeFacts, type RecordedReceiptFacts } from '../../core/audit/receipt-binding.js';
import { EXIT_PRECEDENCE, GovernedError, isGovernedError, type ExitCode } from '../../core/errors.js';
import { checkpointViolation, type CheckpointPredicate } from '../../core/checkpoint.js';
import { isoOfSeconds, isoSecondsOf, type TrustRoot } from '../../core/trust-root.js';
import { verifyReceiptBytes, verifyStatementEnvelope } from '../../core/verify-receipt.js';
import { checkNoteCheckpoints, type WitnessPolicy } from './tlog-verify.js';
import { isNoteCheckpoint } from '../../core/tlog-checkpoint.js';
import { verifyTree } from '../../store/tree.js';
import { assertReplayMatches, closeStore, decodePayload, openStoreReadOnly, readLog, trustRootAt, trustRootInForce, verifyChain, type LogRow } from '../../store/index.js';

export interface AuditFailure {
  readonly code: string;
  readonly exit: ExitCode;
  readonly ids: readonly string[];
}

export interface AuditReport {
  readonly exit: ExitCode;
  readonly log: { readonly entries: number; readonly head: string } | null;
  readonly replay: { readonly state_digest: string; readonly matches: boolean } | null;
  readonly unit: string | null;
  readonly trust: 'pinned-at-position' | 'given';
  readonly receipts: { readonly checked: number; readonly failed: number };
  readonly authority_records: { readonly checked: number; readonly failed: number };
  readonly challenges: { readonly issued: number; readonly claimed: number; readonly answered: number; readonly aborted: number };
  readonly trust_modes: readonly string[];
  /** Each `--checkpoint` given: the position it covers and whether this log extends it. */
  readonly checkpoints: readonly { readonly file: string; readonly log_entries: number | null; readonly matches: boolean }[];
  readonly failures: readonly AuditFailure[];
}

export interface AuditOptions {
  readonly unit?: string;
  /** The auditor's own trust root, applied at every log position instead of the pinned ones. */
  readonly trust?: TrustRoot;
  /** Signed checkpoints (`audit checkpoint`) the log must extend, by file name. */
  readonly checkpoints?: readonly { readonly file: string; readonly bytes: Buffer }[];
  /** When the audit runs (checkpoint signatures are judged now, offline: valid and not revoked). */
  readonly now?: Date;
  /** Witness keys whose cosignatures each C2SP checkpoint must carry (docs/audit.md "Witnesses"). */
  readonly witnesses?: WitnessPolicy;
}

type Payload = Record<string, unknown>;

const UNIT_ID_RE = /^UNIT-[0-9a-f]{32}$/;

function failureOf(e: GovernedError, extraIds: readonly string[] = []): AuditFailure {
  return { code: e.code, exit: e.exit, ids: [...extraIds, ...e.ids] };
}

function worstExit(failures: readonly AuditFailure[]): ExitCode {
  for (const exit of EXIT_PRECEDENCE) if (failures.some((f) => f.exit === exit)) return exit;
  return 0;
}

function failure(
  code: 'audit_receipt_mismatch' | 'audit_authority_mismatch' | 'audit_challenge_reused' | 'audit_orphan_record' | 'audit_checkpoint_mismatch' | 'audit_checkpoint_invalid',
  ids: string[],
): AuditFailure {
  return failureOf(new GovernedError(code, { ids }));
}

export async function auditVerify(home: string, options: AuditOptions = {}): Promise<AuditReport> {
  const store = openStoreReadOnly(home); // no write lock, no write: an audit never changes what it audits
  const scratch = mkdtempSync(join(tmpdir(), 'governed-audit-'));
  const failures: AuditFailure[] = [];
  let log: AuditReport['log'] = null;
  let replay: AuditReport['replay'] = null;
  const counts = { issued: 0, claimed: 0, answered: 0, aborted: 0 };
  const receipts = { checked: 0, failed: 0 };
  const authority = { checked: 0, failed: 0 };
  const trustModes = new Set<string>();
  const checkpoints: { file: string; log_entries: number | null; matches: boolean }[] = [];
  try {
    const db = store.db;
    // One read transaction: the chain, the replay and the records are judged on one snapshot even
    // while other processes append.
    const snapshot = db.transaction(() => {
      if (options.unit !== undefined) {
        const known = db.prepare('SELECT 1 FROM units WHERE id = ?').get(options.unit);
        // A malformed --unit is never echoed (docs/commands.md#exit-codes: a rejected value is not printed), as src/store/units.ts.
        if (known === undefined) throw new GovernedError('unit_unknown', { ids: UNIT_ID_RE.test(options.unit) ? [options.unit] : [] });
      }
      log = verifyChain(db);
      const replayed = assertReplayMatchesCollecting(db, join(scratch, 'replay.db'), failures);
      replay = replayed;
      // The stored Merkle tree is re-derived from the log (docs/audit.md "Transparency log") once
      // the tables are known to follow from it (a replay failure already names a store whose
      // derived rows do not; a tree of a rewritten log would only repeat it).
      if (replayed.matches) {
        try {
          verifyTree(db);
        } catch (e) {
          if (!isGovernedError(e)) throw e;
          failures.push(failureOf(e));
        }
      }
      return readLog(db);
    });
    let rows: LogRow[];
    try {
      rows = snapshot.deferred();
    } catch (e) {
      if (!isGovernedError(e)) throw e;
      if (e.code === 'unit_unknown') throw e;
      failures.push(failureOf(e));
      return report();
    }
    const trustAt = (seq: number): TrustRoot => options.trust ?? trustRootAt(db, seq);
    const issues = new Map<string, Payload>();
    const claims = new Map<string, Payload>(); // by run id
    const claimedChallenges = new Set<string>();
    const answered = new Set<string>();
    const consumedAt = new Map<string, LogRow>(); // authority record id → its consumption entry
    for (const row of rows) {
      if (row.type === 'authority_consume') {
        const p = decodePayload(row.seq, row.type, row.unit, row.payload) as Payload;
        consumedAt.set(p.record as string, row);
      }
    }
    for (const row of rows) {
      const p = decodePayload(row.seq, row.type, row.unit, row.payload) as Payload;
      const inUnit = options.unit === undefined || row.unit === options.unit;
      switch (row.type) {
        case 'challenge_issue':
          issues.set(p.challenge as string, p);
          counts.issued += inUnit ? 1 : 0;
          break;
        case 'run_claim': {
          const challenge = p.challenge as string;
          if (!issues.has(challenge)) failures.push(failure('audit_orphan_record', [`seq:${row.seq}`, challenge]));
          if (claimedChallenges.has(challenge)) failures.push(failure('audit_challenge_reused', [`seq:${row.seq}`, challenge]));
          claimedChallenges.add(challenge);
          claims.set(p.run as string, p);
          counts.claimed += inUnit ? 1 : 0;
          break;
        }
        case 'run_abort':
          counts.aborted += inUnit ? 1 : 0;
          break;
        case 'run_receipt': {
          const challenge = p.challenge as string;
          if (answered.has(challenge)) failures.push(failure('audit_challenge_reused', [`seq:${row.seq}`, challenge]));
          answered.add(challenge);
          if (!inUnit) break;
          counts.answered++;
          receipts.checked++;
          const before = failures.length;
          checkReceipt(row, p, issues.get(challenge), claims.get(p.run as string), trustAt(row.seq), failures, trustModes);
          if (failures.length > before) receipts.failed++;
          break;
        }
        case 'authority_record': {
          if (!inUnit) break;
          authority.checked++;
          const at = consumedAt.get(p.record as string) ?? row;
          const before = failures.length;
          await checkAuthority(row, p, at, trustAt(at.seq), failures);
          if (failures.length > before) authority.failed++;
          break;
        }
        default:
          break;
      }
    }
    const notes = (options.checkpoints ?? []).filter((c) => isNoteCheckpoint(c.bytes));
    if (notes.length > 0) checkpoints.push(...checkNoteCheckpoints(notes, rows, options.trust ?? trustRootInForce(db), options.now ?? new Date(), failures, options.witnesses));
    for (const c of options.checkpoints ?? []) {
      if (isNoteCheckpoint(c.bytes)) continue;
      checkpoints.push(checkCheckpoint(c, rows, options.trust ?? trustRootInForce(db), options.now ?? new Date(), failures));
    }
    return report();
  } finally {
    closeStore(store);
    rmSync(scratch, { recursive: true, force: true });
  }

  function report(): AuditReport {
    return {
      exit: worstExit(failures),
      log,
      replay,
      unit: options.unit ?? null,
      trust: options.trust === undefined ? 'pinned-at-position' : 'given',
      receipts,
      authority_records: authority,
      challenges: counts,
      trust_modes: [...trustModes].sort(),
      checkpoints,
      failures,
    };
  }
}

/** Replay into `path`; a mismatch (or an entry that does not apply) is recorded, not thrown. */
function assertReplayMatchesCollecting(db: Parameters<typeof verifyChain>[0], path: string, failures: AuditFailure[]): { state_digest: string; matches: boolean } {
  try {
    const r = assertReplayMatches(db, path);
    return { state_digest: r.stateDigest, matches: true };
  } catch (e) {
    if (!isGovernedError(e)) throw e;
    failures.push(failureOf(e));
    return { state_digest: '', matches: false };
  }
}

function checkReceipt(
  row: LogRow,
  p: Payload,
  issue: Payload | undefined,
  claim: Payload | undefined,
  trust: TrustRoot,
  failures: AuditFailure[],
  trustModes: Set<string>,
): void {
  const id = p.receipt as string;
  if (issue === undefined || claim === undefined) {
    failures.push(failure('audit_orphan_record', [`seq:${row.seq}`, id]));
    return;
  }
  try {
    const v = verifyReceiptBytes(Buffer.from(p.envelope_b64 as string, 'base64'), trust, { at: isoOfSeconds(row.time), offline: false });
    trustModes.add(v.predicate.trust_mode);
    const fields = receiptBindingMismatches(
      v.id,
      v.predicate,
      issue as unknown as IssuedChallengeFacts,
      claim as unknown as ClaimFacts,
      p as unknown as RecordedReceiptFacts,
    );
    // Field names only, never values (docs/commands.md#exit-codes: a rejection never prints the rejected value).
    if (fields.length > 0) failures.push(failure('audit_receipt_mismatch', [`seq:${row.seq}`, id, ...fields.slice(0, 8)]));
  } catch (e) {
    if (!isGovernedError(e)) throw e;
    failures.push(failureOf(e, [`seq:${row.seq}`, id]));
  }
}

async function checkAuthority(row: LogRow, p: Payload, at: LogRow, trust: TrustRoot, failures: AuditFailure[]): Promise<void> {
  const id = p.record as string;
  // The zod-based authority verifier is loaded only when the log holds an authority record.
  const { verifyAuthorityRecordBytes } = await import('../../core/authority/index.js');
  try {
    const v = verifyAuthorityRecordBytes(Buffer.from(p.envelope_b64 as string, 'base64'), trust, { at: isoOfSeconds(at.time), offline: false });
    const fields: string[] = [];
    if (v.recordId !== id) fields.push('record');
    if (v.keyId !== p.key_id) fields.push('key_id');
    if ((v.predicate.unit ?? null) !== (p.unit ?? null)) fields.push('unit');
    if (fields.length > 0) failures.push(failure('audit_authority_mismatch', [`seq:${row.seq}`, id, ...fields]));
  } catch (e) {
    if (!isGovernedError(e)) throw e;
    failures.push(failureOf(e, [`seq:${row.seq}`, id]));
  }
}

/**
 * A signed checkpoint against this log (docs/threat-model.md#trust-modes, docs/state.md#the-store): its one signature by a `log` key of `trust`
 * (judged now, offline: valid and not revoked — the log under test cannot vouch for its own keys),
 * a closed checkpoint statement, and the log's entry at `log_entries` whose hash is `log_head`.
 */
function checkCheckpoint(
  c: { readonly file: string; readonly bytes: Buffer },
  rows: readonly LogRow[],
  trust: TrustRoot,
  now: Date,
  failures: AuditFailure[],
): { file: string; log_entries: number | null; matches: boolean } {
  let p: CheckpointPredicate;
  try {
    const v = verifyStatementEnvelope(c.bytes, trust, ['log'], { at: isoSecondsOf(now), offline: true });
    if (checkpointViolation(v.statement) !== null) {
      failures.push(failure('audit_checkpoint_invalid', [c.file]));
      return { file: c.file, log_entries: null, matches: false };
    }
    p = v.statement.predicate as unknown as CheckpointPredicate;
  } catch (e) {
    if (!isGovernedError(e)) throw e;
    failures.push(failureOf(e, [c.file]));
    return { file: c.file, log_entries: null, matches: false };
  }
  const row = rows[p.log_entries - 1];
  const matches = row !== undefined && row.seq === p.log_entries && row.entry_hash === p.log_head;
  if (!matches) failures.push(failure('audit_checkpoint_mismatch', [c.file, `seq:${p.log_entries}`]));
  return { file: c.file, log_entries: p.log_entries, matches };
}
