// Reducer of `store_init` (SPEC §4.1 init, §13): pin the policy and trust root, digest and bytes.
// Later `policy_update` / `trust_update` entries replace these rows (issue 3 item 1).
import * as z from 'zod';
import { digest, seconds } from './schemas.js';
import { expectChanges, reducer } from './reducer.js';

const pinned = z.strictObject({ digest, bytes_b64: z.base64() });

export const PIN_REDUCERS = {
  store_init: reducer({
    payload: z.strictObject({ policy: pinned, trust: pinned, pinned_at: seconds }),
    unitOf: () => null,
    apply(db, p) {
      const insert = db.prepare('INSERT INTO pins (kind, digest, bytes, pinned_at) VALUES (?, ?, ?, ?)');
      for (const kind of ['policy', 'trust'] as const) {
        const pin = p[kind];
        expectChanges(insert.run(kind, pin.digest, Buffer.from(pin.bytes_b64, 'base64'), p.pinned_at).changes, 1, kind);
      }
    },
  }),
} as const;
