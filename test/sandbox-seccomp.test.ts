// The seccomp filter (docs/runner.md#the-run-step-by-step step 5; docs/sandbox.md#seccomp unit part): the
// TypeScript assembler regenerates the committed blob byte for byte, the blob's digest is the
// pinned constant, the disassembly starts with the architecture check, every syscall number is
// the kernel header's, and the assembler refuses malformed programs. The behaviour of the filter
// against real syscalls is tested in sandbox-isolation.test.ts (property 10).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Assembler } from '../runner/seccomp/assembler.js';
import { DATA, OP, RET, decodeProgram, disassemble, encodeProgram, validateProgram, type Insn } from '../runner/seccomp/bpf.js';
import { AF_UNIX, CLONE_NAMESPACE_FLAGS, DENY_ENOSYS, DENY_EPERM, ERRNO, TIOCLINUX, TIOCSTI, buildFilterX86_64, syscallNames } from '../runner/seccomp/filter.js';
import { SECCOMP_TCP_X86_64_SHA256, SECCOMP_X86_64_SHA256, seccompBlob, seccompDigest, seccompDisassembly } from '../runner/seccomp/index.js';
import { AUDIT_ARCH_X86_64, NEWER_THAN_DEBIAN12_HEADERS, X32_SYSCALL_BIT, X86_64_SYSCALLS } from '../runner/seccomp/syscalls-x86_64.js';
import { REPO_ROOT } from './helpers/cli.js';
import { sha256 } from './sandbox-helpers.js';

const SECCOMP_DIR = join(REPO_ROOT, 'runner', 'seccomp');
const committedBlob = readFileSync(join(SECCOMP_DIR, 'filter-x86_64.bpf'));
const committedText = readFileSync(join(SECCOMP_DIR, 'filter-x86_64.txt'), 'utf8');

/** Evaluate the filter like the kernel does, on a synthetic seccomp_data. */
function evaluate(insns: readonly Insn[], data: { nr: number; arch?: number; args?: readonly bigint[] }): number {
  const buf = Buffer.alloc(64);
  buf.writeInt32LE(data.nr | 0, 0);
  buf.writeUInt32LE(data.arch ?? AUDIT_ARCH_X86_64, 4);
  (data.args ?? []).forEach((a, i) => buf.writeBigUInt64LE(a, 16 + 8 * i));
  let acc = 0;
  for (let pc = 0; pc < insns.length; ) {
    const insn = insns[pc] as Insn;
    switch (insn.code) {
      case OP.LD_W_ABS:
        acc = buf.readUInt32LE(insn.k);
        pc++;
        break;
      case OP.JEQ_K:
        pc += 1 + (acc === insn.k ? insn.jt : insn.jf);
        break;
      case OP.JGE_K:
        pc += 1 + (acc >= insn.k ? insn.jt : insn.jf);
        break;
      case OP.JSET_K:
        pc += 1 + ((acc & insn.k) >>> 0 !== 0 ? insn.jt : insn.jf);
        break;
      case OP.RET_K:
        return insn.k;
    }
  }
  throw new Error('fell off the program');
}

