// Read a caller-named input file (the deploy-side trust root): capped, regular files only, errors
// coded without the path or the contents (SPEC §3). The same rule as src/flows/read-input.ts, whose
// module also loads the YAML parser at import (lean gate path).
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { fail } from '../../../core/errors.js';

export function readInputFileLean(path: string, maxBytes: number): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY);
  } catch {
    return fail('input_unreadable', []);
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
