// `governed authority sign` (docs/authority.md#human-authority-records): runs where the human's authority key lives. It reads the
// presentation, re-derives everything it shows from the statement bytes it will sign, shows it on
// the controlling terminal, asks for the typed confirmation code there, and only then signs
// (pure Ed25519 over the DSSE PAE bytes, node:crypto) and writes the envelope.
//
// Refused before any prompt: a malformed presentation, a rendering that is not the rendering of the
// payload, an expired request, a taken output path, an exposed or malformed key, no terminal.
import { sign as nodeSign } from 'node:crypto';
import { fail, isGovernedError } from '../../core/errors.js';
import { decodeBase64Strict } from '../../core/base64.js';
import { isCanonicalJsonText, sha256Digest } from '../../core/canonical.js';
import { encodeEnvelope, pae, IN_TOTO_PAYLOAD_TYPE } from '../../core/dsse.js';
import { verifyEd25519 } from '../../core/ed25519.js';
import { parseJsonStrict } from '../../core/strict-parse.js';
import {
  confirmationCodeOf,
  isExpiredAt,
  parseAuthorityStatement,
  presentationSchema,
  recordIdOf,
  renderAuthorityStatement,
  type AuthorityStatement,
} from '../../core/authority/index.js';
import { readInputFile } from '../read-input.js';
import { AUTHORITY_PRESENTATION_MAX_BYTES } from '../../core/limits.js';
import { utf8OrNull } from '../../core/utf8.js';
import { assertOutputFree, writeNewFile } from './output-file.js';
import { loadSigningKey } from './private-key.js';
import { openControllingTerminal } from './terminal.js';

export interface AuthoritySignOptions {
  readonly request: string;
  readonly key: string;
  readonly out: string;
  readonly now: number;
}

export interface AuthoritySignResult {
  readonly recordId: string;
  readonly requestId: string;
  readonly keyId: string;
  readonly payloadDigest: string;
  readonly out: string;
}

interface Presented {
  readonly payload: Buffer;
  readonly statement: AuthorityStatement;
  readonly recordId: string;
  readonly payloadDigest: string;
}

/** Strictly read a presentation and re-derive what it shows from the bytes to sign. */
export function readPresentation(path: string): Presented {
  const bytes = readInputFile(path, AUTHORITY_PRESENTATION_MAX_BYTES);
  let value: unknown;
  try {
    value = parseJsonStrict(utf8OrNull(bytes) ?? fail('authority_presentation_invalid', ['$']));
  } catch {
    fail('authority_presentation_invalid', ['$']);
  }
  const parsed = presentationSchema.safeParse(value);
  if (!parsed.success) fail('authority_presentation_invalid', parsed.error.issues.slice(0, 4).map((i) => i.path.map(String).join('.') || '$'));
  const pres = parsed.data;
  const payload = decodeBase64Strict(pres.payload, 'authority_presentation_invalid', 'payload');
  let statement: AuthorityStatement;
  try {
    const text = utf8OrNull(payload) ?? fail('authority_presentation_invalid', ['payload']);
    const { canonical, value: st } = isCanonicalJsonText(text);
    if (!canonical) fail('authority_presentation_invalid', ['payload']);
    statement = parseAuthorityStatement(st);
  } catch (e) {
    if (isGovernedError(e) && e.code === 'authority_presentation_invalid') throw e;
    fail('authority_presentation_invalid', ['payload', ...(isGovernedError(e) ? e.ids : [])]);
  }
  const recordId = recordIdOf(payload);
  if (recordId !== pres.record_id) fail('authority_presentation_invalid', ['record_id']);
  if (statement.predicate.request_id !== pres.request_id) fail('authority_presentation_invalid', ['request_id']);
  const payloadDigest = sha256Digest(payload);
  // What the human reads must be what they sign: the stored rendering is only accepted when it is
  // exactly the rendering of the payload.
  if (pres.rendering !== renderAuthorityStatement(statement, recordId, payloadDigest)) {
    fail('authority_presentation_mismatch', [pres.request_id]);
  }
  return { payload, statement, recordId, payloadDigest };
}

export function authoritySignFlow(opts: AuthoritySignOptions): AuthoritySignResult {
  const presented = readPresentation(opts.request);
  const requestId = presented.statement.predicate.request_id;
  if (isExpiredAt(presented.statement.predicate, opts.now)) fail('authority_expired', [requestId]);
  assertOutputFree(opts.out);
  const key = loadSigningKey(opts.key);

  const terminal = openControllingTerminal();
  let answer: string | null;
  const code = confirmationCodeOf(presented.recordId);
  try {
    terminal.write(renderAuthorityStatement(presented.statement, presented.recordId, presented.payloadDigest));
    terminal.write(`  signing key   ${key.publicKey.keyId}\n\n`);
    terminal.write(`Type ${code} and press Enter to sign this decision; anything else refuses: `);
    answer = terminal.readLine();
    terminal.write(answer !== null && answer.trim() === code ? 'signed\n' : 'refused: nothing was signed\n');
  } finally {
    terminal.close();
  }
  if (answer === null || answer.trim() !== code) fail('authority_not_confirmed', [requestId]);

  const message = pae(IN_TOTO_PAYLOAD_TYPE, presented.payload);
  const sig = nodeSign(null, message, key.privateKey);
  // Check our own signature with the one verifier every consumer uses.
  if (!verifyEd25519(key.publicKey, message, sig)) fail('signature_invalid', [key.publicKey.keyId]);
  const envelope = encodeEnvelope(IN_TOTO_PAYLOAD_TYPE, presented.payload, [{ keyid: key.publicKey.keyId, sig }]);
  writeNewFile(opts.out, Buffer.from(`${JSON.stringify(envelope)}\n`, 'utf8'));
  return { recordId: presented.recordId, requestId, keyId: key.publicKey.keyId, payloadDigest: presented.payloadDigest, out: opts.out };
}
