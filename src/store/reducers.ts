// The one table of log entry types (docs/state.md#the-store): type → { payload schema, unitOf, pure reducer }.
// A state change exists only as an entry of a type listed here; the live path appends the entry
// and applies its reducer, replay applies the same reducer to the stored payload.
//
// Later domains (scope versions, challenges, receipts, authority, policy/trust updates) add their
// own file under ./reducers/ and spread it here; migrations.ts gets their tables.
import type * as z from 'zod/mini';
import { PIN_REDUCERS } from './reducers/pins.js';
import { UNIT_REDUCERS } from './reducers/units.js';
import { WRITER_REDUCERS } from './reducers/writers.js';
import { LEASE_REDUCERS } from './reducers/leases.js';
import { AUTHORITY_REDUCERS } from './reducers/authority.js';
import { SCOPE_REDUCERS } from './reducers/scope.js';
import { CHALLENGE_REDUCERS } from './reducers/challenges.js';
import { RUN_REDUCERS } from './reducers/runs.js';
import { PRESERVATION_REDUCERS } from './reducers/preservation.js';
import type { Reducer } from './reducers/reducer.js';

export const REDUCERS = {
  ...PIN_REDUCERS,
  ...UNIT_REDUCERS,
  ...WRITER_REDUCERS,
  ...LEASE_REDUCERS,
  ...AUTHORITY_REDUCERS,
  ...SCOPE_REDUCERS,
  ...CHALLENGE_REDUCERS,
  ...RUN_REDUCERS,
  ...PRESERVATION_REDUCERS,
} as const;

export type EntryType = keyof typeof REDUCERS;
export type PayloadOf<T extends EntryType> = z.infer<(typeof REDUCERS)[T]['payload']>;

export function isEntryType(type: string): type is EntryType {
  return Object.prototype.hasOwnProperty.call(REDUCERS, type);
}

export function reducerOf(type: EntryType): Reducer {
  return REDUCERS[type] as unknown as Reducer;
}
