// The tlog-checkpoint attestor (src/core/tlog-attestor.ts, docs/audit.md "Checkpoints"): the `log`
// credential's signer of C2SP checkpoints. Bundled by scripts/build.mjs into ONE self-contained
// file, attestors/tlog-note.mjs, pinned by sha256 in the policy like every attestor.
// Usage: node tlog-note.mjs <config.json>  (stdin: {payloadType, payload}; stdout: {keyid, sig})
//        node tlog-note.mjs --serve <config.json>  (the daemon's warm log attestor, under the log
//        uid: docs/runnerd.md#checkpoints; one request line, one answer line, each judged whole)
// It is not blind: it signs only the exact body of a checkpoint of the origin its config names.
import { createHash } from 'node:crypto';
import * as ed from '@noble/ed25519';
import { checkpointBody, parseCheckpointBody } from '../../src/core/signed-note.js';
import { parseTlogAttestorConfig, TLOG_CHECKPOINT_PAYLOAD_TYPE, type TlogAttestorConfig } from '../../src/core/tlog-attestor.js';
import { ATTESTOR_EXIT_REFUSED } from '../../src/core/attestor-protocol.js';
import { ATTESTOR_REQUEST_FORMAT } from '../../src/core/attestor-protocol.js';
import { checkFormat } from '../../src/core/format/interpret.js';
import { TLOG_ATTESTOR_REQUEST_MAX_BYTES } from '../../src/core/limits.js';
import { Refusal, readStdin, refuse } from './lib/key-file.js';
import { serveLines } from './lib/serve-lines.js';
import { loadAttestor, type LoadedAttestor } from './lib/load.js';

ed.hashes.sha512 = (message) => new Uint8Array(createHash('sha512').update(message).digest());

type Loaded = LoadedAttestor<TlogAttestorConfig>;

const load = (selfPath: string, configPath: string): Loaded => loadAttestor(selfPath, configPath, parseTlogAttestorConfig);

/** One request (the JSON text of {payloadType, payload}) → {keyid, sig}, or a Refusal. */
function signOne(l: Loaded, requestText: string): { keyid: string; sig: string } {
  let req: unknown;
  try {
    req = JSON.parse(requestText);
  } catch {
    refuse('request_invalid');
  }
  // The attestor request format, one definition for every attestor (src/core/attestor-protocol.ts).
  const parsed = checkFormat(ATTESTOR_REQUEST_FORMAT, req);
  if (!parsed.success) return refuse('request_invalid');
  const r = parsed.data;
  if (r.payloadType !== TLOG_CHECKPOINT_PAYLOAD_TYPE) refuse('payload_type');
  const payload = Buffer.from(r.payload, 'base64');
  if (payload.toString('base64') !== r.payload) refuse('request_invalid');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(payload);
  } catch {
    return refuse('statement_invalid');
  }
  // Exactly a checkpoint body, re-encoded to the same bytes, of this log's origin.
  const cp = parseCheckpointBody(text);
  if (cp === null || checkpointBody(cp) !== text) refuse('statement_invalid');
  if (cp?.origin !== l.config.origin) refuse('foreign_kind');
  const sig = ed.sign(payload, l.seed);
  return { keyid: l.keyid, sig: Buffer.from(sig).toString('base64') };
}

function main(): void {
  const configPath = process.argv[2];
  const selfPath = process.argv[1];
  if (configPath === undefined || selfPath === undefined || process.argv.length !== 3) refuse('config_invalid');
  const loaded = load(selfPath as string, configPath as string);
  process.stdout.write(`${JSON.stringify(signOne(loaded, readStdin(TLOG_ATTESTOR_REQUEST_MAX_BYTES)))}\n`);
}

try {
  if (process.argv[2] === '--serve' && process.argv.length === 4) {
    const configPath = process.argv[3] as string;
    const selfPath = process.argv[1] as string;
    serveLines(() => load(selfPath, configPath), signOne, TLOG_ATTESTOR_REQUEST_MAX_BYTES);
  } else main();
} catch (e) {
  if (e instanceof Refusal) {
    process.stderr.write(`refused:${e.code}\n`);
    process.exitCode = ATTESTOR_EXIT_REFUSED;
  } else {
    process.stderr.write('failed\n');
    process.exitCode = 1;
  }
}
