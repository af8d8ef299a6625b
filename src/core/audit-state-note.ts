// The auditor's signed state note (docs/audit.md#incremental-audit): what `audit verify --state DIR`
// keeps after a clean audit, so that the next audit re-checks only the entries after it. Its body
// names the log, the size and Merkle root of the tree the audit derived, the chain head, the state
// digest of the replayed tables at that size, the digest of the record checks' carried state and
// the trust mode; it is a signed note (./signed-note.ts) signed by the auditor's own key under the
// key name AUDIT_STATE_KEY_NAME. Pure.
//
//   governed-audit-state/v1
//   log <entry hash of log entry 1>
//   size <entries>
//   root <base64 Merkle root of those entries>
//   head <entry hash of the last of them>
//   state <stateDigest of the replayed tables>
//   carry <sha256 of the carry file's bytes>
//   trust pinned-at-position | <digest of the --trust root>
import * as z from 'zod/mini';
import { int, str } from './schema-primitives.js';
import { parseSignedNote, type SignedNote } from './signed-note.js';
import { DIGEST_RE } from './ids.js';
import { AUDIT_STATE_ID_MAX_CHARS } from './limits.js';
import { HASH32_BASE64_RE, POSITIVE_DECIMAL_RE } from './ids.js';

export const AUDIT_STATE_HEADER = 'governed-audit-state/v1';
export const AUDIT_STATE_KEY_NAME = 'governed-audit-state';

export interface AuditStateAnchor {
  readonly log: string;
  readonly size: number;
  readonly root: Buffer;
  readonly head: string;
  readonly state: string;
  readonly carry: string;
  readonly trust: string;
}

const SIZE_RE = POSITIVE_DECIMAL_RE;
const ROOT_RE = HASH32_BASE64_RE;
const KEYS = ['log', 'size', 'root', 'head', 'state', 'carry', 'trust'] as const;

export function auditStateBody(a: AuditStateAnchor): string {
  return [
    AUDIT_STATE_HEADER,
    `log ${a.log}`,
    `size ${a.size}`,
    `root ${a.root.toString('base64')}`,
    `head ${a.head}`,
    `state ${a.state}`,
    `carry ${a.carry}`,
    `trust ${a.trust}`,
    '',
  ].join('\n');
}

/** The anchor of a signed state note's text; null when the note or its body is not of this format. */
export function parseAuditStateNote(text: string): { anchor: AuditStateAnchor; note: SignedNote } | null {
  const note = parseSignedNote(text);
  if (note === null) return null;
  const lines = note.text.split('\n');
  if (lines.length !== KEYS.length + 2 || lines[0] !== AUDIT_STATE_HEADER || lines.at(-1) !== '') return null;
  const v: Record<string, string> = {};
  for (const [i, k] of KEYS.entries()) {
    const line = lines[i + 1] as string;
    if (!line.startsWith(`${k} `)) return null;
    v[k] = line.slice(k.length + 1);
  }
  const { log, size, root, head, state, carry, trust } = v as Record<(typeof KEYS)[number], string>;
  if (!DIGEST_RE.test(log) || !SIZE_RE.test(size) || !ROOT_RE.test(root) || !DIGEST_RE.test(head) || !DIGEST_RE.test(state) || !DIGEST_RE.test(carry)) return null;
  if (trust !== 'pinned-at-position' && !DIGEST_RE.test(trust)) return null;
  const n = Number(size);
  const r = Buffer.from(root, 'base64');
  if (!Number.isSafeInteger(n) || r.length !== 32 || r.toString('base64') !== root) return null;
  return { anchor: { log, size: n, root: r, head, state, carry, trust }, note };
}

const id = str({ min: 1, max: AUDIT_STATE_ID_MAX_CHARS });
const payload = z.record(z.string(), z.unknown());

/**
 * The carry file (carry.json, RFC 8785): what the audit's record checks hold across the log at the
 * note's size — the ids of every challenge issued, claimed and answered (single use), the payload
 * of each challenge issued and not yet answered and of each run claimed and not yet answered (a
 * later receipt is bound to them), and each authority record not yet consumed (it is checked at
 * its consumption, which may come later). The payloads are the log's own, checked when first read.
 */
export const auditCarrySchema = z.strictObject({
  version: z.literal(1),
  issued: z.array(id),
  claimed: z.array(id),
  answered: z.array(id),
  issues: z.array(z.tuple([id, payload])),
  claims: z.array(z.tuple([id, payload])),
  authority: z.array(z.strictObject({ seq: int(1), time: int(0), p: payload })),
});
export type AuditCarry = z.infer<typeof auditCarrySchema>;
