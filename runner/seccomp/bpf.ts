// Classic BPF for seccomp (docs/runner.md#the-run-step-by-step step 5; docs/sandbox.md#seccomp): the instruction encoding of
// `struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; }` (8 bytes, little endian on x86_64), a
// structural validator, and a disassembler so the committed blob can be reviewed as text.
// Only the handful of opcodes a seccomp filter needs are supported; anything else is refused,
// so the disassembler cannot silently misread a blob it does not understand.

/** Opcodes (linux/filter.h, linux/bpf_common.h). */
export const OP = {
  /** BPF_LD | BPF_W | BPF_ABS: A = *(u32 *)(seccomp_data + k) */
  LD_W_ABS: 0x20,
  /** BPF_JMP | BPF_JEQ | BPF_K */
  JEQ_K: 0x15,
  /** BPF_JMP | BPF_JGE | BPF_K (unsigned) */
  JGE_K: 0x35,
  /** BPF_JMP | BPF_JSET | BPF_K: A & k != 0 */
  JSET_K: 0x45,
  /** BPF_RET | BPF_K */
  RET_K: 0x06,
} as const;

export type Opcode = (typeof OP)[keyof typeof OP];
const KNOWN_OPS: ReadonlySet<number> = new Set(Object.values(OP));

export interface Insn {
  readonly code: Opcode;
  readonly jt: number;
  readonly jf: number;
  readonly k: number;
}

/** seccomp return actions (linux/seccomp.h). */
export const RET = {
  KILL_PROCESS: 0x80000000,
  ERRNO: 0x00050000,
  ALLOW: 0x7fff0000,
} as const;

/** Offsets into `struct seccomp_data { int nr; u32 arch; u64 instruction_pointer; u64 args[6]; }`. */
export const DATA = {
  nr: 0,
  arch: 4,
  /** Low 32 bits of args[i] on a little-endian machine. */
  argLow: (i: number): number => 16 + 8 * i,
} as const;

/** The kernel's limit on classic BPF program length (BPF_MAXINSNS). */
export const BPF_MAXINSNS = 4096;

const u8 = (n: number): boolean => Number.isInteger(n) && n >= 0 && n <= 0xff;
const u32 = (n: number): boolean => Number.isInteger(n) && n >= 0 && n <= 0xffffffff;

/**
 * Structural checks the kernel would also make, done here so a bad program never reaches a file:
 * known opcodes, u8 jumps that stay inside the program (classic BPF only jumps forward), every path
 * ends in a return (the last instruction is a RET), loads only aligned offsets inside seccomp_data.
 */
export function validateProgram(insns: readonly Insn[]): void {
  if (insns.length === 0 || insns.length > BPF_MAXINSNS) throw new Error('bpf: program length');
  insns.forEach((insn, pc) => {
    if (!KNOWN_OPS.has(insn.code)) throw new Error(`bpf: unknown opcode at ${pc}`);
    if (!u8(insn.jt) || !u8(insn.jf) || !u32(insn.k)) throw new Error(`bpf: field range at ${pc}`);
    if (insn.code === OP.LD_W_ABS) {
      if (insn.k % 4 !== 0 || insn.k > 60) throw new Error(`bpf: load offset at ${pc}`);
    }
    const isJump = insn.code === OP.JEQ_K || insn.code === OP.JGE_K || insn.code === OP.JSET_K;
    if (isJump) {
      if (pc + 1 + Math.max(insn.jt, insn.jf) >= insns.length) throw new Error(`bpf: jump out of program at ${pc}`);
    } else if (insn.jt !== 0 || insn.jf !== 0) {
      throw new Error(`bpf: jump fields on a non-jump at ${pc}`);
    }
  });
  if (insns[insns.length - 1]?.code !== OP.RET_K) throw new Error('bpf: program must end with a return');
}

/** `struct sock_filter[]` bytes, little endian. */
export function encodeProgram(insns: readonly Insn[]): Buffer {
  validateProgram(insns);
  const out = Buffer.alloc(insns.length * 8);
  insns.forEach((insn, i) => {
    out.writeUInt16LE(insn.code, i * 8);
    out.writeUInt8(insn.jt, i * 8 + 2);
    out.writeUInt8(insn.jf, i * 8 + 3);
    out.writeUInt32LE(insn.k, i * 8 + 4);
  });
  return out;
}

