// `governed review-pass --tool-log DIR` (non-governed mode, docs/review-pass.md "Tool logs"): each
// reviewer attempt's stderr, for the user who ran the review, in its own file
// `DIR/<execution id>-<attempt>.stderr`, never in stdout, the report, result.json or
// executions.json (docs/threat-model.md#rules-that-hold-everywhere). DIR is created 0700 (or must already be a directory, not a symlink,
// owned by this user, without group/other permissions); each file is created exclusively
// (O_CREAT|O_EXCL|O_NOFOLLOW, 0600) and holds at most the tool's stdout cap (`max_output`), after
// which the rest is dropped and the file ends with a fixed truncation line.
import { closeSync, constants, lstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fail } from '../../core/errors.js';
import { EXECUTION_ID_RE } from '../../core/ids.js';

const TRUNCATED = Buffer.from('\n[governed: stderr truncated at the tool\'s max_output]\n');

export interface StderrFile {
  write(chunk: Buffer): void;
  close(): void;
}

export class ToolLog {
  private constructor(readonly dir: string) {}

  /** Create or accept the directory; refused (`orchestrator_tool_log_invalid`, 2) before any reviewer runs. */
  static prepare(path: string): ToolLog {
    const dir = resolve(path);
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') fail('orchestrator_tool_log_invalid', ['tool-log']);
    }
    const st = lstatSync(dir);
    const uid = process.getuid?.() ?? -1;
    if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o077) !== 0) fail('orchestrator_tool_log_invalid', ['tool-log']);
    return new ToolLog(dir);
  }

  /** The file for one attempt of one execution: exclusive create, 0600, capped. */
  open(executionId: string, attempt: number, capBytes: number): StderrFile {
    if (!EXECUTION_ID_RE.test(executionId)) fail('internal_error', ['execution_id']);
    let fd: number;
    try {
      fd = openSync(join(this.dir, `${executionId}-${attempt}.stderr`), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    } catch {
      return fail('orchestrator_tool_log_invalid', ['tool-log']);
    }
    let written = 0;
    let truncated = false;
    let open = true;
    return {
      write(chunk: Buffer): void {
        if (!open || truncated) return;
        const room = capBytes - written;
        const part = chunk.length <= room ? chunk : chunk.subarray(0, Math.max(0, room));
        try {
          if (part.length > 0) writeSync(fd, part);
          written += part.length;
          if (part.length < chunk.length) {
            truncated = true;
            writeSync(fd, TRUNCATED);
          }
        } catch {
          // A full disk must not fail the review: the log is the user's convenience, it stops here.
          truncated = true;
        }
      },
      close(): void {
        if (!open) return;
        open = false;
        closeSync(fd);
      },
    };
  }
}
