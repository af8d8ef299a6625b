// governed's opaque identifiers (docs/overview.md#words) and the digest, git object id and name formats:
// one definition of each, used by every schema, parser and check that names one. Every format is a
// closed alphabet, so a value that matches is safe to print anywhere
// (docs/threat-model.md#rules-that-hold-everywhere "No secrets in output"). Pure values, no imports:
// the pinned programs read this file too.

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

// The formats every other id is built from.

/** A sha256 as 64 lowercase hex (a key id, a nonce, an allowlisted program's digest). */
export const HEX64_RE = /^[0-9a-f]{64}$/;
/** A digest as governed writes it everywhere: `sha256:` + 64 lowercase hex. */
export const DIGEST_RE = /^sha256:[0-9a-f]{64}$/;
/** A git object id: SHA-1 (40 hex) or SHA-256 (64 hex) repositories. */
export const GIT_OID_RE = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** A name a policy gives a slot, a reviewer, a credential or a tool: lowercase, at most 32 characters. */
export const NAME_RE = /^[a-z][a-z0-9_-]{0,31}$/;
/**
 * A writer session (`--writer-session`), chosen by the caller, so confined to a small identifier
 * alphabet: it appears in error ids, log payloads and receipts and must never carry free text.
 */
export const WRITER_SESSION_RE = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;

// The request contract's item ids (docs/contract.md#validation-rules) and what cites them.

/** A contract item id (`DIR-1`, `ATOM-3`): unique across the contract; errors, bundles and reviewer
 * output may carry it, so its alphabet is closed and short. */
export const CONTRACT_ID_RE = /^[A-Z][A-Z0-9]{1,7}-[A-Za-z0-9._-]{1,24}$/;
/** A coverage relation `FROM>TO` between two contract item ids (docs/reviewers.md#the-reviewers-world). */
export const CONTRACT_RELATION_RE = /^[A-Z][A-Z0-9]{1,7}-[A-Za-z0-9._-]{1,24}>[A-Z][A-Z0-9]{1,7}-[A-Za-z0-9._-]{1,24}$/;
/** The id of a signed authority record as a contract cites it: the item alphabet, a suffix of up to
 * 64 characters (a record id may carry a full hex digest). */
export const AUTHORITY_RECORD_ID_RE = /^[A-Z][A-Z0-9]{1,7}-[A-Za-z0-9._-]{1,64}$/;

// --- Other formats that cross a process or file boundary (one spelling each) ------------------------

/** An item id of a review protocol's answers (a finding, an issue, a lane's finding). */
export const PROTOCOL_ITEM_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;
/** An error code as it crosses a process boundary (the daemon's and the sandbox host's answers, a
 * run's recorded refusal). */
export const ERROR_CODE_RE = /^[a-z][a-z0-9_]{0,63}$/;
/** A boot id (/proc/sys/kernel/random/boot_id): a UUID's 36 characters. */
export const BOOT_ID_RE = /^[0-9a-f-]{36}$/;
/** A system user or group name as governed creates and names them (the portable useradd rule). */
export const SYSTEM_NAME_RE = /^[a-z_][a-z0-9_-]{0,30}$/;
/** A process id as a writer names it on the command line. */
export const PID_TEXT_RE = /^[1-9][0-9]{0,9}$/;
/** A positive decimal of at most 16 digits: a log entry or size as the command line and the audit
 * state note spell it. */
export const POSITIVE_DECIMAL_RE = /^[1-9][0-9]{0,15}$/;
/** Standard padded base64 (RFC 4648 §4): its grammar only (canonical bytes are src/core/base64.ts's
 * rule). */
export const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** The base64 alphabet with up to two `=`, for byte fields a line protocol decodes strictly later. */
export const BASE64_CHARS_RE = /^[A-Za-z0-9+/]*={0,2}$/;
/** Standard padded base64 of exactly 32 bytes (a tree hash, a checkpoint root). */
export const HASH32_BASE64_RE = /^[A-Za-z0-9+/]{43}=$/;
