import { resolve } from 'node:path';
import { fail } from '../../core/errors.js';
import { doctorFlow } from '../../flows/doctor/doctor.js';
import { DEFAULT_SOCKET, DEFAULT_USER } from '../../flows/runnerd/layout.js';
import type { RunnerdTarget } from '../../flows/runnerd/layout-findings.js';
import { resolveHome } from '../options.js';
import type { CommandResult } from '../output.js';
import type { DoctorOutput } from '../../core/command-output-records.js';
import { SYSTEM_NAME_RE } from '../../core/ids.js';

export interface DoctorOptions {
  dir?: string;
  bwrap?: string;
  reviewersDir?: string;
  home?: string;
  /** Separated mode: the runnerd base directory, its writers' group, daemon user and socket (docs/runnerd.md#layout). */
  runnerd?: string;
  writers?: string;
  runnerdUser?: string;
  socket?: string;
}

const NAME_RE = SYSTEM_NAME_RE;

export async function doctorCommand(opts: DoctorOptions): Promise<CommandResult> {
  if (opts.dir === undefined && opts.runnerd === undefined) fail('usage_error', ['--dir/--runnerd']);
  let runnerd: RunnerdTarget | undefined;
  if (opts.runnerd !== undefined) {
    const user = opts.runnerdUser ?? DEFAULT_USER;
    if (opts.writers === undefined || !NAME_RE.test(opts.writers) || !NAME_RE.test(user)) fail('usage_error', ['--writers/--runnerd-user']);
    runnerd = { base: resolve(opts.runnerd), socket: resolve(opts.socket ?? DEFAULT_SOCKET), user, writers: opts.writers };
  }
  const r = await doctorFlow({ dir: opts.dir, runnerd, home: resolveHome(opts.home), now: Math.floor(Date.now() / 1000), bwrapPath: opts.bwrap, reviewersDir: opts.reviewersDir });
  const problems = r.checks.flatMap((c) => c.problems.map((p) => ({ check: c.id, ...p })));
  const human = [
    ...r.checks.map((c) => `${c.ok ? 'ok  ' : 'FAIL'} ${c.id}${c.problems.map((p) => `\n       ${p.code} (exit ${p.exit})${p.ids.length > 0 ? ` [${p.ids.join(', ')}]` : ''}`).join('')}`),
    problems.length === 0 ? 'doctor: no problem found' : `doctor: ${problems.length} problem(s) (exit ${r.exit})`,
  ].join('\n');
  return { exit: r.exit, json: { ok: r.exit === 0, command: 'doctor', exit: r.exit, dir: r.dir, checks: r.checks, problems } satisfies DoctorOutput, human };
}
