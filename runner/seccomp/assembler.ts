// A two-pass label assembler for classic BPF (docs/sandbox.md#seccomp: "a pure-TypeScript
// classic-BPF assembler ... no toolchain"). Jumps name labels; the second pass turns them into the
// u8 forward offsets the kernel expects and refuses anything backward or farther than 255.
import { OP, validateProgram, type Insn, type Opcode } from './bpf.js';

type Target = string | 'next';

interface PendingInsn {
  readonly code: Opcode;
  readonly k: number;
  readonly jt: Target | null;
  readonly jf: Target | null;
}

export class Assembler {
  private readonly insns: PendingInsn[] = [];
  private readonly labels = new Map<string, number>();

  /** Mark the position of the next instruction. Each label is defined once. */
  label(name: string): this {
    if (this.labels.has(name)) throw new Error(`bpf asm: label defined twice: ${name}`);
    this.labels.set(name, this.insns.length);
    return this;
  }

  /** A = 32-bit word at `offset` of struct seccomp_data. */
  load(offset: number): this {
    this.insns.push({ code: OP.LD_W_ABS, k: offset, jt: null, jf: null });
    return this;
  }

  jeq(k: number, jt: Target, jf: Target): this {
    return this.jump(OP.JEQ_K, k, jt, jf);
  }

  jge(k: number, jt: Target, jf: Target): this {
    return this.jump(OP.JGE_K, k, jt, jf);
  }

  jset(k: number, jt: Target, jf: Target): this {
    return this.jump(OP.JSET_K, k, jt, jf);
  }

  ret(k: number): this {
    this.insns.push({ code: OP.RET_K, k: k >>> 0, jt: null, jf: null });
    return this;
  }

  private jump(code: Opcode, k: number, jt: Target, jf: Target): this {
    this.insns.push({ code, k: k >>> 0, jt, jf });
    return this;
  }

  /** Resolve labels into relative offsets and validate the result. */
  assemble(): Insn[] {
    const resolve = (pc: number, t: Target | null): number => {
      if (t === null) return 0;
      const dest = t === 'next' ? pc + 1 : this.labels.get(t);
      if (dest === undefined) throw new Error(`bpf asm: undefined label: ${t}`);
      const off = dest - (pc + 1);
      if (off < 0 || off > 0xff) throw new Error(`bpf asm: jump from ${pc} to ${String(t)} out of range`);
      return off;
    };
    const out = this.insns.map((p, pc) => ({ code: p.code, k: p.k, jt: resolve(pc, p.jt), jf: resolve(pc, p.jf) }));
    validateProgram(out);
    return out;
  }
}
