// The confirmation prompt of `authority sign` (docs/authority.md#human-authority-records): shown and answered on the controlling
// terminal, /dev/tty — never on stdin/stdout, so a pipe cannot answer it and `--json` output stays
// one clean object. Without a controlling terminal the command is refused
// (`authority_terminal_required`).
//
// What this proves is limited (docs/authority.md#human-authority-records): any program can allocate a pty and
// type the answer. The prompt makes signing a deliberate act of whoever sits at that terminal; the
// assurance comes from where the authority key lives, not from the prompt.
import { closeSync, constants, openSync, readSync, writeSync } from 'node:fs';
import { isatty } from 'node:tty';
import { fail } from '../../core/errors.js';

import { TERMINAL_ANSWER_MAX_BYTES as MAX_ANSWER_BYTES } from '../../core/limits.js';

export interface Terminal {
  write(text: string): void;
  /** One line typed on the terminal, without its line ending; null at end of input. */
  readLine(): string | null;
  close(): void;
}

export function openControllingTerminal(path = '/dev/tty'): Terminal {
  let fd: number;
  try {
    // O_NOCTTY: use the terminal we already have, never acquire one.
    fd = openSync(path, constants.O_RDWR | constants.O_NOCTTY);
  } catch {
    fail('authority_terminal_required', []);
  }
  if (!isatty(fd)) {
    closeSync(fd);
    fail('authority_terminal_required', []);
  }
  return {
    write(text: string): void {
      const buf = Buffer.from(text, 'utf8');
      let off = 0;
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    },
    readLine(): string | null {
      const chunks: Buffer[] = [];
      let total = 0;
      const one = Buffer.alloc(MAX_ANSWER_BYTES);
      for (;;) {
        let n: number;
        try {
          n = readSync(fd, one, 0, one.length, null);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'EAGAIN') continue;
          return null;
        }
        if (n === 0) return total === 0 ? null : Buffer.concat(chunks).toString('utf8');
        chunks.push(Buffer.from(one.subarray(0, n)));
        total += n;
        const text = Buffer.concat(chunks).toString('utf8');
        const nl = text.indexOf('\n');
        if (nl >= 0) return text.slice(0, nl).replace(/\r$/, '');
        if (total > MAX_ANSWER_BYTES) return text;
      }
    },
    close(): void {
      closeSync(fd);
    },
  };
}
