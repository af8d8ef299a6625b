// Reading caller-named input files: capped, regular files only, errors coded without the path's
// contents. Shared by every flow that takes a file argument.
import { openSync, fstatSync, readSync, closeSync, constants } from 'node:fs';
import { fail } from '../core/errors.js';
import { parseStructured } from '../core/strict-parse.js';
import type { CanonicalValue } from '../core/canonical.js';

export const DEFAULT_INPUT_CAP = 16 * 1024 * 1024;

export function readInputFile(path: string, maxBytes = DEFAULT_INPUT_CAP): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY);
  } catch {
    fail('input_unreadable', []);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) fail('input_unreadable', []);
    if (st.size > maxBytes) fail('input_too_large', []);
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

/** Read and strictly parse a JSON or YAML file (by extension). */
export function readStructuredFile(path: string, maxBytes = DEFAULT_INPUT_CAP): { bytes: Buffer; value: CanonicalValue } {
  const bytes = readInputFile(path, maxBytes);
  const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let s: string;
  try {
    s = text.decode(bytes);
  } catch {
    fail('input_unreadable', ['utf8']);
  }
  return { bytes, value: parseStructured(s, path) };
}
