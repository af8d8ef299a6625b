// `governed audit checkpoint --out FILE` (docs/commands.md#what-each-command-guarantees, docs/threat-model.md#trust-modes, docs/state.md#the-store): sign the head of the log through the
// policy's pinned `log` attestor, after checking that the log is sound (chain intact, replay equal
// to the stored state). The file is meant to LEAVE the machine (a CI artifact, another host): from
// then on a rewrite of any entry it covers is detectable by `audit verify --checkpoint FILE`, even a
// rewrite by a writer that holds every key, as long as the copy that left is the one compared.
// Read-only on the store; the output is written once (exclusive create), never half-written.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCheckpointStatement, checkpointViolation, type CheckpointPredicate } from '../../core/checkpoint.js';
import { canonicalBytes, sha256Digest } from '../../core/canonical.js';
import { encodeEnvelope, IN_TOTO_PAYLOAD_TYPE } from '../../core/dsse.js';
import { fail } from '../../core/errors.js';
import { isoSecondsOf } from '../../core/trust-root.js';
import { trustedKeyFor } from '../../core/key-status.js';
import type { PublicKey } from '../../core/ed25519.js';
import { pinAttestor, runPinnedAttestor } from '../../../runner/attestor-host.js';
import { assertReplayMatches, closeStore, openStoreReadOnly } from '../../store/index.js';
import { loadPinned } from '../challenge/pinned.js';
import { attestorFiles, resolveLocations } from '../run/locations.js';
import { writeOnce } from '../write-once.js';
import { peekTlogConfig } from '../../../runner/tlog-attestor-host.js';
import { tlogCheckpoint, type TlogCheckpointResult } from './tlog-checkpoint.js';

export interface CheckpointArgs {
  readonly home: string;
  readonly out: string;
  readonly attestorsDir?: string | undefined;
  readonly now: Date;
}

export interface CheckpointResult {
  readonly path: string;
  readonly log_entries: number;
  readonly log_head: string;
  readonly state_digest: string;
  /** `sha256:` of the signed payload. */
  readonly payload_digest: string;
}

export async function auditCheckpoint(args: CheckpointArgs): Promise<CheckpointResult | TlogCheckpointResult> {
  // A tlog-checkpoint log attestor writes a C2SP checkpoint (docs/audit.md "Checkpoints"); a
  // `checkpoint`-kind one, the older DSSE statement below.
  const logFiles = attestorFiles(resolveLocations({ home: args.home, attestorsDir: args.attestorsDir }), 'log');
  if (peekTlogConfig(logFiles.config) !== null) return tlogCheckpoint({ home: args.home, out: args.out, files: logFiles, now: args.now });
  const store = openStoreReadOnly(args.home);
  const scratch = mkdtempSync(join(tmpdir(), 'governed-checkpoint-'));
  let predicate: Omit<CheckpointPredicate, 'attestor_sha256'>;
  let expectedKey: PublicKey;
  let pinnedAttestor: ReturnType<typeof pinAttestor>;
  try {
    const db = store.db;
    const nowSeconds = Math.floor(args.now.getTime() / 1000);
    const madeAt = isoSecondsOf(args.now);
    // One read snapshot: the head signed is the head whose chain and replay were checked.
    const facts = db.transaction(() => {
      // The replay checks every row's chain link before applying it (one pass, src/store/replay.ts).
      const replayed = assertReplayMatches(db, join(scratch, 'replay.db'));
      const chain = { entries: replayed.entries, head: replayed.head };
      return { chain, stateDigest: replayed.stateDigest, pinned: loadPinned(db, nowSeconds) };
    }).deferred();
    const log = facts.pinned.policy.doc.credentials.log;
    expectedKey = trustedKeyFor(facts.pinned.trust, log.key_id, 'log', madeAt);
    const files = attestorFiles(resolveLocations({ home: args.home, attestorsDir: args.attestorsDir }), 'log');
    pinnedAttestor = pinAttestor(files.program, files.config, { attestorSha256: log.attestor_sha256, configSha256: log.attestor_config_sha256 });
    predicate = {
      // `audit checkpoint` reads and signs in the caller's own process: co-located by construction.
      trust_mode: 'co-located',
      log_entries: facts.chain.entries,
      log_head: facts.chain.head,
      state_digest: facts.stateDigest,
      policy_digest: facts.pinned.policyDigest,
      trust_digest: facts.pinned.trustDigest,
      made_at: madeAt,
    };
  } finally {
    closeStore(store);
    rmSync(scratch, { recursive: true, force: true });
  }
  if (predicate.log_entries < 1) fail('store_missing', []);
  const statement = buildCheckpointStatement({ ...predicate, attestor_sha256: pinnedAttestor.programSha256 });
  // Our own check first: a statement the attestor would refuse is a bug here, not a refusal there.
  if (checkpointViolation(statement) !== null) fail('internal_error', ['checkpoint']);
  const payload = canonicalBytes(statement as never);
  const signed = await runPinnedAttestor(pinnedAttestor, { expectedKey, payloadType: IN_TOTO_PAYLOAD_TYPE, payload });
  const envelope = `${JSON.stringify(encodeEnvelope(IN_TOTO_PAYLOAD_TYPE, payload, [{ keyid: signed.keyid, sig: signed.sig }]))}\n`;
  writeOnce(args.out, envelope, { exists: 'audit_checkpoint_output_exists', unwritable: 'audit_checkpoint_output_unwritable' });
  return { path: args.out, log_entries: predicate.log_entries, log_head: predicate.log_head, state_digest: predicate.state_digest, payload_digest: sha256Digest(payload) };
}
