// Resource limits of one sandboxed run (docs/runner.md#the-run-step-by-step step 5; docs/sandbox.md#limits). The wall-clock
// timeout and the stdout cap are enforced by governed from outside; the rest are rlimits that
// /usr/bin/prlimit sets inside the sandbox (bwrap has no rlimit option) before the interpreter
// starts, plus the size of the /tmp tmpfs. RLIMIT_CPU is derived from the timeout as a backstop.
import { fail } from '../../src/core/errors.js';
import type { Policy } from '../../src/core/policy.js';
import { SANDBOX_BOUNDS } from '../../src/core/sandbox-bounds.js';
import type { PrlimitName } from './profile.js';

export interface SandboxLimits {
  /** Wall clock from release to SIGKILL of the whole sandbox. */
  readonly timeoutMs: number;
  /** RLIMIT_AS (Node needs ≥ 1 GiB to start; research B.6). */
  readonly memoryBytes: number;
  /** stdout cap; one byte more kills the sandbox (outputOverflow). */
  readonly maxOutputBytes: number;
  /** RLIMIT_NOFILE. */
  readonly nofile: number;
  /** RLIMIT_NPROC (counts every process and thread of the sandbox uid; not enforced for uid 0). */
  readonly nproc: number;
  /** RLIMIT_FSIZE: the largest file the reviewer may write (in /tmp). */
  readonly fsize: number;
  /** Size cap of the /tmp tmpfs (writes beyond it fail with ENOSPC). */
  readonly tmpfsBytes: number;
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** The limits governed fixes itself (the policy sets timeout, memory and output). */
export const DEFAULT_LIMITS = {
  nofile: 256,
  nproc: 128,
  fsize: 64 * MiB,
  tmpfsBytes: 64 * MiB,
} as const;

// The policy-settable three are the ONE definition the policy loaders also enforce
// (src/core/sandbox-bounds.ts); checking them again here is defence in depth for callers that
// build limits without a loaded policy.
const RANGES: Readonly<Record<keyof SandboxLimits, readonly [number, number]>> = {
  timeoutMs: SANDBOX_BOUNDS.timeoutMs,
  memoryBytes: SANDBOX_BOUNDS.memoryBytes,
  maxOutputBytes: SANDBOX_BOUNDS.maxOutputBytes,
  nofile: [16, 1 << 20],
  nproc: [1, 1_000_000],
  fsize: [0, 1024 * GiB],
  tmpfsBytes: [MiB, 16 * GiB],
};

export function validateLimits(limits: SandboxLimits): void {
  for (const [name, [lo, hi]] of Object.entries(RANGES) as [keyof SandboxLimits, readonly [number, number]][]) {
    const v = limits[name];
    if (!Number.isSafeInteger(v) || v < lo || v > hi) fail('sandbox_argument_invalid', [`limits.${name}`]);
  }
}

/** RLIMIT_CPU in whole seconds: the wall-clock budget rounded up. */
export function cpuSeconds(limits: SandboxLimits): number {
  return Math.ceil(limits.timeoutMs / 1000);
}

/** The value of each prlimit resource (soft = hard). */
export function prlimitValues(limits: SandboxLimits): Record<PrlimitName, number> {
  return { as: limits.memoryBytes, cpu: cpuSeconds(limits), fsize: limits.fsize, nofile: limits.nofile, nproc: limits.nproc };
}

/** Limits from a loaded policy (sandbox.timeout, memory, max_output) plus DEFAULT_LIMITS. */
export function sandboxLimitsFromPolicy(policy: Policy): SandboxLimits {
  return {
    timeoutMs: policy.sandboxTimeoutSeconds * 1000,
    memoryBytes: policy.sandboxMemoryBytes,
    maxOutputBytes: policy.maxOutputBytes,
    ...DEFAULT_LIMITS,
  };
}
