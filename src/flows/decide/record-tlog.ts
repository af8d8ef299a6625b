// The transparency-log part of the gate's deploy record (docs/audit.md "Export and deploy record";
// docs/gate.md "--export"): the newest checkpoint stored in `<home>/checkpoints/` and the inclusion
// proof of every relied-on receipt it covers, read in the gate's read snapshot. The checkpoint's
// root must be the stored tree's at its size (else `tlog_root_mismatch` / `tlog_log_truncated`:
// no record is written, the gate answers with the error); its signature is NOT checked here — the
// deploy side verifies it with `governed verify --inclusion-proof --checkpoint --trust`. A receipt
// logged after that checkpoint has no proof in the record (the manifest lists what is there).
// In the gate's static closure (small: every module it imports already is), so the exporter chunk
// splits nothing off dist/gate.mjs (test/gate-export.test.ts).
import { fail } from '../../core/errors.js';
import { treeHash } from '../../core/merkle.js';
import { parseCheckpointBody, parseSignedNote } from '../../core/signed-note.js';
import { newestStoredCheckpoint } from '../../store/checkpoints.js';
import type { LogRow } from '../../store/log.js';
import type { Db } from '../../store/store.js';
import { treeReader } from '../../store/tree-read.js';
import { utf8OrNull } from '../../core/utf8.js';
import { inclusionProofText } from '../tlog-proof-text.js';
import { digestHexOrNull } from '../../core/canonical.js';


/** `checkpoint.note` and `proofs/<hex>.json` for the record, or an empty map when no checkpoint is stored. */
export function recordTlogFiles(home: string, db: Db, receipts: readonly string[]): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const stored = newestStoredCheckpoint(home);
  if (stored === null) return files;
  const text = utf8OrNull(stored.bytes) ?? fail('tlog_checkpoint_invalid', [stored.file]);
  const note = parseSignedNote(text);
  const cp = note === null ? null : parseCheckpointBody(note.text);
  if (cp === null || cp.size !== stored.size) fail('tlog_checkpoint_invalid', [stored.file]);
  const entries = db.prepare('SELECT count(*) FROM log').pluck().get() as number;
  if (cp.size > entries) fail('tlog_log_truncated', [stored.file, `size:${cp.size}`, `log:${entries}`]);
  if (!treeHash(cp.size, treeReader(db)).equals(cp.root)) fail('tlog_root_mismatch', [stored.file, `size:${cp.size}`]);
  files.set('checkpoint.note', stored.bytes);
  const seqOf = db.prepare('SELECT log_seq FROM receipts WHERE id = ?').pluck();
  const rowOf = db.prepare('SELECT * FROM log WHERE seq = ?');
  for (const id of receipts) {
    const hex = digestHexOrNull(id);
    const seq = seqOf.get(id) as number | undefined;
    if (hex === null || seq === undefined) fail('decision_fact_mismatch', [id]);
    if (seq > cp.size) continue;
    files.set(`proofs/${hex}.json`, Buffer.from(inclusionProofText(db, rowOf.get(seq) as LogRow, cp.size, cp.origin), 'utf8'));
  }
  return files;
}
