// The presentation of an authority request (docs/authority.md#human-authority-records): the exact canonical statement to sign plus a
// human-readable rendering of it. `authority request` writes it; `authority sign` reads it, renders
// the statement AGAIN from the payload bytes and refuses a file whose stored rendering differs — so
// what the human is shown is always derived from what they sign, never from text beside it.
//
// Every rendered value comes from the closed predicate (operation enum, IDs, digests, times: closed
// alphabets), and the fixed meaning line comes from OPERATION_RULES, so no terminal control
// sequence can reach the signer's screen through a presentation.
import * as z from 'zod/mini';
import { str } from '../schema-primitives.js';
import { AUTHORITY_PAYLOAD_MAX_CHARS, AUTHORITY_RENDERING_MAX_CHARS } from '../limits.js';
import { IN_TOTO_PAYLOAD_TYPE } from '../dsse.js';
import { OPERATION_RULES } from './operations.js';
import { REQUEST_ID_RE, RECORD_ID_RE } from './ids.js';
import type { AuthorityStatement } from './predicate.js';

export const PRESENTATION_KIND = 'governed/authority-presentation';

export const presentationSchema = z.strictObject({
  kind: z.literal(PRESENTATION_KIND),
  version: z.literal(1),
  request_id: str({ re: REQUEST_ID_RE }),
  record_id: str({ re: RECORD_ID_RE }),
  payloadType: z.literal(IN_TOTO_PAYLOAD_TYPE),
  /** Standard base64 of the exact RFC 8785 statement bytes to sign. */
  payload: str({ min: 1, max: AUTHORITY_PAYLOAD_MAX_CHARS }),
  rendering: str({ max: AUTHORITY_RENDERING_MAX_CHARS }),
});

export type Presentation = z.infer<typeof presentationSchema>;

/** What the human types to confirm: the first 8 hex of the record id (= of the payload's sha256). */
export function confirmationCodeOf(recordId: string): string {
  return recordId.slice('REC-'.length, 'REC-'.length + 8);
}

/** Deterministic text of a statement, one fact per line. */
export function renderAuthorityStatement(statement: AuthorityStatement, recordId: string, payloadDigest: string): string {
  const p = statement.predicate;
  const rule = OPERATION_RULES[p.operation];
  const lines = [
    'GOVERNED AUTHORITY DECISION (read every line before signing)',
    `  operation     ${p.operation}`,
    `  meaning       ${rule.meaning}`,
    `  unit          ${p.unit ?? '(none: store-wide)'}`,
    `  covers        ${p.ids.length} ID${p.ids.length === 1 ? '' : 's'}`,
    ...p.ids.map((id) => `                ${id}`),
    `  state before  ${p.state_before ?? '(none)'}`,
    `  state after   ${p.state_after ?? '(none)'}`,
    `  subject       ${statement.subject.map((s) => `${s.name} sha256:${s.digest.sha256}`).join(', ')}`,
    `  request       ${p.request_id}`,
    `  nonce         ${p.nonce}`,
    `  issued at     ${p.issued_at}`,
    `  expires at    ${p.expires_at}`,
    `  payload       ${payloadDigest}`,
    `  record id     ${recordId}`,
  ];
  return `${lines.join('\n')}\n`;
}