describe('seccomp blob: regenerated, committed and pinned', () => {
  it('the assembler regenerates the committed filter-x86_64.bpf byte for byte', () => {
    const fresh = encodeProgram(buildFilterX86_64());
    expect(fresh.equals(committedBlob)).toBe(true);
    expect(seccompBlob().equals(committedBlob)).toBe(true);
  });

  it('its sha256 is the pinned constant, and seccompDigest() reports it', () => {
    expect(sha256(committedBlob)).toBe(SECCOMP_X86_64_SHA256);
    expect(seccompDigest()).toBe(`sha256:${SECCOMP_X86_64_SHA256}`);
  });

  it('the committed disassembly is the disassembly of the committed bytes', () => {
    expect(seccompDisassembly()).toBe(committedText);
    expect(disassemble(decodeProgram(committedBlob), syscallNames()).join('\n') + '\n').toBe(committedText);
  });

  it('the first instructions check the architecture, then refuse x32 numbers (kill)', () => {
    const lines = disassemble(decodeProgram(committedBlob), syscallNames()).slice(0, 6);
    expect(lines).toEqual([
      '0000: ld   [4] ; arch',
      `0001: jeq  #0x${AUDIT_ARCH_X86_64.toString(16)} jt 0003 jf 0002`,
      '0002: ret  #0x80000000 ; KILL_PROCESS',
      '0003: ld   [0] ; nr',
      `0004: jge  #0x${X32_SYSCALL_BIT.toString(16)} jt 0005 jf 0006`,
      '0005: ret  #0x80000000 ; KILL_PROCESS',
    ]);
    // Raw bytes of instruction 0: code 0x0020, jt 0, jf 0, k = 4 (little endian).
    expect([...committedBlob.subarray(0, 8)]).toEqual([0x20, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00]);
  });

  it('is a whole number of 8-byte instructions ending in ALLOW (default allow)', () => {
    expect(committedBlob.length % 8).toBe(0);
    const insns = decodeProgram(committedBlob);
    expect(insns.at(-1)).toEqual({ code: OP.RET_K, jt: 0, jf: 0, k: RET.ALLOW });
  });
});

describe('seccomp filter semantics (evaluated like the kernel)', () => {
  const prog = buildFilterX86_64();
  const nr = X86_64_SYSCALLS;
  const errno = (e: number): number => (RET.ERRNO | e) >>> 0;

  it('kills other architectures (i386) and x32 / negative syscall numbers', () => {
    expect(evaluate(prog, { nr: 0, arch: 0x40000003 })).toBe(RET.KILL_PROCESS);
    expect(evaluate(prog, { nr: X32_SYSCALL_BIT | 39 })).toBe(RET.KILL_PROCESS);
    expect(evaluate(prog, { nr: -1 })).toBe(RET.KILL_PROCESS);
  });

  it('denies every listed syscall with its errno, and allows ordinary ones', () => {
    for (const n of DENY_EPERM) expect(evaluate(prog, { nr: nr[n] }), n).toBe(errno(ERRNO.EPERM));
    for (const n of DENY_ENOSYS) expect(evaluate(prog, { nr: nr[n] }), n).toBe(errno(ERRNO.ENOSYS));
    for (const ordinary of [0, 1, 2, 3, 9, 39, 57, 59, 60, 231, 257]) expect(evaluate(prog, { nr: ordinary })).toBe(RET.ALLOW);
  });

  it('socket/socketpair: AF_UNIX only, compared on the low 32 bits', () => {
    for (const call of [nr.socket, nr.socketpair]) {
      expect(evaluate(prog, { nr: call, args: [BigInt(AF_UNIX)] })).toBe(RET.ALLOW);
      for (const family of [0, 2, 10, 16, 17, 40]) expect(evaluate(prog, { nr: call, args: [BigInt(family)] })).toBe(errno(ERRNO.EAFNOSUPPORT));
      // High bits cannot disguise AF_INET (the kernel truncates the int).
      expect(evaluate(prog, { nr: call, args: [(1n << 32n) | 2n] })).toBe(errno(ERRNO.EAFNOSUPPORT));
    }
  });

  it('ioctl: TIOCSTI and TIOCLINUX denied even with high bits set; other requests allowed', () => {
    for (const req of [TIOCSTI, TIOCLINUX]) {
      expect(evaluate(prog, { nr: nr.ioctl, args: [0n, BigInt(req)] })).toBe(errno(ERRNO.EPERM));
      expect(evaluate(prog, { nr: nr.ioctl, args: [0n, (1n << 32n) | BigInt(req)] })).toBe(errno(ERRNO.EPERM));
    }
    expect(evaluate(prog, { nr: nr.ioctl, args: [0n, 0x5421n /* FIONBIO */] })).toBe(RET.ALLOW);
  });

  it('clone: any namespace flag denied; threads and fork allowed', () => {
    for (const flag of [0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000]) {
      expect(flag & CLONE_NAMESPACE_FLAGS).toBe(flag);
      expect(evaluate(prog, { nr: nr.clone, args: [BigInt(flag | 17)] })).toBe(errno(ERRNO.EPERM));
    }
    expect(evaluate(prog, { nr: nr.clone, args: [0x3d0f00n /* pthread_create */] })).toBe(RET.ALLOW);
    expect(evaluate(prog, { nr: nr.clone, args: [0x1200011n /* fork */] })).toBe(RET.ALLOW);
  });
});

