// Reducer of `store_init` (docs/commands.md#what-each-command-guarantees init, docs/policy.md#policy-and-trust-root): pin the policy and trust root, digest and bytes.
// Later `policy_update` / `trust_update` entries replace these rows (docs/state.md#init).
import * as z from 'zod/mini';
import { fail } from '../../core/errors.js';
import { parsePinDocument } from '../../core/pin-document.js';
import { digest, seconds } from './schemas.js';
import { expectChanges, reducer } from './reducer.js';

/**
 * A pinned document's recorded digest must be the canonical digest of its recorded bytes (pins.ts,
 * docs/threat-model.md#rules-that-hold-everywhere) — at init and at every update, on the live path and on replay, so a log whose pin entry
 * names one digest and carries other bytes does not apply (an audit replays it and fails).
 */
export function assertPinDigest(bytes: Buffer, recorded: string, kind: 'policy' | 'trust'): void {
  let actual: string;
  try {
    actual = parsePinDocument(bytes, kind).digest;
  } catch {
    fail('log_entry_not_applicable', [kind]);
  }
  if (actual !== recorded) fail('log_entry_not_applicable', [kind]);
}

const pinned = z.strictObject({ digest, bytes_b64: z.base64() });

export const PIN_REDUCERS = {
  store_init: reducer({
    payload: z.strictObject({ policy: pinned, trust: pinned, pinned_at: seconds }),
    unitOf: () => null,
    apply(db, p) {
      const insert = db.prepare('INSERT INTO pins (kind, digest, bytes, pinned_at) VALUES (?, ?, ?, ?)');
      for (const kind of ['policy', 'trust'] as const) {
        const pin = p[kind];
        const bytes = Buffer.from(pin.bytes_b64, 'base64');
        assertPinDigest(bytes, pin.digest, kind);
        expectChanges(insert.run(kind, pin.digest, bytes, p.pinned_at).changes, 1, kind);
      }
    },
  }),
} as const;
