// `governed doctor --dir DIR` (docs/setup.md "doctor"): runs every check of ./checks.ts over a
// finished setup and reports each problem by its code and identifiers. Read-only: it writes
// nothing, and runs nothing but `bwrap --version` and one empty sandbox (`/usr/bin/true`).
import { highestPrecedence, type ExitCode } from '../../core/errors.js';
import { ERROR_CODES } from '../../core/errors.js';
import { loadPolicy, type Policy } from '../../core/policy.js';
import { loadTrustRoot, type TrustRoot } from '../../core/trust-root.js';
import { resolveLocations } from '../run/locations.js';
import { sandboxDigests, type SandboxDigests } from '../setup/machine.js';
import { setupLayout } from '../setup/layout.js';
import { DOCTOR_CHECKS, readDocument, type DoctorContext, type DoctorProblem } from './checks.js';
import type { RunnerdTarget } from '../runnerd/layout-findings.js';

export interface DoctorArgs {
  /** The co-located setup directory (`governed setup --out`); its checks run only when given. */
  readonly dir?: string | undefined;
  /** A runnerd layout (separated mode, docs/runnerd.md#layout); its checks run only when given. */
  readonly runnerd?: RunnerdTarget | undefined;
  readonly home: string;
  readonly now: number;
  readonly bwrapPath?: string | undefined;
  readonly reviewersDir?: string | undefined;
}

export interface DoctorReport {
  readonly dir: string | null;
  readonly exit: ExitCode;
  readonly checks: readonly { readonly id: string; readonly ok: boolean; readonly problems: readonly (DoctorProblem & { readonly exit: ExitCode })[] }[];
}

function once<T>(f: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) {
      value = f();
      done = true;
    }
    return value;
  };
}

export async function doctorFlow(a: DoctorArgs): Promise<DoctorReport> {
  const layout = setupLayout(a.dir ?? '.');
  const locations = resolveLocations({ home: a.home, reviewersDir: a.reviewersDir, attestorsDir: layout.attestorsDir, bwrapPath: a.bwrapPath });
  const sandbox = once(async (): Promise<SandboxDigests | DoctorProblem> => {
    try {
      return await sandboxDigests(locations.bwrapPath);
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      if (typeof code === 'string' && code in ERROR_CODES) return { code: code as DoctorProblem['code'], ids: ['bwrap'] };
      throw e;
    }
  });
  const ctx: DoctorContext = {
    layout,
    home: a.home,
    locations,
    now: a.now,
    policy: once((): Policy | DoctorProblem => readDocument(layout, layout.policy, 'policy', loadPolicy)),
    trust: once((): TrustRoot | DoctorProblem => readDocument(layout, layout.trust, 'trust', loadTrustRoot)),
    sandbox,
    runnerd: a.runnerd ?? null,
  };
  const checks = [];
  for (const check of DOCTOR_CHECKS) {
    if (check.mode === 'separated' ? a.runnerd === undefined : a.dir === undefined) continue;
    const problems = (await check.run(ctx)).map((p) => ({ ...p, exit: ERROR_CODES[p.code].exit }));
    checks.push({ id: check.id, ok: problems.length === 0, problems });
  }
  return { dir: a.dir === undefined ? null : layout.dir, exit: highestPrecedence(checks.flatMap((c) => c.problems.map((p) => p.exit))), checks };
}
