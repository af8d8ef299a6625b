// Error codes owned by offline verification of signed decisions and checkpoints (`governed verify
// --vsa`, `--log-checkpoint`; docs/gate.md §3 "Verifying a signed decision"). Add entries here only.
import { def, type ErrorDef } from './def.js';

export const VERIFY_ERRORS = {
  vsa_subject_mismatch: def(4, 'The signed decision is about another commit than --subject.'),
  verify_kind_conflict: def(2, 'verify takes receipt files, or one --vsa file, or one --log-checkpoint file: not several kinds at once.'),
} as const satisfies Record<string, ErrorDef>;

export const VERIFY_REASONS = {} as const satisfies Record<string, string>;
