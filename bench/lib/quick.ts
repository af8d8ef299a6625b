// Quick mode (`npm run bench -- --quick`; test/bench-quick.test.ts runs it in `npm test`): every
// bench runs its real path — the same setup, the same checks, the same ratio lines — with small
// counts, so a bench that no longer runs fails the suite instead of rotting. Its numbers are not
// measurements and its bars are printed but never judged (no timing thresholds in tests).
export const QUICK = process.argv.includes('--quick');

/** A count: the environment variable if set, else the full or the quick default. */
export function knob(name: string, full: number, quick: number): number {
  const v = process.env[name];
  return v !== undefined && v !== '' ? Number(v) : QUICK ? quick : full;
}

/** A missed bar fails a full run (exit 1); in quick mode it is only printed. */
export function judgeBar(ok: boolean): void {
  if (!ok && !QUICK) process.exitCode = 1;
}
