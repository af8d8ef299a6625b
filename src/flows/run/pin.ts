// docs/runner.md#the-run-step-by-step step 4 (with docs/formats.md#attestors): pin every program before any process sees the bundle. Each file is read
// ONCE into memory, hashed, checked against the POLICY allowlist, and only those exact bytes are ever
// run — the reviewer through bwrap's --ro-bind-data pipe, each attestor from a sealed private copy
// (runner/attestor-host.ts). bwrap, the static profile and the seccomp blob are checked by
// runner/sandbox before bwrap is spawned (`prepareSandbox`). Nothing runs on a mismatch.
//
// Decision (docs/runner.md "Pinning"): the reviewer bytes are read whole and passed as bytes, not
// streamed from the path, so that a reviewer digest mismatch is refused before bwrap is even spawned
// (the bundle never reaches any process) — the strongest reading of "nothing runs".
import { fail, isGovernedError } from '../../core/errors.js';
import { ATTESTOR_CONFIG_FORMAT } from '../../core/attestor-protocol.js';
import { checkFormat } from '../../core/format/interpret.js';
import { reviewerForSlot, reviewerProgramName, type CheckConfig } from '../../core/policy.js';
import type { PublicKey } from '../../core/ed25519.js';
import type { EgressPolicy } from '../../core/egress-schema.js';
import type { Challenge } from '../../store/index.js';
import { pinAttestor, type PinnedAttestor } from '../../../runner/attestor-host.js';
import { readPinned } from '../../../runner/pinned-file.js';
import type { Pinned } from '../challenge/pinned.js';
import { attestorFiles, reviewerFile, type Credential, type RunLocations } from './locations.js';
import { REVIEWER_MAX_BYTES as MAX_REVIEWER_BYTES } from '../../core/limits.js';

export interface PolicyReviewer {
  readonly name: string;
  readonly sha256: string;
  readonly interpreter: string;
  readonly env: Readonly<Record<string, string>>;
  /** The one model endpoint this reviewer may reach (docs/egress.md), if any. */
  readonly egress?: EgressPolicy | undefined;
  /** A check reviewer's command, dependency root and report (docs/reviewers.md#check-reviewers). */
  readonly check?: CheckConfig | undefined;
}

/**
 * The reviewer the pinned policy assigns to the challenge's slot; it must be the one the challenge
 * recorded (the policy digests are equal, so a difference means the row is not what was issued).
 */
export function policyReviewer(pinned: Pinned, c: Challenge): PolicyReviewer {
  const r = reviewerForSlot(pinned.policy, c.stage, c.slot);
  if (r.name !== c.reviewer.name || r.sha256 !== c.reviewer.sha256 || r.interpreter !== c.reviewer.interpreter) {
    fail('challenge_tampered', [c.challengeId]);
  }
  return { name: r.name, sha256: r.sha256, interpreter: r.interpreter, env: r.env, egress: r.egress, ...(r.check === undefined ? {} : { check: r.check }) };
}

export interface PinnedSigner extends PinnedAttestor {
  readonly credential: Credential;
  readonly key: PublicKey;
}

export interface PinnedPrograms {
  /** The reviewer bytes whose sha256 is the policy's (what the sandbox runs). */
  readonly reviewerBytes: Buffer;
  readonly reviewerSigner: PinnedSigner;
  readonly runnerSigner: PinnedSigner;
}

/** Read the reviewer program once and require the policy's digest. */
function pinReviewer(loc: RunLocations, reviewer: PolicyReviewer): Buffer {
  let pinned;
  try {
    pinned = readPinned(reviewerFile(loc, reviewerProgramName(reviewer)), MAX_REVIEWER_BYTES);
  } catch (e) {
    if (isGovernedError(e)) fail('reviewer_file_unavailable', [reviewer.name]);
    throw e;
  }
  if (pinned.sha256 !== reviewer.sha256) fail('reviewer_not_allowlisted', [reviewer.name]);
  return pinned.bytes;
}

/** Hash and allowlist-check one credential's attestor and config; find the key it must sign with. */
function pinSigner(loc: RunLocations, pinned: Pinned, credential: Credential): PinnedSigner {
  const cred = pinned.policy.doc.credentials[credential];
  const key = pinned.trust.keys.get(cred.key_id);
  if (key === undefined || !key.roles.has(credential)) fail('policy_credential_untrusted', [`credentials.${credential}`]);
  const files = attestorFiles(loc, credential);
  let a: PinnedAttestor;
  try {
    a = pinAttestor(files.program, files.config, { attestorSha256: cred.attestor_sha256, configSha256: cred.attestor_config_sha256 });
  } catch (e) {
    if (isGovernedError(e) && (e.code === 'input_unreadable' || e.code === 'input_too_large')) fail('attestor_file_unavailable', [credential]);
    throw e;
  }
  // The allowlisted config must be this credential's, for the policy's key (docs/formats.md#attestors: the attestor
  // reads its credential and key from its own config, never from the request).
  let value: unknown;
  try {
    value = JSON.parse(a.config.toString('utf8'));
  } catch {
    return fail('attestor_config_invalid', [credential]);
  }
  const parsed = checkFormat(ATTESTOR_CONFIG_FORMAT, value);
  if (!parsed.success || parsed.data.credential !== credential || parsed.data.key_id !== cred.key_id) {
    fail('attestor_config_invalid', [credential]);
  }
  return { ...a, credential, key: key.publicKey };
}

/** The two credentials that sign a receipt (docs/formats.md#attestors). */
export const SIGNING_CREDENTIALS = ['reviewer', 'runner'] as const satisfies readonly Credential[];

/** Step 4 for the programs governed runs itself: the reviewer and both attestors. */
export function pinPrograms(loc: RunLocations, pinned: Pinned, reviewer: PolicyReviewer): PinnedPrograms {
  const reviewerBytes = pinReviewer(loc, reviewer);
  return { reviewerBytes, reviewerSigner: pinSigner(loc, pinned, 'reviewer'), runnerSigner: pinSigner(loc, pinned, 'runner') };
}
