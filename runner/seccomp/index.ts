// The seccomp blob handed to bwrap `--seccomp FD` (docs/runner.md#the-run-step-by-step step 5). It is assembled in-process
// from filter.ts (no toolchain at run time) and must equal the committed, digest-pinned
// filter-x86_64.bpf byte for byte: a mismatch means this build is not the reviewed filter, and
// nothing runs. Only x86_64 Linux is supported; other architectures are refused with a code.
import { createHash } from 'node:crypto';
import { fail } from '../../src/core/errors.js';
import { encodeProgram, disassemble } from './bpf.js';
import { buildFilterX86_64, syscallNames, type SocketRule } from './filter.js';
import { SECCOMP_TCP_X86_64_SHA256, SECCOMP_X86_64_SHA256 } from './pinned.js';

export { SECCOMP_TCP_X86_64_SHA256, SECCOMP_X86_64_SHA256 } from './pinned.js';
export type { SocketRule } from './filter.js';

const PINNED: Readonly<Record<SocketRule, string>> = { unix: SECCOMP_X86_64_SHA256, 'loopback-tcp': SECCOMP_TCP_X86_64_SHA256 };

/** True on the one platform the sandbox supports. */
export function sandboxArchSupported(): boolean {
  return process.platform === 'linux' && process.arch === 'x64';
}

export function assertSandboxArch(): void {
  if (!sandboxArchSupported()) fail('sandbox_arch_unsupported', [`${process.platform}/${process.arch}`]);
}

const cached = new Map<SocketRule, Buffer>();

/** The filter bytes (struct sock_filter[]), verified against the pinned digest. `loopback-tcp` is
 * the relay profile's filter only (docs/egress.md#the-in-sandbox-relay). */
export function seccompBlob(sockets: SocketRule = 'unix'): Buffer {
  assertSandboxArch();
  let bytes = cached.get(sockets);
  if (bytes === undefined) {
    bytes = encodeProgram(buildFilterX86_64(sockets));
    if (createHash('sha256').update(bytes).digest('hex') !== PINNED[sockets]) fail('seccomp_blob_mismatch');
    cached.set(sockets, bytes);
  }
  return Buffer.from(bytes);
}

/** `sha256:<hex>` of the blob, the form bound into receipts; the policy allowlists the bare hex. */
export function seccompDigest(sockets: SocketRule = 'unix'): string {
  return `sha256:${createHash('sha256').update(seccompBlob(sockets)).digest('hex')}`;
}

/** The reviewable text form committed as filter-x86_64.txt (filter-tcp-x86_64.txt for `loopback-tcp`). */
export function seccompDisassembly(sockets: SocketRule = 'unix'): string {
  return `${disassemble(buildFilterX86_64(sockets), syscallNames()).join('\n')}\n`;
}
