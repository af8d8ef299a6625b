// Strict base64 (RFC 4648 §4, padded). Node's decoder silently skips invalid characters, so two
// different strings could decode to the same bytes; governed accepts only the one canonical
// encoding of each byte string (decode, re-encode, compare).
import { fail, type ErrorCode } from './errors.js';

// Re-encoding equality alone is sufficient: skipped junk or whitespace, missing padding,
// base64url characters and non-zero trailing bits all re-encode differently.
export function decodeBase64Strict(text: string, code: ErrorCode, id: string): Buffer {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.toString('base64') !== text) fail(code, [id]);
  return bytes;
}
