// The seccomp filter of the reviewer sandbox (docs/runner.md#the-run-step-by-step step 5; docs/sandbox.md#seccomp). It is
// defined here as data and assembled into classic BPF without any toolchain; the result is
// committed as filter-x86_64.bpf (and its disassembly filter-x86_64.txt) and pinned by digest in
// pinned.ts. Default ALLOW: the sandbox's namespaces, read-only mounts and rlimits do the broad
// confinement; the filter removes the kernel attack surface and escape tools those cannot.
import { Assembler } from './assembler.js';
import { DATA, RET, type Insn } from './bpf.js';
import { AUDIT_ARCH_X86_64, X32_SYSCALL_BIT, X86_64_SYSCALLS, type SyscallName } from './syscalls-x86_64.js';

export const ERRNO = { EPERM: 1, ENOSYS: 38, EAFNOSUPPORT: 97 } as const;

/** EPERM: debugging other processes, kernel keyrings, mounts and namespaces, eBPF/perf, module and
 * kexec loading, host clock/swap/reboot/quota, raw I/O ports, NUMA policy, personality changes,
 * file handles (open_by_handle_at escapes a mount namespace with CAP_DAC_READ_SEARCH). */
export const DENY_EPERM: readonly SyscallName[] = [
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'process_madvise',
  'kcmp',
  'pidfd_getfd',
  'mount',
  'umount2',
  'pivot_root',
  'chroot',
  'unshare',
  'setns',
  'keyctl',
  'add_key',
  'request_key',
  'bpf',
  'perf_event_open',
  'userfaultfd',
  'fanotify_init',
  'kexec_load',
  'kexec_file_load',
  'init_module',
  'finit_module',
  'delete_module',
  'create_module',
  'get_kernel_syms',
  'query_module',
  'nfsservctl',
  'syslog',
  'acct',
  'quotactl',
  'quotactl_fd',
  'swapon',
  'swapoff',
  'reboot',
  'settimeofday',
  'clock_settime',
  'clock_adjtime',
  'adjtimex',
  'iopl',
  'ioperm',
  'uselib',
  'vhangup',
  'lookup_dcookie',
  'name_to_handle_at',
  'open_by_handle_at',
  'mbind',
  'set_mempolicy',
  'set_mempolicy_home_node',
  'migrate_pages',
  'move_pages',
  'modify_ldt',
  'personality',
];

/** ENOSYS, so libc and libuv fall back to the older call that the filter can inspect: clone3
 * (flags live in memory, unreadable by BPF; CVE-2021-41133), io_uring (its operations never pass
 * through the filter: IORING_OP_SOCKET creates IP sockets), and the new mount API. */
export const DENY_ENOSYS: readonly SyscallName[] = [
  'clone3',
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
  'open_tree',
  'open_tree_attr',
  'move_mount',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'mount_setattr',
];

export const AF_UNIX = 1;
export const AF_INET = 2;
export const AF_INET6 = 10;
/** The socket type's low nibble (SOCK_TYPE_MASK); SOCK_NONBLOCK and SOCK_CLOEXEC live above it. */
export const SOCK_STREAM = 1;
export const IPPROTO_TCP = 6;

/**
 * Which sockets a filter admits. `unix` (every profile but one): AF_UNIX only. `loopback-tcp` (the
 * relay profile, docs/egress.md#the-in-sandbox-relay): AF_UNIX, and AF_INET/AF_INET6 stream sockets
 * of protocol 0 or TCP — the network namespace is still empty, so the only TCP peer there is the
 * sandbox's own loopback. Datagram, raw, SCTP and MPTCP sockets stay refused (no DNS, no ICMP).
 */
export type SocketRule = 'unix' | 'loopback-tcp';
export const TIOCSTI = 0x5412;
export const TIOCLINUX = 0x541c;
/** CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID |
 * CLONE_NEWNET. (CLONE_NEWTIME, 0x80, overlaps the exit-signal byte of clone() and is only
 * accepted by clone3 and unshare, which are denied outright.) */
export const CLONE_NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;

const errno = (e: number): number => (RET.ERRNO | e) >>> 0;

