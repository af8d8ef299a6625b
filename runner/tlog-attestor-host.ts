// Pins the log's tlog-checkpoint attestor (src/core/tlog-attestor.ts) and runs it through the
// shared attestor host (runner/attestor-host.ts: sealed copy, empty environment, caps, the
// signature verified here under the expected key before anyone sees it — over the note body).
import { fail } from '../src/core/errors.js';
import type { PublicKey } from '../src/core/ed25519.js';
import { parseTlogAttestorConfig, TLOG_CHECKPOINT_PAYLOAD_TYPE, type TlogAttestorConfig } from '../src/core/tlog-attestor.js';
import { runPinnedAttestor, type AttestorAllowlist, type PinnedAttestor } from './attestor-host.js';
import { readPinned } from './pinned-file.js';
import { ATTESTOR_CONFIG_MAX_BYTES, ATTESTOR_PROGRAM_MAX_BYTES } from '../src/core/limits.js';

export interface PinnedTlogAttestor extends PinnedAttestor {
  readonly tlog: TlogAttestorConfig;
}

/** The config's parsed content, or null when the file is not a tlog-checkpoint config. Nothing is pinned or run. */
export function peekTlogConfig(configPath: string): TlogAttestorConfig | null {
  try {
    return parseTlogAttestorConfig(JSON.parse(readPinned(configPath, ATTESTOR_CONFIG_MAX_BYTES).bytes.toString('utf8')));
  } catch {
    return null;
  }
}

/** Hash and allowlist-check the attestor and its config; the config must be a tlog-checkpoint one. */
export function pinTlogAttestor(attestorPath: string, configPath: string, allow: AttestorAllowlist): PinnedTlogAttestor {
  const program = readPinned(attestorPath, ATTESTOR_PROGRAM_MAX_BYTES);
  const config = readPinned(configPath, ATTESTOR_CONFIG_MAX_BYTES);
  if (!allow.attestorSha256.includes(program.sha256)) fail('attestor_not_allowlisted', ['attestor']);
  if (!allow.configSha256.includes(config.sha256)) fail('attestor_not_allowlisted', ['attestor_config']);
  let parsed: unknown;
  try {
    parsed = JSON.parse(config.bytes.toString('utf8'));
  } catch {
    fail('attestor_config_invalid', []);
  }
  const tlog = parseTlogAttestorConfig(parsed);
  if (tlog === null) fail('attestor_config_invalid', []);
  return { program: program.bytes, programSha256: program.sha256, config: config.bytes, configSha256: config.sha256, tlog };
}

/** Sign a checkpoint body; returns the 64-byte signature, verified under `expectedKey`. */
export async function signCheckpointBody(pinned: PinnedTlogAttestor, expectedKey: PublicKey, body: string): Promise<Buffer> {
  const payload = Buffer.from(body, 'utf8');
  const signed = await runPinnedAttestor(pinned, { expectedKey, payloadType: TLOG_CHECKPOINT_PAYLOAD_TYPE, payload, signedBytes: payload });
  return signed.sig;
}
