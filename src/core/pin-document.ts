// A policy or trust-root document as the store pins it (docs/state.md): strict UTF-8, then strict
// JSON or YAML (auto-detected, `parseStructured`), then the canonical digest of the value. One
// definition for init, the pin update and its authority request, the integrity check of the pinned
// bytes and the replay of a pin entry, so the document validated is always the document whose
// digest is pinned.
import { digestOf, type CanonicalValue } from './canonical.js';
import { parseStructured } from './strict-parse.js';
import { decodeUtf8 } from './utf8.js';

export type PinDocumentKind = 'policy' | 'trust';

/** Parse pin bytes; not UTF-8 is `input_unreadable` naming `kind`, a parse error is the parser's. */
export function parsePinDocument(bytes: Uint8Array, kind: PinDocumentKind): { value: CanonicalValue; digest: string } {
  const value = parseStructured(decodeUtf8(bytes, kind), '');
  return { value, digest: digestOf(value) };
}
