// Loading the human's authority signing key for `authority sign` (docs/authority.md#human-authority-records). The same rule as the
// attestor (attestors/src/ed25519-file.ts): the file is opened without following a symlink and
// fstat-ed on the open descriptor (no race between check and read); a key readable or writable by
// group or others is refused (`private_key_exposed`); only a PKCS#8 Ed25519 key is accepted.
import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { fail } from '../../core/errors.js';
import { ED25519_PKCS8_PREFIX, publicKeyFromSpkiDer, type PublicKey } from '../../core/ed25519.js';
import { readAllFd } from '../read-file.js';

import { PRIVATE_KEY_FILE_MAX_BYTES as MAX_KEY_FILE_BYTES } from '../../core/limits.js';
import { PKCS8_PEM_RE } from '../../core/ed25519.js';

export interface SigningKey {
  readonly privateKey: KeyObject;
  readonly publicKey: PublicKey;
}

function readPrivateFile(path: string): Buffer {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO for reading would otherwise block until a writer appears, before
    // the fstat below can refuse it (docs/threat-model.md#rules-that-hold-everywhere fail closed: a non-file is refused, never waited on).
    // It changes nothing for a regular file.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    fail('input_unreadable', ['key']);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) fail('input_unreadable', ['key']);
    if ((st.mode & 0o077) !== 0) fail('private_key_exposed', ['key']);
    if (st.size > MAX_KEY_FILE_BYTES) fail('key_invalid', ['size']);
    return readAllFd(fd, st.size);
  } finally {
    closeSync(fd);
  }
}

/** Load a PKCS#8 PEM Ed25519 private key from a file only its owner can read. */
export function loadSigningKey(path: string): SigningKey {
  const pem = readPrivateFile(path).toString('utf8');
  const m = PKCS8_PEM_RE.exec(pem.trim() + '\n');
  if (!m || m[1] === undefined) fail('key_invalid', ['pem']);
  const der = Buffer.from(m[1].replace(/\s+/g, ''), 'base64');
  if (der.length !== 48 || !der.subarray(0, 16).equals(ED25519_PKCS8_PREFIX)) fail('key_invalid', ['pkcs8']);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } catch {
    fail('key_invalid', ['pkcs8']);
  }
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return { privateKey, publicKey: publicKeyFromSpkiDer(spki) };
}
