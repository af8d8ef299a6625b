// The seccomp blob handed to bwrap `--seccomp FD` (docs/runner.md#the-run-step-by-step step 5). It is assembled in-process
// from filter.ts (no toolchain at run time) and must equal the committed, digest-pinned
// filter-x86_64.bpf byte for byte: a mismatch means this build is not the reviewed filter, and
// nothing runs. Only x86_64 Linux is supported; other architectures are refused with a code.
import { createHash } from 'node:crypto';
import { fail } from '../../src/core/errors.js';
import { encodeProgram, disassemble } from './bpf.js';
import { buildFilterX86_64, syscallNames } from './filter.js';
import { SECCOMP_X86_64_SHA256 } from './pinned.js';

export { SECCOMP_X86_64_SHA256 } from './pinned.js';

/** True on the one platform the sandbox supports. */
export function sandboxArchSupported(): boolean {
  return process.platform === 'linux' && process.arch === 'x64';
}

export function assertSandboxArch(): void {
  if (!sandboxArchSupported()) fail('sandbox_arch_unsupported', [`${process.platform}/${process.arch}`]);
}

let cached: Buffer | null = null;

/** The filter bytes (struct sock_filter[]), verified against the pinned digest. */
export function seccompBlob(): Buffer {
  assertSandboxArch();
  if (cached === null) {
    const bytes = encodeProgram(buildFilterX86_64());
    if (createHash('sha256').update(bytes).digest('hex') !== SECCOMP_X86_64_SHA256) fail('seccomp_blob_mismatch');
    cached = bytes;
  }
  return Buffer.from(cached);
}

/** `sha256:<hex>` of the blob, the form bound into receipts; the policy allowlists the bare hex. */
export function seccompDigest(): string {
  return `sha256:${createHash('sha256').update(seccompBlob()).digest('hex')}`;
}

/** The reviewable text form committed as filter-x86_64.txt. */
export function seccompDisassembly(): string {
  return `${disassemble(buildFilterX86_64(), syscallNames()).join('\n')}\n`;
}
