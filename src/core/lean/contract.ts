// The stored request contract (docs/contract.md#the-request-contract) read without zod, for the lean gate path. The bytes of a
// scope version were fully validated when they were bound (`unit create` / `unit bind`: schema and
// every docs/contract.md#validation-rules rule against the baseline sources); here the gate only needs them to be the very
// bytes that were bound and of the shape the digest functions read. So: the exact bytes hash to
// the stored file digest, the parsed value has the closed shape of src/core/contract/schema.ts
// (mirrored below, tested against it), and its docs/threat-model.md#rules-that-hold-everywhere digest is the stored contract digest. Any
// difference is `scope_integrity_failed` (exit 4: the store was edited behind governed). A tampered
// but well-formed contract gains nothing: every digest computed from it is compared with the signed
// receipts' digests (docs/contract.md#the-states-a-receipt-is-judged-against), so receipts stop being current and the gate denies.
import { digestOf, sha256Digest } from '../canonical.js';
import type { Contract } from '../contract/schema.js';
import { fail, isGovernedError } from '../errors.js';
import { arr, int, lit, obj, oneOf, opt, str, type Check } from './shape.js';
import { decodeUtf8, parseStructuredLean } from './structured.js';

const MAX_TEXT = 65_536;
const MAX_PATH = 4_096;
const MAX_LIST = 4_096;

const text = str({ min: 1, max: MAX_TEXT });
const idRef = str({ max: 64 });
const idList = arr(idRef, 0, MAX_LIST);
const pathList = arr(str({ min: 1, max: MAX_PATH }), 1, MAX_LIST);
const span: Check = (v, path) => {
  if (!Array.isArray(v) || v.length !== 2) return path;
  for (let i = 0; i < 2; i++) if (int(0)(v[i], `${path}.${i}`) !== null) return `${path}.${i}`;
  return null;
};

export const contractShape: Check = obj({
  kind: lit('governed/request-contract'),
  version: lit(1),
  title: text,
  sources: arr(
    obj({
      id: idRef,
      path: str({ min: 1, max: MAX_PATH }),
      class: oneOf(['directive', 'context', 'reference']),
      atoms: arr(obj({ id: idRef, span, kind: oneOf(['obligation', 'context']), directives: idList }), 0, MAX_LIST),
    }),
    0,
    256,
  ),
  directives: arr(
    obj({
      id: idRef,
      statement: text,
      state: oneOf(['active', 'done', 'deferred', 'superseded', 'abandoned']),
      sources: idList,
      targets: arr(obj({ id: idRef, paths: pathList }), 0, MAX_LIST),
      criteria: arr(obj({ id: idRef, statement: text, atoms: idList }), 0, MAX_LIST),
      implementations: idList,
      evidence: idList,
    }),
    0,
    MAX_LIST,
  ),
  implementations: arr(obj({ id: idRef, paths: pathList }), 0, MAX_LIST),
  evidence: arr(obj({ id: idRef, kind: oneOf(['test', 'fixture', 'benchmark', 'doc', 'log', 'other']), paths: pathList }), 0, MAX_LIST),
  authorities: arr(
    obj({ id: idRef, operation: oneOf(['authorize', 'add', 'replace', 'supersede', 'defer', 'abandon']), record: str({ max: 128 }) }),
    0,
    MAX_LIST,
  ),
  tombstones: arr(obj({ id: idRef, directive: opt(idRef), authority: idRef, disposes: arr(str({ max: 130 }), 1, MAX_LIST * 4) }), 0, MAX_LIST),
});

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
    value = await parseStructuredLean(decodeUtf8(s.bytes, 'contract'), '');
  } catch (e) {
    if (isGovernedError(e)) fail('scope_integrity_failed', [where]);
    throw e;
  }
  if (contractShape(value, '$') !== null) fail('scope_integrity_failed', [where]);
  if (digestOf(value) !== s.contractDigest) fail('scope_integrity_failed', [where]);
  return value as Contract;
}
