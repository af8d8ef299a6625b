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
//
// Every location is resolved and checked BEFORE the claim (`assertLocationsUsable`): exists, is a
// regular file (no symlink, no FIFO), opens for reading, within its size cap, and bwrap's mode rules.
// A wrong or missing location found after the claim would end the run ABORTED, and an ABORTED run
// blocks its slot until the content changes (docs/decision.md#the-rules-in-short), which fixing the command does not do.
// Only reading and hashing the bytes stays at step 4 (a file that changes in between still ends the
// run ABORTED there). The refusal names the path it looked at and where that path came from
// (option, environment variable or default): that is what the user must fix. Never file contents.
import { REVIEWER_MAX_BYTES as MAX_REVIEWER_BYTES } from '../../core/limits.js';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fail, isGovernedError, type ErrorCode } from '../../core/errors.js';
import { assertBwrapLocation } from '../../../runner/sandbox/bwrap.js';
import { DEFAULT_BWRAP_PATH } from '../../../runner/sandbox/index.js';
import { ATTESTOR_CONFIG_MAX_BYTES, ATTESTOR_PROGRAM_MAX_BYTES } from '../../../runner/attestor-host.js';
import { probePinned } from '../../../runner/pinned-file.js';

/** The signing credentials whose attestors live by this convention (review-run: reviewer, runner; audit checkpoint: log). */
export type Credential = 'reviewer' | 'runner' | 'log';

/** Where a location came from: its option, its environment variable, or the default. */
export type LocationOrigin = `--${string}` | `$${string}` | 'default';

export interface RunLocations {
  readonly reviewersDir: string;
  readonly attestorsDir: string;
  readonly bwrapPath: string;
  readonly origin: { readonly reviewersDir: LocationOrigin; readonly attestorsDir: LocationOrigin; readonly bwrapPath: LocationOrigin };
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
  const pick = (option: string | undefined, flag: string, envName: string, fallback: () => string): [string, LocationOrigin] => {
    if (option !== undefined) return [option, `--${flag}`];
    const fromEnv = env(envName);
    if (fromEnv !== undefined) return [fromEnv, `$${envName}`];
    return [fallback(), 'default'];
  };
  const [reviewersDir, reviewersFrom] = pick(o.reviewersDir, 'reviewers-dir', 'GOVERNED_REVIEWERS_DIR', () => join(installRoot(), 'runner', 'reviewers'));
  const [attestorsDir, attestorsFrom] = pick(o.attestorsDir, 'attestors', 'GOVERNED_ATTESTORS_DIR', () => join(o.home, 'attestors'));
  return {
    reviewersDir: resolve(reviewersDir),
    attestorsDir: resolve(attestorsDir),
    // bwrap's path is checked as given (absolute, normalized, no symlink) by the sandbox.
    bwrapPath: o.bwrapPath ?? DEFAULT_BWRAP_PATH,
    origin: { reviewersDir: reviewersFrom, attestorsDir: attestorsFrom, bwrapPath: o.bwrapPath !== undefined ? '--bwrap' : 'default' },
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

/** The ids of a location refusal: what, why, the path looked at and where it came from. */
const where = (path: string, origin: LocationOrigin): string[] => [`path:${path}`, `from:${origin}`];

function assertFile(code: ErrorCode, what: readonly string[], path: string, maxBytes: number, origin: LocationOrigin): void {
  const problem = probePinned(path, maxBytes);
  if (problem !== null) fail(code, [...what, problem, ...where(path, origin)]);
}

/**
 * Before the claim: every file review-run will pin is usable where it is looked for — the slot's
 * reviewer program, each credential's attestor program and config, and bwrap (its mode rules too).
 * Refusals keep their step-4 codes (`reviewer_file_unavailable`, `attestor_file_unavailable`,
 * `bwrap_*`), and nothing is recorded.
 */
export function assertLocationsUsable(loc: RunLocations, reviewerName: string, credentials: readonly Credential[]): void {
  assertFile('reviewer_file_unavailable', [reviewerName], reviewerFile(loc, reviewerName), MAX_REVIEWER_BYTES, loc.origin.reviewersDir);
  for (const credential of credentials) {
    const files = attestorFiles(loc, credential);
    assertFile('attestor_file_unavailable', [credential, 'program'], files.program, ATTESTOR_PROGRAM_MAX_BYTES, loc.origin.attestorsDir);
    assertFile('attestor_file_unavailable', [credential, 'config'], files.config, ATTESTOR_CONFIG_MAX_BYTES, loc.origin.attestorsDir);
  }
  try {
    assertBwrapLocation(loc.bwrapPath);
  } catch (e) {
    if (isGovernedError(e)) fail(e.code, where(loc.bwrapPath, loc.origin.bwrapPath));
    throw e;
  }
}
