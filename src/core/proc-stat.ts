// Pure parsers of the kernel's process identity files (proc(5)), shared by the store (writer
// liveness, docs/commands.md#what-each-command-guarantees) and the runner (the sandboxed reviewer's identity, docs/runner.md#the-run-step-by-step step 5). They take
// the bytes/text; reading /proc is the caller's I/O.
import { fail } from './errors.js';

/** /proc/sys/kernel/random/boot_id: a lowercase UUID, new on every boot. */
export const BOOT_ID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface ProcStat {
  /** Field 3: R, S, D, Z, T, t, X, ... */
  readonly state: string;
  /** Field 4: the parent's pid (0 for a namespace's first process seen from inside). */
  readonly ppid: number;
  readonly startTime: number;
}

const CLOSE_PAREN = 0x29;

/**
 * Parse /proc/<pid>/stat (proc(5)). Field 2, `(comm)`, is up to 15 bytes chosen by the process and
 * may itself contain spaces, parentheses and non-UTF-8 bytes, so fields are counted from the LAST
 * `)` of the line: what follows is ` state ppid ...`, field 3 onward, and starttime (field 22) is
 * the 20th of those. Pure: takes the raw bytes.
 */
export function parseProcStat(raw: Uint8Array): ProcStat {
  const buf = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const close = buf.lastIndexOf(CLOSE_PAREN);
  if (close < 0) fail('process_identity_invalid', ['stat']);
  const rest = buf.subarray(close + 1).toString('latin1');
  if (!rest.startsWith(' ')) fail('process_identity_invalid', ['stat']);
  const fields = rest.trim().split(' ');
  const state = fields[0];
  const start = fields[22 - 3];
  if (state === undefined || !/^[A-Za-z]$/.test(state)) fail('process_identity_invalid', ['stat:state']);
  if (start === undefined || !/^(0|[1-9][0-9]{0,15})$/.test(start)) fail('process_identity_invalid', ['stat:starttime']);
  const startTime = Number(start);
  if (!Number.isSafeInteger(startTime)) fail('process_identity_invalid', ['stat:starttime']);
  const ppidText = fields[1];
  if (ppidText === undefined || !/^(0|[1-9][0-9]{0,9})$/.test(ppidText)) fail('process_identity_invalid', ['stat:ppid']);
  return { state, ppid: Number(ppidText), startTime };
}

/** The trimmed text of /proc/sys/kernel/random/boot_id, checked (`process_identity_invalid`). */
export function parseBootId(text: string): string {
  const id = text.trim();
  if (!BOOT_ID_RE.test(id)) fail('process_identity_invalid', ['boot_id']);
  return id;
}
