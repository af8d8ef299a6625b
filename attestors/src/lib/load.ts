// The start of both pinned attestors (attestors/src/ed25519-file.ts and attestors/src/tlog-note.ts),
// bundled into each: the config read and judged by the attestor's own rule, the key it names read
// (private to its owner) and checked to be that key, and this very program's sha256, read once from
// the bytes the process was started from (docs/runnerd.md#warm-attestors). Every refusal is a code of
// the one attestor protocol list.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import * as ed from '@noble/ed25519';
import { ED25519_SPKI_PREFIX } from '../../../src/core/ed25519.js';
import { readPrivateFile, refuse, seedFromPkcs8Pem } from './key-file.js';

export interface LoadedAttestor<C> {
  readonly config: C;
  readonly seed: Uint8Array;
  readonly keyid: string;
  /** This very program's sha256 (the warm attestor's `ready` line names it). */
  readonly self: string;
}

/** `parse` is the attestor's config rule: null refuses (config_invalid). The caller has set noble's SHA-512. */
export function loadAttestor<C extends { readonly key_ref: string; readonly key_id: string }>(selfPath: string, configPath: string, parse: (v: unknown) => C | null): LoadedAttestor<C> {
  let configValue: unknown;
  try {
    configValue = JSON.parse(readFileSync(configPath, 'utf8'));
  } catch {
    refuse('config_invalid');
  }
  const config = parse(configValue);
  if (config === null) return refuse('config_invalid');
  // Key: PKCS#8 PEM, private to its owner, and it must be the key the config names.
  const seed = seedFromPkcs8Pem(readPrivateFile(config.key_ref).toString('utf8'));
  const keyid = createHash('sha256').update(Buffer.concat([ED25519_SPKI_PREFIX, ed.getPublicKey(seed)])).digest('hex');
  if (keyid !== config.key_id) refuse('key_id_mismatch');
  const self = createHash('sha256').update(readFileSync(selfPath)).digest('hex');
  return { config, seed, keyid, self };
}