/**
 * Assemble the filter. Argument checks compare only the low 32 bits of the 64-bit argument word:
 * the kernel truncates `int`/`unsigned int` arguments (socket family, ioctl request, clone flags via
 * lower_32_bits), so high bits cannot smuggle a value past the rule (CVE-2019-7303).
 */
export function buildFilterX86_64(sockets: SocketRule = 'unix'): Insn[] {
  const nr = (n: SyscallName): number => X86_64_SYSCALLS[n];
  const a = new Assembler();
  // 1. Wrong architecture (i386 via int 0x80, anything else): the syscall numbers below would mean
  //    other calls there, so the process dies.
  a.load(DATA.arch).jeq(AUDIT_ARCH_X86_64, 'arch_ok', 'next').ret(RET.KILL_PROCESS);
  a.label('arch_ok').load(DATA.nr);
  // 2. x32 ABI numbers (bit 30 set): same reasoning; also catches negative numbers.
  a.jge(X32_SYSCALL_BIT, 'next', 'native').ret(RET.KILL_PROCESS);
  a.label('native');
  // 3. socket/socketpair: only AF_UNIX (the network namespace is empty anyway; this also closes
  //    AF_NETLINK, AF_PACKET, AF_VSOCK, AF_ALG ... kernel surface).
  for (const call of ['socket', 'socketpair'] as const) {
    a.jeq(nr(call), 'next', `after_${call}`).load(DATA.argLow(0));
    if (sockets === 'loopback-tcp' && call === 'socket') {
      // AF_INET/AF_INET6: type & 0xf must be SOCK_STREAM (bit 0 set, bits 1–3 clear; the kernel
      // refuses any other bit below SOCK_NONBLOCK), protocol 0 or IPPROTO_TCP.
      a.jeq(AF_UNIX, 'allow_socket', 'next')
        .jeq(AF_INET, 'inet_socket', 'next')
        .jeq(AF_INET6, 'inet_socket', 'deny_socket')
        .label('inet_socket')
        .load(DATA.argLow(1))
        .jset(0xe, 'deny_socket', 'next')
        .jset(SOCK_STREAM, 'next', 'deny_socket')
        .load(DATA.argLow(2))
        .jeq(0, 'allow_socket', 'next')
        .jeq(IPPROTO_TCP, 'allow_socket', 'deny_socket')
        .label('allow_socket')
        .ret(RET.ALLOW);
    } else a.jeq(AF_UNIX, 'next', `deny_${call}`).ret(RET.ALLOW);
    a.label(`deny_${call}`)
      .ret(errno(ERRNO.EAFNOSUPPORT))
      .label(`after_${call}`);
  }
  // 4. ioctl: TIOCSTI / TIOCLINUX inject keystrokes into a terminal (CVE-2017-5226, CVE-2023-28100).
  a.jeq(nr('ioctl'), 'next', 'after_ioctl')
    .load(DATA.argLow(1))
    .jeq(TIOCSTI, 'deny_ioctl', 'next')
    .jeq(TIOCLINUX, 'deny_ioctl', 'next')
    .ret(RET.ALLOW)
    .label('deny_ioctl')
    .ret(errno(ERRNO.EPERM))
    .label('after_ioctl');
  // 5. clone with any namespace flag (threads and fork stay allowed).
  a.jeq(nr('clone'), 'next', 'after_clone')
    .load(DATA.argLow(0))
    .jset(CLONE_NAMESPACE_FLAGS, 'next', 'allow_clone')
    .ret(errno(ERRNO.EPERM))
    .label('allow_clone')
    .ret(RET.ALLOW)
    .label('after_clone');
  // 6. Denied outright: one compare-and-return pair each (no long jumps to a shared return).
  for (const call of DENY_ENOSYS) a.jeq(nr(call), 'next', `skip_${call}`).ret(errno(ERRNO.ENOSYS)).label(`skip_${call}`);
  for (const call of DENY_EPERM) a.jeq(nr(call), 'next', `skip_${call}`).ret(errno(ERRNO.EPERM)).label(`skip_${call}`);
  // 7. Everything else.
  a.ret(RET.ALLOW);
  return a.assemble();
}

/** Syscall number → name, for annotating the disassembly. */
export function syscallNames(): Map<number, string> {
  return new Map(Object.entries(X86_64_SYSCALLS).map(([name, n]) => [n, name]));
}
