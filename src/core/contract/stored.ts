// The stored request contract (docs/contract.md#the-request-contract) read on the cold gate path. The bytes of a scope version
// were fully validated when they were bound (`unit create` / `unit bind`: schema and every docs/contract.md#validation-rules rule
// against the baseline sources); here the gate only needs them to be the very bytes that were bound
// and of the shape the digest functions read. So: the exact bytes hash to the stored file digest,
// the parsed value passes the one contract schema (./schema.ts, through its compiled form), and its docs/threat-model.md#rules-that-hold-everywhere digest is the
// stored contract digest. Any difference is `scope_integrity_failed` (exit 4: the store was edited
// behind governed). A tampered but well-formed contract gains nothing: every digest computed from
// it is compared with the signed receipts' digests (docs/contract.md#the-states-a-receipt-is-judged-against), so receipts stop being current and
// the gate denies. YAML is parsed only when the bytes are YAML (../structured.ts).
import { digestOf, sha256Digest } from '../canonical.js';
import { fail, isGovernedError } from '../errors.js';
import { parseStructuredLazy } from '../structured.js';
import { decodeUtf8 } from '../utf8.js';
import type { Contract } from './schema.js';
import { checkFormat } from '../format/interpret.js';
import { CONTRACT } from '../format/compiled.js';
import { formatOf } from '../format/node.js';

/** The contract's compiled form; its one definition is ./schema.ts (docs/architecture.md#compiled-formats). */
export const CONTRACT_FORMAT = /* @__PURE__ */ formatOf<Contract>(CONTRACT);

export interface StoredContract {
  readonly bytes: Uint8Array;
  /** `sha256:` of the exact bytes, as bound. */
  readonly fileDigest: string;
  /** docs/threat-model.md#rules-that-hold-everywhere digest of the parsed contract, as bound. */
  readonly contractDigest: string;
  /** Scope version, for error ids. */
  readonly version: number;
}

/** Parse a bound contract and prove it is the one that was bound (`scope_integrity_failed`). */
export async function loadStoredContract(s: StoredContract): Promise<Contract> {
  const where = `scope:${s.version}`;
  if (sha256Digest(s.bytes) !== s.fileDigest) fail('scope_integrity_failed', [where]);
  let value: unknown;
  try {
    // The stored bytes carry no file name: JSON when they look like JSON, YAML otherwise, exactly as
    // `unit create` / `unit bind` parsed them (src/flows/unit-contract.ts).
    value = await parseStructuredLazy(decodeUtf8(s.bytes, 'contract'), '');
  } catch (e) {
    if (isGovernedError(e)) fail('scope_integrity_failed', [where]);
    throw e;
  }
  const parsed = checkFormat(CONTRACT_FORMAT, value);
  if (!parsed.success) fail('scope_integrity_failed', [where]);
  if (digestOf(value) !== s.contractDigest) fail('scope_integrity_failed', [where]);
  return parsed.data;
}
