// The runnerd socket protocol (docs/runnerd.md "The socket protocol"): what a writer-side client may
// ask the daemon, one strict JSON object per line, size-capped. One definition (zod/mini) for the
// daemon's parser, the client's builder and docs/schemas. Pure.
//
// Every request names an operation and IDs. Content crosses only as git objects (a git bundle of one
// commit, base64); there is no field that carries a receipt, a verdict, a reviewer output, a probe
// result or a path for the daemon to open — the schemas are closed, so such a field is refused.
import * as z from 'zod/mini';
import { gitId, int, str } from './schema-primitives.js';
import { CHALLENGE_ID_RE, DIGEST_RE, LEASE_ID_RE, NAME_RE, RECORD_ID_RE, UNIT_ID_RE, WRITER_SESSION_RE } from './ids.js';
import { CODED_ERROR_ID_MAX_CHARS, CODED_ERROR_MESSAGE_MAX_CHARS, ID_FIELD_MAX_CHARS, RUNNERD_IDS_MAX_CHARS } from './limits.js';
import { BASE64_CHARS_RE, ERROR_CODE_RE } from './ids.js';
import { KERNEL_PID_MAX } from './limits.js';

export { RUNNERD_MAX_CONNECTIONS, RUNNERD_MAX_REQUEST_BYTES, RUNNERD_MAX_RESPONSE_BYTES } from './limits.js';
/** A request must arrive whole within this time after the connection opened. */
export const RUNNERD_REQUEST_TIMEOUT_MS = 10_000;

const unit = str({ re: UNIT_ID_RE });
const session = str({ re: WRITER_SESSION_RE });
const challenge = str({ re: CHALLENGE_ID_RE });
const lease = str({ re: LEASE_ID_RE });
const receipt = str({ re: DIGEST_RE });
const name = str({ re: NAME_RE });
const duration = str({ re: /^[0-9]{1,9}[smhd]$/ });
const b64 = str({ re: BASE64_CHARS_RE, min: 4 });
const record = str({ re: RECORD_ID_RE });

/** The reviewed content: one commit and a git bundle that contains it (verified by the daemon). */
export const contentSchema = z.strictObject({ commit: gitId, bundle_b64: b64 });
export type RunnerdContent = z.infer<typeof contentSchema>;

