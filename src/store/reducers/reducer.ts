// The shape of one log entry type (docs/state.md#the-store): its closed payload schema, which unit it concerns,
// and its pure reducer. A reducer only writes SQL derived from the payload: no clock, no
// randomness, no reads of the file system, so applying the log in order always rebuilds the same
// tables. The live path (`tx.append`) and replay (`replayInto`) both call `apply`.
import type * as z from 'zod/mini';
import { fail } from '../../core/errors.js';
import type { Db } from '../store.js';

export interface Reducer<S extends z.ZodMiniType = z.ZodMiniType> {
  /** Closed (z.strictObject) schema of the payload; no transforms, so output === input. */
  readonly payload: S;
  /** The unit this entry concerns (the log's `unit` column), or null for store-wide entries. */
  unitOf(payload: z.infer<S>): string | null;
  apply(db: Db, payload: z.infer<S>): void;
}

export function reducer<S extends z.ZodMiniType>(r: Reducer<S>): Reducer<S> {
  return r;
}

/**
 * Run a write that must change exactly `expected` rows; anything else means the entry does not
 * apply to the state before it (a tampered log on replay, or a missing check on the live path).
 */
export function expectChanges(actual: number, expected: number, what: string): void {
  if (actual !== expected) fail('log_entry_not_applicable', [what]);
}
