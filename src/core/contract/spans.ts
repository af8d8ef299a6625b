// Atom spans (docs/contract.md#validation-rules): half-open byte ranges [start, end) on UTF-8 character boundaries that tile
// the source's bytes exactly — no gap, no overlap, nothing out of range. The bytes are the ones read
// at issuance (the caller passes them in), so the partition a reviewer sees is the partition of the
// very bytes whose digest is bound.
import { fail } from '../errors.js';
import type { ContractAtom } from './schema.js';
import { utf8OrNull } from '../utf8.js';


/** A UTF-8 continuation byte (10xxxxxx) never starts a character. */
function isCharBoundary(bytes: Uint8Array, offset: number): boolean {
  if (offset === 0 || offset === bytes.length) return true;
  const b = bytes[offset];
  return b !== undefined && (b & 0xc0) !== 0x80;
}

/** Refuse a source that is not valid UTF-8: character boundaries would be undefined. */
export function assertUtf8(sourceId: string, bytes: Uint8Array): void {
  if (utf8OrNull(bytes) === null) fail('contract_source_not_utf8', [sourceId]);
}

/**
 * Check that `atoms` tile `bytes`. Checks run per atom first (empty, range, boundary), then on the
 * atoms sorted by start so a gap and an overlap are told apart and name the two atoms involved
 * (or `^`/`$` for the start and end of the source).
 */
export function assertAtomsTileSource(sourceId: string, atoms: readonly ContractAtom[], bytes: Uint8Array): void {
  assertUtf8(sourceId, bytes);
  for (const atom of atoms) {
    const [start, end] = atom.span;
    if (start >= end) fail('contract_span_empty', [atom.id]);
    if (end > bytes.length) fail('contract_span_out_of_range', [atom.id]);
    if (!isCharBoundary(bytes, start) || !isCharBoundary(bytes, end)) fail('contract_span_not_char_boundary', [atom.id]);
  }
  const ordered = [...atoms].sort((a, b) => a.span[0] - b.span[0] || a.span[1] - b.span[1]);
  let cursor = 0;
  let previous = `${sourceId}^`;
  for (const atom of ordered) {
    const [start, end] = atom.span;
    if (start > cursor) fail('contract_span_gap', [previous, atom.id]);
    if (start < cursor) fail('contract_span_overlap', [previous, atom.id]);
    cursor = end;
    previous = atom.id;
  }
  if (cursor !== bytes.length) fail('contract_span_gap', [previous, `${sourceId}$`]);
}

/** The bytes an atom covers (call after assertAtomsTileSource). */
export function atomBytes(atom: ContractAtom, bytes: Uint8Array): Uint8Array {
  return bytes.subarray(atom.span[0], atom.span[1]);
}
