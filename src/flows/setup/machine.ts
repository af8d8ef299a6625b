// What a policy pins about THIS machine (docs/setup.md#what-setup-makes): the bwrap binary, the static
// sandbox profile, the seccomp blob, each reviewer program the policy names and the attestor program
// — read from the places review-run and the gate read them (src/flows/run/locations.ts), so the
// digests written by setup and checked by doctor are the ones a run will pin.
import { join } from 'node:path';
import { bwrapInfo } from '../../../runner/sandbox/bwrap.js';
import { staticProfileDigest } from '../../../runner/sandbox/profile.js';
import { seccompDigest } from '../../../runner/seccomp/index.js';
import { ATTESTOR_PROGRAM_MAX_BYTES } from '../../../runner/attestor-host.js';
import { readPinned } from '../../../runner/pinned-file.js';
import { fail, isGovernedError } from '../../core/errors.js';
import { REVIEWER_MAX_BYTES as MAX_REVIEWER_BYTES } from '../../core/limits.js';
import { installRoot, reviewerFile, type RunLocations } from '../run/locations.js';

export interface SandboxDigests {
  readonly bwrapPath: string;
  readonly bwrapVersion: string;
  readonly bwrapSha256: string;
  readonly profileSha256: string;
  /** The check profile (sealed snapshots: check reviewers and preservation probes, docs/sandbox.md). */
  readonly checkProfileSha256: string;
  readonly seccompSha256: string;
}

const hexOf = (digest: string): string => digest.slice('sha256:'.length);

/** bwrap (checked like `governed sandbox profile`: every refusal its own code), profile and seccomp. */
export async function sandboxDigests(bwrapPath: string): Promise<SandboxDigests> {
  const seccomp = seccompDigest(); // refuses unsupported architectures first
  const bwrap = await bwrapInfo(bwrapPath);
  return { bwrapPath: bwrap.path, bwrapVersion: bwrap.version, bwrapSha256: bwrap.sha256, profileSha256: hexOf(staticProfileDigest()), checkProfileSha256: hexOf(staticProfileDigest('check')), seccompSha256: hexOf(seccomp) };
}

/** The shipped attestor program every credential falls back to (src/flows/run/locations.ts). */
export function shippedAttestorPath(): string {
  return join(installRoot(), 'attestors', 'ed25519-file.mjs');
}

/** sha256 (hex) of a pinned program; a missing or unreadable one is `setup_file_missing` naming `what`. */
export function programSha256(path: string, maxBytes: number, what: string): string {
  try {
    return readPinned(path, maxBytes).sha256;
  } catch (e) {
    if (isGovernedError(e)) fail('setup_file_missing', [what]);
    throw e;
  }
}

export const attestorProgramSha256 = (path: string): string => programSha256(path, ATTESTOR_PROGRAM_MAX_BYTES, 'attestor program');

/** The shipped Node project/probe adapter of preservation (docs/preservation.md#adapter-protocol). */
export function shippedPreservationAdapterPath(): string {
  return join(installRoot(), 'runner', 'preservation', 'node-adapter.mjs');
}
export const preservationAdapterSha256 = (path: string): string => programSha256(path, MAX_REVIEWER_BYTES, 'preservation adapter');

/** sha256 (hex) of the reviewer program review-run would run for this policy reviewer name. */
export const reviewerSha256 = (loc: RunLocations, name: string): string => programSha256(reviewerFile(loc, name), MAX_REVIEWER_BYTES, `reviewers.${name}`);
