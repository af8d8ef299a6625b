import { doctorFlow } from '../../flows/doctor/doctor.js';
import { resolveHome } from '../options.js';
import type { CommandResult } from '../output.js';
import type { DoctorOutput } from '../../core/command-output-records.js';

export async function doctorCommand(opts: { dir: string; bwrap?: string; reviewersDir?: string; home?: string }): Promise<CommandResult> {
  const r = await doctorFlow({ dir: opts.dir, home: resolveHome(opts.home), now: Math.floor(Date.now() / 1000), bwrapPath: opts.bwrap, reviewersDir: opts.reviewersDir });
  const problems = r.checks.flatMap((c) => c.problems.map((p) => ({ check: c.id, ...p })));
  const human = [
    ...r.checks.map((c) => `${c.ok ? 'ok  ' : 'FAIL'} ${c.id}${c.problems.map((p) => `\n       ${p.code} (exit ${p.exit})${p.ids.length > 0 ? ` [${p.ids.join(', ')}]` : ''}`).join('')}`),
    problems.length === 0 ? 'doctor: no problem found' : `doctor: ${problems.length} problem(s) (exit ${r.exit})`,
  ].join('\n');
  return { exit: r.exit, json: { ok: r.exit === 0, command: 'doctor', exit: r.exit, dir: r.dir, checks: r.checks, problems } satisfies DoctorOutput, human };
}
