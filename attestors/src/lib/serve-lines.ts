// The serve mode of both pinned attestors (docs/runnerd.md#warm-attestors), bundled into each: the
// key was read once by the caller; then one request per stdin line, one response line each — the
// very checks of the one-shot mode, every time. The first line out is {ready, keyid, self}; a
// refusal is {refused: code}; a line over `maxLine` or a failure ends the process (its keeper
// restarts it); stdin closed ends it with 0, also when it could not start.
import { ATTESTOR_EXIT_REFUSED } from '../../../src/core/attestor-protocol.js';
import { Refusal } from './key-file.js';

/** How long a process that could not start waits for stdin to close before it exits with the failure. */
const LOAD_FAILURE_WAIT_MS = 1000;

export function serveLines<L extends { readonly keyid: string; readonly self: string }>(
  load: () => L,
  signOne: (loaded: L, line: string) => { keyid: string; sig: string },
  maxLine: number,
): void {
  let loaded: L;
  try {
    loaded = load();
  } catch (e) {
    process.stderr.write(e instanceof Refusal ? `refused:${e.code}\n` : 'failed\n');
    const code = e instanceof Refusal ? ATTESTOR_EXIT_REFUSED : 1;
    // Not started (e.g. its key unreadable): stdin closed — the daemon stops, or died — ends this
    // process with 0, so its keeper ends too instead of restarting it for ever; else it exits with
    // the failure after a second and the keeper retries with back-off. Lines read meanwhile are
    // dropped unanswered (the daemon sends none before `ready`).
    process.stdin.on('end', () => process.exit(0));
    process.stdin.resume();
    setTimeout(() => process.exit(code), LOAD_FAILURE_WAIT_MS);
    return;
  }
  process.stdout.write(`${JSON.stringify({ ready: true, keyid: loaded.keyid, self: loaded.self })}\n`);
  let pending: Buffer[] = [];
  let size = 0;
  process.stdin.on('data', (chunk: Buffer) => {
    let start = 0;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, start)) {
      pending.push(chunk.subarray(start, i));
      size += i - start;
      const over = size > maxLine;
      const line = over ? '' : Buffer.concat(pending).toString('utf8');
      pending = [];
      size = 0;
      start = i + 1;
      if (over) {
        process.stderr.write('refused:request_invalid\n');
        process.exit(ATTESTOR_EXIT_REFUSED);
      }
      let out: unknown;
      try {
        out = signOne(loaded, line);
      } catch (e) {
        out = e instanceof Refusal ? { refused: e.code } : { failed: true };
      }
      process.stdout.write(`${JSON.stringify(out)}\n`);
    }
    const rest = chunk.subarray(start);
    size += rest.length;
    if (size > maxLine) {
      process.stderr.write('refused:request_invalid\n');
      process.exit(ATTESTOR_EXIT_REFUSED);
    }
    if (rest.length > 0) pending.push(Buffer.from(rest));
  });
  process.stdin.on('end', () => process.exit(0));
}
