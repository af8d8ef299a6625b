// The tlog-checkpoint attestor (src/core/tlog-attestor.ts, docs/audit.md "Checkpoints"): the `log`
// credential's signer of C2SP checkpoints. Bundled by scripts/build.mjs into ONE self-contained
// file, attestors/tlog-note.mjs, pinned by sha256 in the policy like every attestor.
// Usage: node tlog-note.mjs <config.json>  (stdin: {payloadType, payload}; stdout: {keyid, sig})
// It is not blind: it signs only the exact body of a checkpoint of the origin its config names.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import * as ed from '@noble/ed25519';
import { ED25519_SPKI_PREFIX } from '../../src/core/ed25519.js';
import { checkpointBody, parseCheckpointBody } from '../../src/core/signed-note.js';
import { parseTlogAttestorConfig, TLOG_CHECKPOINT_PAYLOAD_TYPE } from '../../src/core/tlog-attestor.js';
import { attestorRequestSchema } from '../../src/core/attestor-protocol.js';
import { TLOG_ATTESTOR_REQUEST_MAX_BYTES } from '../../src/core/limits.js';
import { Refusal, readPrivateFile, readStdin, refuse, seedFromPkcs8Pem } from './lib/key-file.js';

ed.hashes.sha512 = (message) => new Uint8Array(createHash('sha512').update(message).digest());

function main(): void {
  const configPath = process.argv[2];
  if (configPath === undefined || process.argv.length !== 3) refuse('config_invalid');
  let configValue: unknown;
  try {
    configValue = JSON.parse(readFileSync(configPath as string, 'utf8'));
  } catch {
    refuse('config_invalid');
  }
  const config = parseTlogAttestorConfig(configValue);
  if (config === null) return refuse('config_invalid');
  const seed = seedFromPkcs8Pem(readPrivateFile(config.key_ref).toString('utf8'));
  const pub = ed.getPublicKey(seed);
  const keyid = createHash('sha256').update(Buffer.concat([ED25519_SPKI_PREFIX, pub])).digest('hex');
  if (keyid !== config.key_id) refuse('key_id_mismatch');

  let req: unknown;
  try {
    req = JSON.parse(readStdin(TLOG_ATTESTOR_REQUEST_MAX_BYTES));
  } catch {
    refuse('request_invalid');
  }
  // The attestor request format, one definition for every attestor (src/core/attestor-protocol.ts).
  const parsed = attestorRequestSchema.safeParse(req);
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
  if (cp?.origin !== config.origin) refuse('foreign_kind');
  const sig = ed.sign(payload, seed);
  process.stdout.write(`${JSON.stringify({ keyid, sig: Buffer.from(sig).toString('base64') })}\n`);
}

try {
  main();
} catch (e) {
  if (e instanceof Refusal) {
    process.stderr.write(`refused:${e.code}\n`);
    process.exitCode = 3;
  } else {
    process.stderr.write('failed\n');
    process.exitCode = 1;
  }
}
