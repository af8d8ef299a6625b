// `governed sandbox profile` (docs/commands.md#what-each-command-guarantees, docs/policy.md#policy-and-trust-root): what an operator pastes into a policy's `sandbox:`
// section — bwrap's path, sha256 and version, the static profile and its digest, the seccomp
// digest. Read-only: no state directory, nothing is run except `bwrap --version`.
import type { CommandResult } from '../output.js';
import { bwrapInfo, DEFAULT_BWRAP_PATH } from '../../../runner/sandbox/bwrap.js';
import { staticProfile, staticProfileDigest } from '../../../runner/sandbox/profile.js';
import { seccompDigest } from '../../../runner/seccomp/index.js';
import type { SandboxProfileOutput } from '../../core/command-output-records.js';

export async function sandboxProfileCommand(opts: { bwrap?: string }): Promise<CommandResult> {
  const seccomp = seccompDigest(); // refuses unsupported architectures first
  const bwrap = await bwrapInfo(opts.bwrap ?? DEFAULT_BWRAP_PATH);
  const profile = staticProfile();
  const profileDigest = staticProfileDigest();
  // The egress profile (docs/egress.md "Sandbox"): add it to profile_sha256 for model reviewers.
  const egressProfileDigest = staticProfileDigest('egress');
  // The check profile (docs/sandbox.md#the-check-profile-check-reviewers): allowlist it too when the policy has check reviewers.
  const checkProfileDigest = staticProfileDigest('check');
  // The relay profile and its seccomp filter (docs/egress.md#the-in-sandbox-relay): both, for reviewers whose egress entry has `relay`.
  const relayProfileDigest = staticProfileDigest('relay');
  const relaySeccomp = seccompDigest('loopback-tcp');
  const policy = {
    bwrap_sha256: [bwrap.sha256],
    profile_sha256: [profileDigest.slice('sha256:'.length)],
    seccomp_sha256: [seccomp.slice('sha256:'.length)],
  };
  const human = [
    `bwrap    ${bwrap.path} (bubblewrap ${bwrap.version})`,
    `         sha256 ${bwrap.sha256}`,
    `profile  ${profileDigest}`,
    `egress   ${egressProfileDigest} (the profile of reviewers with an egress entry, docs/egress.md)`,
    `check    ${checkProfileDigest} (check reviewers: docs/reviewers.md#check-reviewers)`,
    `relay    ${relayProfileDigest} (egress entries with relay, docs/egress.md#the-in-sandbox-relay)`,
    `seccomp  ${seccomp}`,
    `         ${relaySeccomp} (the relay profile's filter: loopback TCP too)`,
    '',
    'Paste into the policy (sandbox section):',
    `  bwrap_sha256: ["${policy.bwrap_sha256[0]}"]`,
    `  profile_sha256: ["${policy.profile_sha256[0]}"]   # add "${checkProfileDigest.slice('sha256:'.length)}" for check reviewers`,
    `  seccomp_sha256: ["${policy.seccomp_sha256[0]}"]`,
    '',
    'Static profile (bwrap arguments; {…} marks the per-run parts):',
    ...profile.argv.map((a) => `  ${typeof a === 'string' ? a : JSON.stringify(a)}`),
  ].join('\n');
  return {
    exit: 0,
    json: {
      ok: true,
      bwrap: { path: bwrap.path, sha256: bwrap.sha256, version: bwrap.version },
      profile,
      profile_digest: profileDigest,
      egress_profile_digest: egressProfileDigest,
      check_profile_digest: checkProfileDigest,
      relay_profile_digest: relayProfileDigest,
      seccomp_digest: seccomp,
      relay_seccomp_digest: relaySeccomp,
      policy,
    } satisfies SandboxProfileOutput,
    human,
  };
}
