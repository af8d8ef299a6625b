// Shape of one error-code entry (docs/commands.md#exit-codes): its exit code and a fixed, value-free summary.
export type ExitCode = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;

export interface ErrorDef {
  readonly exit: ExitCode;
  readonly summary: string;
}

export const def = (exit: ExitCode, summary: string): ErrorDef => ({ exit, summary });