const V = { v: z.literal(1) };
export const runnerdRequestSchema = z.discriminatedUnion('op', [
  z.strictObject({ ...V, op: z.literal('hello') }),
  z.strictObject({ ...V, op: z.literal('unit-create'), contract_b64: b64, baseline: gitId, content: contentSchema }),
  z.strictObject({ ...V, op: z.literal('writer-register'), unit, writer_session: session, pid: z.optional(int(1, KERNEL_PID_MAX)) }),
  z.strictObject({ ...V, op: z.literal('lease-acquire'), unit, writer_session: session, ttl: duration }),
  z.strictObject({ ...V, op: z.literal('lease-release'), lease, writer_session: session }),
  z.strictObject({ ...V, op: z.literal('lease-list'), unit: z.optional(unit) }),
  // `progress: true`: the client shows progress (docs/commands.md#progress-on-stderr); the daemon
  // then writes a progress frame (below) as each phase starts, before its one response line.
  z.strictObject({ ...V, op: z.literal('review-challenge'), unit, writer_session: session, stage: name, slot: name, content: contentSchema, progress: z.optional(z.literal(true)) }),
  z.strictObject({ ...V, op: z.literal('review-run'), challenge, progress: z.optional(z.literal(true)) }),
  z.strictObject({ ...V, op: z.literal('status'), unit, content: contentSchema }),
  z.strictObject({ ...V, op: z.literal('receipt-show'), receipt }),
  // The next scope version of a unit (`unit bind`): the contract bytes, the writer's content (its
  // baseline sources and, for --dry-run, its uncovered changes are read from the daemon's copy) and
  // the ids of authority records already recorded in the store.
  z.strictObject({ ...V, op: z.literal('unit-bind'), unit, contract_b64: b64, content: contentSchema, authority: z.array(record).check(z.maxLength(64)), dry_run: z.boolean() }),
  // The deploy side's read (`gate --runner`): a consistent copy of the store for the client to judge
  // under its own --trust, --policy-digest and --subject. Nothing of the decision is the daemon's.
  z.strictObject({ ...V, op: z.literal('store-copy'), unit }),
  // Human authority through the daemon (docs/runnerd.md "Human authority through the daemon"). The
  // values are the command's own options, judged by the daemon exactly as co-located mode judges
  // them (so a bad one gets the same code); documents and contracts travel as their bytes.
  z.strictObject({
    ...V,
    op: z.literal('authority-request'),
    operation: str({ max: 64 }),
    unit: z.optional(unit),
    ids: z.optional(str({ max: RUNNERD_IDS_MAX_CHARS })),
    state_before: z.optional(str({ max: ID_FIELD_MAX_CHARS })),
    state_after: z.optional(str({ max: ID_FIELD_MAX_CHARS })),
    ttl: z.optional(str({ max: 32 })),
    document_b64: z.optional(b64),
    contract_b64: z.optional(b64),
  }),
  // The signed record (a DSSE envelope, signed where the authority key lives), verified by the daemon.
  z.strictObject({ ...V, op: z.literal('authority-record'), record_b64: b64 }),
  z.strictObject({
    ...V,
    op: z.literal('unit-dismiss'),
    operation: z.enum(['dismiss', 'dismiss_veto']),
    unit,
    authority: z.optional(str({ max: ID_FIELD_MAX_CHARS })),
    ids: z.optional(str({ max: RUNNERD_IDS_MAX_CHARS })),
    dry_run: z.boolean(),
  }),
  z.strictObject({ ...V, op: z.literal('pin-update'), kind: z.enum(['policy', 'trust']), document_b64: b64, authority: str({ max: ID_FIELD_MAX_CHARS }) }),
  // Preservation through the daemon (docs/runnerd.md#probes-through-the-daemon): the contract as its
  // bytes; a probe sends the adapter program as its bytes (the daemon runs it only when its sha256 is
  // on the pinned policy's allowlist) and the writer's content as a commit. The probe's result is
  // never sent: the daemon runs the adapter and signs what it observed.
  z.strictObject({ ...V, op: z.literal('preservation-set'), unit, contract_b64: b64, authority: z.array(record).check(z.maxLength(64)), incident_history: z.boolean() }),
  z.strictObject({
    ...V,
    op: z.literal('preservation-probe'),
    unit,
    phase: z.enum(['baseline', 'current']),
    surface: z.optional(str({ max: ID_FIELD_MAX_CHARS })),
    adapter_b64: b64,
    content: contentSchema,
  }),
]);
export type RunnerdRequest = z.infer<typeof runnerdRequestSchema>;
export type RunnerdOp = RunnerdRequest['op'];

const errorShape = z.strictObject({ code: str({ re: ERROR_CODE_RE }), exit: int(0, 9), message: str({ max: CODED_ERROR_MESSAGE_MAX_CHARS }), ids: z.array(str({ max: CODED_ERROR_ID_MAX_CHARS })) });
/** The reply: the command's own result (what co-located mode prints) or its coded error. */
export const runnerdResponseSchema = z.union([
  z.strictObject({
    ok: z.literal(true),
    exit: int(0, 9),
    json: z.record(z.string(), z.unknown()),
    human: z.string(),
    /** An error line co-located mode prints on stderr beside a result (an ABORTED run). */
    diagnostic: z.optional(errorShape),
    /** receipt-show: the exact stored envelope bytes. */
    envelope_b64: z.optional(b64),
    /** authority-request: the presentation the client writes to its --out. */
    presentation_b64: z.optional(b64),
    /** store-copy: the store's database (sqlite3_serialize, gzip) and its newest stored checkpoint note. */
    store_copy: z.optional(z.strictObject({ db_gz_b64: b64, checkpoint: z.optional(z.strictObject({ size: int(0, Number.MAX_SAFE_INTEGER), note_b64: b64 })) })),
  }),
  z.strictObject({ ok: z.literal(false), error: errorShape }),
]);
export type RunnerdResponse = z.infer<typeof runnerdResponseSchema>;

/**
 * A progress frame: one line before the response, only for a request that asked for progress. It
 * carries a phase id and a count, never words: the client prints the phase's fixed words from its
 * own table (src/core/progress.ts) and treats an id not in that table as a malformed response.
 */
export const runnerdProgressFrameSchema = z.strictObject({ progress: str({ re: /^[a-z]{1,16}$/ }), count: z.optional(int(0, Number.MAX_SAFE_INTEGER)) });
export type RunnerdProgressFrame = z.infer<typeof runnerdProgressFrameSchema>;