describe('the relay profile filter (loopback-tcp): committed, pinned, and TCP stream sockets only', () => {
  const committedTcp = readFileSync(join(SECCOMP_DIR, 'filter-tcp-x86_64.bpf'));
  const prog = buildFilterX86_64('loopback-tcp');
  const nr = X86_64_SYSCALLS;
  const errno = (e: number): number => (RET.ERRNO | e) >>> 0;
  const SOCK_NONBLOCK = 0x800;
  const SOCK_CLOEXEC = 0x80000;

  it('the assembler regenerates filter-tcp-x86_64.bpf byte for byte; its sha256 is the second pinned constant; the text is its disassembly', () => {
    expect(encodeProgram(prog).equals(committedTcp)).toBe(true);
    expect(seccompBlob('loopback-tcp').equals(committedTcp)).toBe(true);
    expect(sha256(committedTcp)).toBe(SECCOMP_TCP_X86_64_SHA256);
    expect(seccompDigest('loopback-tcp')).toBe(`sha256:${SECCOMP_TCP_X86_64_SHA256}`);
    expect(SECCOMP_TCP_X86_64_SHA256).not.toBe(SECCOMP_X86_64_SHA256);
    expect(seccompDisassembly('loopback-tcp')).toBe(readFileSync(join(SECCOMP_DIR, 'filter-tcp-x86_64.txt'), 'utf8'));
  });

  it('admits AF_UNIX and AF_INET/AF_INET6 stream sockets of protocol 0 or TCP (with SOCK_NONBLOCK/SOCK_CLOEXEC)', () => {
    expect(evaluate(prog, { nr: nr.socket, args: [BigInt(AF_UNIX), 1n, 0n] })).toBe(RET.ALLOW);
    expect(evaluate(prog, { nr: nr.socket, args: [BigInt(AF_UNIX), 2n, 0n] })).toBe(RET.ALLOW);
    for (const family of [2n, 10n]) {
      for (const type of [1, 1 | SOCK_NONBLOCK, 1 | SOCK_CLOEXEC, 1 | SOCK_NONBLOCK | SOCK_CLOEXEC]) {
        for (const proto of [0n, 6n]) expect(evaluate(prog, { nr: nr.socket, args: [family, BigInt(type), proto] })).toBe(RET.ALLOW);
      }
    }
  });

  it('refuses datagram, raw, seqpacket and packet types, SCTP and MPTCP, every other family, and socketpair beyond AF_UNIX', () => {
    for (const family of [2n, 10n]) {
      for (const type of [2, 3, 4, 5, 10, 2 | SOCK_CLOEXEC, 3 | SOCK_NONBLOCK]) expect(evaluate(prog, { nr: nr.socket, args: [family, BigInt(type), 0n] }), `type ${type}`).toBe(errno(ERRNO.EAFNOSUPPORT));
      for (const proto of [17n /* UDP */, 132n /* SCTP */, 262n /* MPTCP */, 1n /* ICMP */]) expect(evaluate(prog, { nr: nr.socket, args: [family, 1n, proto] })).toBe(errno(ERRNO.EAFNOSUPPORT));
    }
    for (const family of [0, 16 /* NETLINK */, 17 /* PACKET */, 38 /* ALG */, 40 /* VSOCK */]) expect(evaluate(prog, { nr: nr.socket, args: [BigInt(family), 1n, 0n] })).toBe(errno(ERRNO.EAFNOSUPPORT));
    // High bits cannot disguise a family (the kernel truncates the int).
    expect(evaluate(prog, { nr: nr.socket, args: [(1n << 32n) | 16n, 1n, 0n] })).toBe(errno(ERRNO.EAFNOSUPPORT));
    expect(evaluate(prog, { nr: nr.socketpair, args: [2n, 1n, 0n] })).toBe(errno(ERRNO.EAFNOSUPPORT));
    expect(evaluate(prog, { nr: nr.socketpair, args: [BigInt(AF_UNIX), 1n, 0n] })).toBe(RET.ALLOW);
  });

  it('everything else is the same filter as the AF_UNIX one (only the socket rule differs)', () => {
    const unix = buildFilterX86_64();
    for (const n of [...DENY_EPERM, ...DENY_ENOSYS]) expect(evaluate(prog, { nr: nr[n] }), n).toBe(evaluate(unix, { nr: nr[n] }));
    expect(evaluate(prog, { nr: nr.clone, args: [0x40000000n | 17n] })).toBe(errno(ERRNO.EPERM));
    expect(evaluate(prog, { nr: nr.ioctl, args: [0n, BigInt(TIOCSTI)] })).toBe(errno(ERRNO.EPERM));
  });
});

