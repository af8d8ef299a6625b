// governed's opaque identifiers (docs/overview.md#words): one definition of each format, used by every
// schema, parser and check that names one. Each is a fixed prefix and random or digest hex, so an id is
// safe to print anywhere (docs/threat-model.md#rules-that-hold-everywhere "No secrets in output"). Pure
// values, no imports: the pinned programs read this file too.

/** A unit: `UNIT-` + 128 random bits. */
export const UNIT_ID_RE = /^UNIT-[0-9a-f]{32}$/;
/** A lease: `LSE-` + 128 random bits. */
export const LEASE_ID_RE = /^LSE-[0-9a-f]{32}$/;
/** A review challenge: `CHL-` + 128 random bits. */
export const CHALLENGE_ID_RE = /^CHL-[0-9a-f]{32}$/;
/** A run (one claim of a challenge): `RUN-` + 128 random bits. */
export const RUN_ID_RE = /^RUN-[0-9a-f]{32}$/;
/** One execution of a reviewer inside a run: `EXE-` + 128 random bits. */
export const EXECUTION_ID_RE = /^EXE-[0-9a-f]{32}$/;
/** An authority record: `REC-` + the first 24 hex of the sha256 of its payload (docs/authority.md#human-authority-records). */
export const RECORD_ID_RE = /^REC-[0-9a-f]{24}$/;
/** One `authority request`: `ARQ-` + 128 random bits. */
export const REQUEST_ID_RE = /^ARQ-[0-9a-f]{32}$/;
