// Where review-run finds the programs it pins (docs/runner.md#the-run-step-by-step step 4; docs/runner.md "Where the pinned
// programs come from"). None of these locations is trusted: every file found here is read once,
// hashed, and used only if its sha256 is on the POLICY allowlist (the caller never picks what
// runs — a wrong directory only makes the run fail closed).
//
// - reviewer program: `<reviewers dir>/<policy reviewer name>.mjs`; reviewers dir = --reviewers-dir,
//   else $GOVERNED_REVIEWERS_DIR, else `<install>/runner/reviewers` (where the build puts the shipped
//   reviewers). The name→file mapping is a convention, not trust: only the digest counts.
// - attestors: `<attestors dir>/<credential>.json` (the config) and `<attestors dir>/<credential>.mjs`
//   (the program), falling back to the shipped `<install>/attestors/ed25519-file.mjs` when the
//   directory has no program for that credential; attestors dir = --attestors, else
//   $GOVERNED_ATTESTORS_DIR, else `<home>/attestors` (the private state directory).
// - bwrap: --bwrap, else /usr/bin/bwrap.
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DEFAULT_BWRAP_PATH } from '../../../runner/sandbox/index.js';

/** The signing credentials whose attestors live by this convention (review-run: reviewer, runner; audit checkpoint: log). */
export type Credential = 'reviewer' | 'runner' | 'log';

export interface RunLocations {
  readonly reviewersDir: string;
  readonly attestorsDir: string;
  readonly bwrapPath: string;
}

/** The installation root: the directory above the CLI entry file (`<root>/dist/governed.mjs`). */
export function installRoot(): string {
  const entry = process.argv[1];
  if (entry === undefined) return process.cwd();
  try {
    return dirname(dirname(realpathSync(entry)));
  } catch {
    return dirname(dirname(resolve(entry)));
  }
}

export function resolveLocations(o: { home: string; reviewersDir?: string | undefined; attestorsDir?: string | undefined; bwrapPath?: string | undefined }): RunLocations {
  const env = (name: string): string | undefined => (process.env[name] ? process.env[name] : undefined);
  return {
    reviewersDir: resolve(o.reviewersDir ?? env('GOVERNED_REVIEWERS_DIR') ?? join(installRoot(), 'runner', 'reviewers')),
    attestorsDir: resolve(o.attestorsDir ?? env('GOVERNED_ATTESTORS_DIR') ?? join(o.home, 'attestors')),
    // bwrap's path is checked as given (absolute, normalized, no symlink) by the sandbox.
    bwrapPath: o.bwrapPath ?? DEFAULT_BWRAP_PATH,
  };
}

/** The reviewer program file for a policy reviewer name (a policy identifier: `^[a-z][a-z0-9_-]*$`). */
export function reviewerFile(loc: RunLocations, name: string): string {
  return join(loc.reviewersDir, `${name}.mjs`);
}

export function attestorFiles(loc: RunLocations, credential: Credential): { program: string; config: string } {
  const own = join(loc.attestorsDir, `${credential}.mjs`);
  return {
    program: existsSync(own) ? own : join(installRoot(), 'attestors', 'ed25519-file.mjs'),
    config: join(loc.attestorsDir, `${credential}.json`),
  };
}
