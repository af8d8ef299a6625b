// `governed audit checkpoint` with a tlog-checkpoint log attestor (docs/audit.md "Checkpoints"):
// after the chain, the replay and the Merkle tree are checked on one read snapshot, the C2SP
// checkpoint body "<origin>\n<size>\n<base64 root>\n" is signed by the pinned attestor and written
// as a signed note with the log's signature line (key name = origin). Read-only on the store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fail } from '../../core/errors.js';
import { isoSecondsOf } from '../../core/trust-root.js';
import { trustedKeyFor } from '../../core/key-status.js';
import { checkpointBody, noteVerifierKey, signatureLine } from '../../core/signed-note.js';
import { pinTlogAttestor, signCheckpointBody } from '../../../runner/tlog-attestor-host.js';
import { assertReplayMatches, closeStore, openStoreReadOnly } from '../../store/index.js';
import { verifyTree } from '../../store/tree.js';
import { loadPinned } from '../challenge/pinned.js';
import { writeOnce } from '../write-once.js';
import type { WarmSigner } from '../runnerd/warm-attestor.js';

/**
 * A signer of checkpoint bodies other than the one-shot child: the daemon's warm log attestor, under
 * the log uid (docs/runnerd.md#checkpoints). Given what this checkpoint pinned (program and config
 * digests under the current policy, the trusted log key), the signing function; it fails
 * runnerd_attestor_pin_mismatch when the warm process runs other bytes, and returns only a
 * signature it verified over the body under that key.
 */
export type CheckpointSigner = (pinned: WarmSigner) => (body: Buffer) => Promise<Buffer>;

export interface TlogCheckpointResult {
  readonly path: string;
  readonly format: 'c2sp-tlog-checkpoint';
  readonly origin: string;
  readonly tree_size: number;
  readonly root_hash: string;
  readonly log_entries: number;
  readonly log_head: string;
  readonly state_digest: string;
  /** The log key in Go's note verifier-key format (for note.NewVerifier and witnesses). */
  readonly verifier_key: string;
}

export async function tlogCheckpoint(args: { home: string; out: string; files: { program: string; config: string }; now: Date }): Promise<TlogCheckpointResult> {
  const store = openStoreReadOnly(args.home);
  const scratch = mkdtempSync(join(tmpdir(), 'governed-checkpoint-'));
  let facts;
  try {
    const db = store.db;
    const nowSeconds = Math.floor(args.now.getTime() / 1000);
    facts = db.transaction(() => {
      // The replay checks every row's chain link before applying it (one pass, src/store/replay.ts).
      const replayed = assertReplayMatches(db, join(scratch, 'replay.db'));
      const chain = { entries: replayed.entries, head: replayed.head };
      const tree = verifyTree(db);
      return { chain, tree, stateDigest: replayed.stateDigest, pinned: loadPinned(db, nowSeconds) };
    }).deferred();
  } finally {
    closeStore(store);
    rmSync(scratch, { recursive: true, force: true });
  }
  if (facts.chain.entries < 1 || facts.tree.size !== facts.chain.entries) fail('store_missing', []);
  const signed = await signCheckpointNote({ files: args.files, pinned: facts.pinned, now: args.now, size: facts.tree.size, root: facts.tree.root });
  const origin = signed.origin;
  writeOnce(args.out, signed.text, { exists: 'audit_checkpoint_output_exists', unwritable: 'audit_checkpoint_output_unwritable' });
  return {
    path: args.out,
    format: 'c2sp-tlog-checkpoint',
    origin,
    tree_size: facts.tree.size,
    root_hash: facts.tree.root.toString('base64'),
    log_entries: facts.chain.entries,
    log_head: facts.chain.head,
    state_digest: facts.stateDigest,
    verifier_key: signed.verifier_key,
  };
}

/**
 * Sign the checkpoint of (size, root) through the pinned tlog-checkpoint `log` attestor: the one
 * signing path of `audit checkpoint` and of the automatic checkpoints (in the daemon, through its
 * warm log attestor: `signer`). The attestor and its config
 * must be on the policy's `credentials.log` lists, its config must name the policy's log key, and
 * the returned signature is verified under that key of the pinned trust root, valid now.
 */
export async function signCheckpointNote(a: {
  files: { program: string; config: string };
  pinned: ReturnType<typeof loadPinned>;
  now: Date;
  size: number;
  root: Buffer;
  /** The daemon's warm log attestor; absent: the pinned attestor runs as a one-shot child. */
  signer?: CheckpointSigner | undefined;
}): Promise<{ text: string; origin: string; verifier_key: string }> {
  const log = a.pinned.policy.doc.credentials.log;
  const key = trustedKeyFor(a.pinned.trust, log.key_id, 'log', isoSecondsOf(a.now));
  const pinned = pinTlogAttestor(a.files.program, a.files.config, { attestorSha256: log.attestor_sha256, configSha256: log.attestor_config_sha256 });
  if (pinned.tlog.key_id !== log.key_id) fail('attestor_config_invalid', []);
  const origin = pinned.tlog.origin;
  const body = checkpointBody({ origin, size: a.size, root: a.root });
  const sig =
    a.signer === undefined
      ? await signCheckpointBody(pinned, key, body)
      : await a.signer({ credential: 'log', programSha256: pinned.programSha256, configSha256: pinned.configSha256, key })(Buffer.from(body, 'utf8'));
  return { text: `${body}\n${signatureLine(origin, key.raw, sig)}`, origin, verifier_key: noteVerifierKey(origin, key.raw) };
}
