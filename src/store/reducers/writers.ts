// Reducer of `writer_register` (docs/commands.md#what-each-command-guarantees writer register): a session and its process identity.
import * as z from 'zod/mini';
import { bootId, pid, seconds, unitId, writerSession } from './schemas.js';
import { expectChanges, reducer } from './reducer.js';

export const WRITER_REDUCERS = {
  writer_register: reducer({
    payload: z.strictObject({
      unit: unitId,
      writer_session: writerSession,
      boot_id: bootId,
      pid,
      start_time: seconds,
      registered_at: seconds,
    }),
    unitOf: (p) => p.unit,
    apply(db, p) {
      const r = db
        .prepare(
          `INSERT INTO writers (unit, session, boot_id, pid, start_time, registered_at) VALUES (?, ?, ?, ?, ?, ?)`,
        )
        .run(p.unit, p.writer_session, p.boot_id, p.pid, p.start_time, p.registered_at);
      expectChanges(r.changes, 1, p.writer_session);
    },
  }),
} as const;
