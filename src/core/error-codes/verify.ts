// Error codes owned by offline verification of signed decisions and checkpoints (`governed verify
// --vsa`, `--log-checkpoint`; docs/gate.md#3-the-signed-decision---attest-file "Verifying a signed decision") and of probe receipt files
// (docs/preservation.md#verifying-a-probe-receipt-offline). Add entries here only.
import { def, type ErrorDef } from './def.js';

export const VERIFY_ERRORS = {
  vsa_subject_mismatch: def(4, 'The signed decision is about another commit than --subject.'),
  verify_kind_conflict: def(2, 'verify takes receipt files, or one --vsa file, or one --log-checkpoint file: not several kinds at once.'),
  receipt_kind_mismatch: def(
    4,
    'The file is not a receipt of the kind expected: a statement signed by a probe key that is not a probe receipt, or (with --contract, which binds probe receipts) a file that is not a probe receipt.',
  ),
  probe_contract_mismatch: def(4, "The probe receipt is not bound to the --contract given: a result names an undeclared surface, another entry than the surface's probe, or another evidence id than the surface's for the receipt's phase (ids: the receipt, then those surfaces)."),
  probe_adapter_not_allowlisted: def(6, "The probe receipt was made by an adapter whose sha256 is not on the --policy's preservation_adapters allowlist (ids: the receipt)."),
} as const satisfies Record<string, ErrorDef>;

export const VERIFY_REASONS = {} as const satisfies Record<string, string>;
