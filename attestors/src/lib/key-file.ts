// Key-file and stdin helpers of both pinned attestors (attestors/src/ed25519-file.ts and
// attestors/src/tlog-note.ts), bundled into each: a PKCS#8 PEM private to its owner, read through
// one fd, and a capped stdin. Every refusal is a code of the one attestor protocol list.
import { openSync, fstatSync, readSync, closeSync, constants } from 'node:fs';
import { ED25519_PKCS8_PREFIX } from '../../../src/core/ed25519.js';
import type { AttestorRefusal } from '../../../src/core/attestor-protocol.js';
import { PRIVATE_KEY_FILE_MAX_BYTES } from '../../../src/core/limits.js';
import { PKCS8_PEM_RE } from '../../../src/core/ed25519.js';

export class Refusal extends Error {
  constructor(readonly code: AttestorRefusal) {
    super(code);
  }
}
export const refuse = (code: AttestorRefusal): never => {
  throw new Refusal(code);
};

/** Read a file that must not be group/other accessible; fstat the opened fd (no TOCTOU). */
export function readPrivateFile(path: string): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) refuse('key_invalid');
    if ((st.mode & 0o077) !== 0) refuse('key_file_exposed');
    if (st.size > PRIVATE_KEY_FILE_MAX_BYTES) refuse('key_invalid');
    const buf = Buffer.alloc(st.size);
    let off = 0;
    while (off < st.size) {
      const n = readSync(fd, buf, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    return buf.subarray(0, off);
  } finally {
    closeSync(fd);
  }
}

export function seedFromPkcs8Pem(pem: string): Uint8Array {
  const m = PKCS8_PEM_RE.exec(pem.trim() + '\n');
  if (!m || m[1] === undefined) return refuse('key_invalid');
  const der = Buffer.from(m[1].replace(/\s+/g, ''), 'base64');
  if (der.length !== 48 || !der.subarray(0, 16).equals(ED25519_PKCS8_PREFIX)) refuse('key_invalid');
  return new Uint8Array(der.subarray(16));
}

export function readStdin(max: number): string {
  const chunks: Buffer[] = [];
  const buf = Buffer.alloc(65536);
  let total = 0;
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN') continue;
      if ((e as NodeJS.ErrnoException).code === 'EOF') break;
      throw e;
    }
    if (n === 0) break;
    total += n;
    if (total > max) refuse('request_invalid');
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString('utf8');
}
