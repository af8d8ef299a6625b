// Reading a unit's request contract and judging its tombstones (docs/contract.md#the-request-contract, docs/contract.md#validation-rules) — shared by `unit
// create`, `unit bind` and `review-challenge`, so all three judge a contract by the same bytes and
// rules (each then calls `validateContract` with the baseline source bytes).
//
// - The contract is parsed from its exact bytes with the format detected from the content (strict
//   JSON when it starts with `{` or `[`, strict YAML otherwise): the stored bytes carry no file name,
//   and a challenge must parse them exactly as the bind did.
// - Source bytes come from the unit's baseline tree (challenge/baseline-sources.ts).
// - A tombstone's authority is valid when its record was consumed for this unit with the matching
//   operation (docs/authority.md#human-authority-records: judged once at consumption; later binds and challenges carry it as history).
import { fail } from '../core/errors.js';
import { type Contract } from '../core/contract/schema.js';
import { parseContractText } from '../core/contract/text.js';
import type { AuthorityValidator } from '../core/contract/tombstones.js';
import { tombstoneAuthorityValidator } from './authority/consume.js';
import type { Db } from '../store/index.js';
import { utf8OrNull } from '../core/utf8.js';
import { readInputFile } from './read-input.js';

/** Contract files are small human documents; the cap bounds hostile input (docs/threat-model.md#rules-that-hold-everywhere fail closed). */
import { CONTRACT_FILE_MAX_BYTES as MAX_CONTRACT_BYTES } from '../core/limits.js';

export function parseContractBytes(bytes: Uint8Array): Contract {
  const text = utf8OrNull(bytes);
  if (text === null) fail('input_unreadable', ['contract']);
  return parseContractText(text, '');
}

export function readContractFile(path: string): { bytes: Buffer; contract: Contract } {
  const bytes = readInputFile(path, MAX_CONTRACT_BYTES);
  return { bytes, contract: parseContractBytes(bytes) };
}

/**
 * Authority validity for tombstones of `unit`, through the authority API: consumed for this unit
 * with the tombstone's operation. Before the unit exists nothing can have been consumed for it.
 */
export function consumedAuthorityValidator(db: Db, unit: string | null): AuthorityValidator {
  return unit === null ? () => false : tombstoneAuthorityValidator(db, unit);
}
