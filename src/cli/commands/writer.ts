import { fail } from '../../core/errors.js';
import { registerWriterFlow } from '../../flows/writer.js';
import { resolveHome } from '../options.js';
import type { CommandResult } from '../output.js';
import type { WriterRegisterOutput } from '../../core/command-output-records.js';
import { PID_TEXT_RE } from '../../core/ids.js';

function parsePid(text: string | undefined): number {
  if (text === undefined) return process.ppid;
  if (!PID_TEXT_RE.test(text)) fail('process_identity_invalid', ['pid']);
  return Number(text);
}

export async function writerRegisterCommand(
  opts: { unit: string; writerSession: string; pid?: string; home?: string },
  /** runnerd: the pid (from the kernel) and the uid check that replaces the namespace read (flows/writer.ts). */
  separated?: { pid: number },
): Promise<CommandResult> {
  const r = registerWriterFlow({
    ...(separated === undefined ? {} : { independence: 'uid' as const }),
    home: resolveHome(opts.home),
    unit: opts.unit,
    writerSession: opts.writerSession,
    pid: separated?.pid ?? parsePid(opts.pid),
    now: Math.floor(Date.now() / 1000),
  });
  return {
    exit: 0,
    json: { ok: true, unit: r.unit, writer_session: r.writerSession, boot_id: r.bootId, pid: r.pid, start_time: r.startTime } satisfies WriterRegisterOutput,
    human: `registered writer ${r.writerSession} of ${r.unit} (pid ${r.pid}, start time ${r.startTime}, boot ${r.bootId})`,
  };
}
