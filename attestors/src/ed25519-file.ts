// The Ed25519 file-key attestor (docs/formats.md#attestors). Bundled by scripts/build.mjs into ONE self-contained
// file, attestors/ed25519-file.mjs, whose sha256 is pinned in the policy: it imports nothing at run
// time but Node built-ins. Signing uses @noble/ed25519 (bundled in); verification elsewhere is
// node:crypto only.
//
// Usage: node ed25519-file.mjs <config.json>  (stdin: {payloadType, payload}; stdout: {keyid, sig})
//
// It is not blind: it signs only an in-toto statement of the one kind its config names, whose
// predicate passes that kind's schema and names this very program's sha256 for its credential.
import { createHash } from 'node:crypto';
import * as ed from '@noble/ed25519';
// The compiled forms of the one definitions every other path reads (docs/architecture.md#compiled-formats):
// the attestor carries no zod, so it starts in about the time of a bare node start.
import { ATTESTOR_EXIT_REFUSED, ATTESTOR_KINDS, SERVE_MAX_LINE, selfDigestField, type AttestorConfig, ATTESTOR_CONFIG_FORMAT, ATTESTOR_REQUEST_FORMAT } from '../../src/core/attestor-protocol.js';
import { ATTESTOR_REQUEST_MAX_BYTES } from '../../src/core/limits.js';
import { pae } from '../../src/core/pae.js';
import { canonicalJson, jcs } from '../../src/core/canonical.js';
import { IN_TOTO_PAYLOAD_TYPE } from '../../src/core/dsse.js';
import { STATEMENT_FORMAT } from '../../src/core/intoto.js';
import { checkFormat } from '../../src/core/format/interpret.js';
import { predicateRuleViolation, RECEIPT_PREDICATE_FORMAT } from '../../src/core/receipt-predicate.js';
import { VSA_EXTENSION_KEY, vsaRuleViolation, VSA_PREDICATE_FORMAT } from '../../src/core/vsa.js';
import { checkpointViolation, type CheckpointPredicate } from '../../src/core/checkpoint.js';
import { probeRuleViolation, PROBE_PREDICATE_FORMAT } from '../../src/core/preservation/probe.js';
import { Refusal, readStdin, refuse } from './lib/key-file.js';
import { serveLines } from './lib/serve-lines.js';
import { loadAttestor, type LoadedAttestor } from './lib/load.js';
import { utf8OrNull } from '../../src/core/utf8.js';

// @noble/ed25519 takes its SHA-512 from this documented provider slot. node:crypto's (OpenSSL) is
// used instead of the pure-JS @noble/hashes one: the same function, without a cold JIT of the
// hash over the whole PAE bytes (≈13 ms of CPU per signature measured here) — the curve
// arithmetic stays noble's (docs/formats.md#attestors).
ed.hashes.sha512 = (message) => new Uint8Array(createHash('sha512').update(message).digest());

type Loaded = LoadedAttestor<AttestorConfig>;

const load = (selfPath: string, configPath: string): Loaded =>
  loadAttestor(selfPath, configPath, (v) => {
    const r = checkFormat(ATTESTOR_CONFIG_FORMAT, v);
    return r.success ? r.data : null;
  });

