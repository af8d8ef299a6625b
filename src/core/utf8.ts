// Strict UTF-8 decoding, one definition for every reader of bytes that must be text: invalid UTF-8
// is refused, never replaced (a lossy decode would let two byte strings read as one text), and a
// leading BOM is kept as content (ignoreBOM), so BOM-prefixed bytes are never canonical. Decoding
// without `stream` keeps no state, so one decoder serves every call.
import { fail } from './errors.js';

const STRICT = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text of `bytes`, or null when they are not valid UTF-8 (for callers with their own code). */
export function utf8OrNull(bytes: Uint8Array): string | null {
  try {
    return STRICT.decode(bytes);
  } catch {
    return null;
  }
}

/** The text of `bytes`; invalid UTF-8 is `input_unreadable` naming `what`. */
export function decodeUtf8(bytes: Uint8Array, what: string): string {
  const text = utf8OrNull(bytes);
  return text ?? fail('input_unreadable', [what]);
}