describe('syscall numbers match the kernel headers', () => {
  it('every x86_64 number equals /usr/include/x86_64-linux-gnu/asm/unistd_64.h (or is listed as newer)', () => {
    const header = readFileSync('/usr/include/x86_64-linux-gnu/asm/unistd_64.h', 'utf8');
    for (const [name, n] of Object.entries(X86_64_SYSCALLS)) {
      const m = new RegExp(`^#define __NR_${name} (\\d+)$`, 'm').exec(header);
      if (m === null) {
        expect(NEWER_THAN_DEBIAN12_HEADERS, name).toHaveProperty(name);
        continue;
      }
      expect(Number(m[1]), name).toBe(n);
    }
  });
});

describe('classic BPF assembler and validator', () => {
  it('refuses undefined labels, backward and over-long jumps', () => {
    expect(() => new Assembler().jeq(1, 'nowhere', 'next').ret(0).assemble()).toThrow(/undefined label/);
    expect(() => new Assembler().label('top').load(0).jeq(1, 'top', 'next').ret(0).assemble()).toThrow(/out of range/);
    const far = new Assembler().jeq(1, 'far', 'next');
    for (let i = 0; i < 300; i++) far.ret(RET.ALLOW);
    expect(() => far.label('far').ret(0).assemble()).toThrow(/out of range/);
    expect(() => new Assembler().label('a').label('a')).toThrow(/defined twice/);
  });

  it('refuses a program that can fall off the end, unknown opcodes and unaligned loads', () => {
    expect(() => validateProgram([{ code: OP.LD_W_ABS, jt: 0, jf: 0, k: 0 }])).toThrow(/end with a return/);
    expect(() => validateProgram([{ code: OP.LD_W_ABS, jt: 0, jf: 0, k: 2 }, { code: OP.RET_K, jt: 0, jf: 0, k: 0 }])).toThrow(/load offset/);
    expect(() => decodeProgram(Buffer.from([0x07, 0, 0, 0, 0, 0, 0, 0]))).toThrow(/unknown opcode/);
    expect(() => decodeProgram(Buffer.alloc(7))).toThrow(/multiple of 8/);
  });

  it('encodes little-endian sock_filter records', () => {
    const b = encodeProgram(new Assembler().load(DATA.arch).jeq(0xc000003e, 'next', 'next').ret(RET.ALLOW).assemble());
    expect(b.toString('hex')).toBe('2000000004000000' + '150000003e0000c0' + '060000000000ff7f');
  });
});