/** One request (the JSON text of {payloadType, payload}) → the response object, or a Refusal. */
function signOne(l: Loaded, requestText: string): { keyid: string; sig: string } {
  const { config, seed, keyid, self } = l;
  // Request: closed schema; payload base64 decodes canonically.
  let reqValue: unknown;
  try {
    reqValue = JSON.parse(requestText);
  } catch {
    refuse('request_invalid');
  }
  const parsedReq = checkFormat(ATTESTOR_REQUEST_FORMAT, reqValue);
  if (!parsedReq.success) return refuse('request_invalid');
  const req = parsedReq.data;
  if (req.payloadType !== IN_TOTO_PAYLOAD_TYPE) refuse('payload_type');
  const payload = Buffer.from(req.payload, 'base64');
  if (payload.toString('base64') !== req.payload) refuse('request_invalid');

  // Payload: exact RFC 8785 bytes of an in-toto Statement of this attestor's one kind.
  let text: string;
  let value: unknown;
  try {
    text = utf8OrNull(payload) ?? refuse('payload_not_canonical');
    value = JSON.parse(text);
    if (jcs(value) !== text) refuse('payload_not_canonical');
  } catch (e) {
    if (e instanceof Refusal) throw e;
    refuse('payload_not_canonical');
  }
  const parsedSt = checkFormat(STATEMENT_FORMAT, value);
  if (!parsedSt.success) return refuse('statement_invalid');
  const st = parsedSt.data;
  if (st.predicateType !== ATTESTOR_KINDS[config.kind]) refuse('foreign_kind');

  const field = selfDigestField(config.kind, config.credential);
  if (field === null) refuse('credential_role');
  if (config.kind === 'review-receipt') {
    const parsed = checkFormat(RECEIPT_PREDICATE_FORMAT, st.predicate);
    if (!parsed.success) return refuse('predicate_invalid');
    const p = parsed.data;
    if (predicateRuleViolation(p, canonicalJson) !== null) refuse('predicate_invalid');
    // Its own sha256 inside the predicate: a receipt naming another attestor is not signed here.
    if ((p.attestors as Record<string, string>)[field as string] !== self) refuse('self_digest_mismatch');
  } else if (config.kind === 'decision') {
    // A decision (SLSA VSA, src/core/vsa.ts) is signed only by the gate credential (selfDigestField),
    // only when its closed predicate passes the schema and the cross-field rules (the outcome fields
    // agree, the subject is the commit content it names), and only when it names this program.
    const parsed = checkFormat(VSA_PREDICATE_FORMAT, st.predicate);
    if (!parsed.success) return refuse('predicate_invalid');
    const p = parsed.data;
    if (vsaRuleViolation({ subject: st.subject, predicate: p }) !== null) refuse('predicate_invalid');
    if (p[VSA_EXTENSION_KEY].attestor_sha256 !== self) refuse('self_digest_mismatch');
  } else if (config.kind === 'checkpoint') {
    // A log checkpoint (src/core/checkpoint.ts) is signed by the log credential only, only when it is
    // a closed checkpoint whose subject is the head it names, and only when it names this program.
    if (checkpointViolation(st) !== null) return refuse('predicate_invalid');
    if ((st.predicate as unknown as CheckpointPredicate).attestor_sha256 !== self) refuse('self_digest_mismatch');
  } else if (config.kind === 'probe') {
    // A probe receipt is signed by the probe credential only, only when its closed predicate passes
    // the schema and its rule, its subject is the snapshot it names, and it names this program.
    const parsed = checkFormat(PROBE_PREDICATE_FORMAT, st.predicate);
    if (!parsed.success) return refuse('predicate_invalid');
    const p = parsed.data;
    if (probeRuleViolation(p) !== null) refuse('predicate_invalid');
    const subject = st.subject;
    if (subject.length !== 1 || subject[0]?.name !== `snapshot:${p.phase}` || subject[0]?.digest.sha256 !== p.snapshot_digest.slice(7)) refuse('predicate_invalid');
    if (p.attestor_sha256 !== self) refuse('self_digest_mismatch');
  } else {
    refuse('foreign_kind');
  }

  const sig = ed.sign(pae(req.payloadType, payload), seed);
  return { keyid, sig: Buffer.from(sig).toString('base64') };
}

function main(): void {
  const configPath = process.argv[2];
  const selfPath = process.argv[1];
  if (configPath === undefined || selfPath === undefined || process.argv.length !== 3) refuse('config_invalid');
  const loaded = load(selfPath as string, configPath as string);
  process.stdout.write(`${JSON.stringify(signOne(loaded, readStdin(ATTESTOR_REQUEST_MAX_BYTES)))}\n`);
}

/**
 * `--serve <config.json>`: the warm attestor of separated mode (docs/runnerd.md "Warm attestors"):
 * the key read once, then the loop of ./lib/serve-lines.ts over the very checks of the one-shot mode.
 */
function serve(configPath: string, selfPath: string): void {
  serveLines(() => load(selfPath, configPath), signOne, SERVE_MAX_LINE);
}

try {
  if (process.argv[2] === '--serve' && process.argv.length === 4) serve(process.argv[3] as string, process.argv[1] as string);
  else main();
} catch (e) {
  if (e instanceof Refusal) {
    process.stderr.write(`refused:${e.code}\n`);
    process.exitCode = ATTESTOR_EXIT_REFUSED;
  } else {
    // Never echo the error text: it could contain paths or payload fragments.
    process.stderr.write('failed\n');
    process.exitCode = 1;
  }
}