export function decodeProgram(bytes: Uint8Array): Insn[] {
  if (bytes.length === 0 || bytes.length % 8 !== 0) throw new Error('bpf: blob length is not a multiple of 8');
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const insns: Insn[] = [];
  for (let off = 0; off < buf.length; off += 8) {
    const code = buf.readUInt16LE(off);
    if (!KNOWN_OPS.has(code)) throw new Error(`bpf: unknown opcode at ${off / 8}`);
    insns.push({ code: code as Opcode, jt: buf.readUInt8(off + 2), jf: buf.readUInt8(off + 3), k: buf.readUInt32LE(off + 4) });
  }
  validateProgram(insns);
  return insns;
}

const hex = (n: number): string => `0x${n.toString(16).padStart(8, '0')}`;

const ERRNO_NAMES: ReadonlyMap<number, string> = new Map([
  [1, 'EPERM'],
  [38, 'ENOSYS'],
  [97, 'EAFNOSUPPORT'],
]);

function describeRet(k: number): string {
  if (k === RET.ALLOW) return 'ALLOW';
  if (k === RET.KILL_PROCESS) return 'KILL_PROCESS';
  if ((k & 0xffff0000) >>> 0 === RET.ERRNO) return `ERRNO(${ERRNO_NAMES.get(k & 0xffff) ?? k & 0xffff})`;
  return hex(k);
}

/**
 * One line per instruction, e.g. `0001: jeq #0xc000003e jt 0002 jf 0003`. Jump targets are absolute
 * instruction numbers; `names` (syscall number → name) annotates comparisons against `nr`.
 */
export function disassemble(insns: readonly Insn[], names: ReadonlyMap<number, string> = new Map()): string[] {
  // What the accumulator holds at each instruction (the seccomp_data offset last loaded), found by
  // a forward pass: classic BPF only jumps forward, so every predecessor is visited first.
  const loadedAt: (Set<number> | undefined)[] = insns.map(() => undefined);
  const reach = (pc: number, from: Set<number>): void => {
    const s = (loadedAt[pc] ??= new Set<number>());
    for (const v of from) s.add(v);
  };
  loadedAt[0] = new Set<number>();
  insns.forEach((insn, pc) => {
    const before = loadedAt[pc] ?? new Set<number>();
    if (insn.code === OP.RET_K) return;
    const after = insn.code === OP.LD_W_ABS ? new Set([insn.k]) : before;
    if (insn.code === OP.LD_W_ABS) reach(pc + 1, after);
    else {
      reach(pc + 1 + insn.jt, after);
      reach(pc + 1 + insn.jf, after);
    }
  });
  return insns.map((insn, pc) => {
    const at = pc.toString().padStart(4, '0');
    const target = (off: number): string => (pc + 1 + off).toString().padStart(4, '0');
    switch (insn.code) {
      case OP.LD_W_ABS: {
        const what =
          insn.k === DATA.nr ? 'nr' : insn.k === DATA.arch ? 'arch' : insn.k >= 16 ? `args[${(insn.k - 16) >> 3}]${insn.k % 8 === 0 ? '.lo' : '.hi'}` : `+${insn.k}`;
        return `${at}: ld   [${insn.k}] ; ${what}`;
      }
      case OP.JEQ_K:
      case OP.JGE_K:
      case OP.JSET_K: {
        const op = insn.code === OP.JEQ_K ? 'jeq ' : insn.code === OP.JGE_K ? 'jge ' : 'jset';
        const acc = loadedAt[pc];
        const onNr = acc !== undefined && acc.size === 1 && acc.has(DATA.nr);
        const note = onNr && insn.code === OP.JEQ_K && names.has(insn.k) ? ` ; ${names.get(insn.k)}` : '';
        return `${at}: ${op} #${hex(insn.k)} jt ${target(insn.jt)} jf ${target(insn.jf)}${note}`;
      }
      case OP.RET_K:
        return `${at}: ret  #${hex(insn.k)} ; ${describeRet(insn.k)}`;
    }
  });
}
