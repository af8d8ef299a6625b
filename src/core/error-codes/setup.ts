// Error codes owned by `governed setup`, `governed doctor` (docs/setup.md) and `governed contract init`
// (docs/contract-init.md). Add entries here only.
//
// Exit-code choices (docs/errors.md): a file of a setup directory that is missing, or that setup did
// not make and will not overwrite, is a usage problem (2: the operator fixes the directory); a file
// whose digest no longer matches what the policy pins is a verification failure (4); a store that
// pins other documents than the setup directory's is refused by state (8).
import { def, type ErrorDef } from './def.js';

export const SETUP_ERRORS = {
  setup_file_missing: def(2, 'A file of the setup directory is missing (a key, the trust root, an attestor configuration or the policy).'),
  setup_file_conflict: def(
    2,
    'A file already in the setup directory is not the one setup would write (another key, trust root, attestor configuration or policy); setup never overwrites it.',
  ),
  setup_output_unwritable: def(2, 'setup could not create a directory or write a file of the setup directory; the files written before it are complete and kept.'),
  setup_template_unknown: def(2, 'The policy template is not one of the shipped templates (default, strict).'),
  setup_digest_changed: def(4, 'A program or file the policy pins by sha256 (reviewer, attestor, attestor configuration, bwrap, sandbox profile, seccomp blob) no longer has that digest.'),
  setup_key_mismatch: def(4, 'A key file, the trust root, an attestor configuration and the policy do not all name the same key for a credential.'),
  setup_userns_unusable: def(2, 'bubblewrap could not create the user, PID and mount namespaces the reviewer sandbox needs.'),
  contract_init_output_exists: def(2, 'The contract file to write already exists; contract init never overwrites it.'),
  contract_init_output_unwritable: def(2, 'The contract file could not be written whole; nothing was left behind.'),
  contract_init_source_invalid: def(2, 'A --source is not a normalized repository-relative path of a readable regular file.'),
  setup_store_pins_other: def(8, 'The state directory pins a policy or trust root other than the setup directory\'s.'),
} as const satisfies Record<string, ErrorDef>;

export const SETUP_REASONS = {} as const satisfies Record<string, string>;
