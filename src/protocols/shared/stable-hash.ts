// Stable, order-independent identifiers for protocol objects. Every digest is SHA-256 over RFC 8785
// bytes (docs/threat-model.md#rules-that-hold-everywhere "Canonical digests"), so two runs over the same findings name them identically no
// matter in which order reviewers answered.
import { digestOf, sha256Digest } from '../../core/canonical.js';

/** `sha256:<hex>` of the canonical form of a value in governed's domain. */
export function stableDigest(value: unknown): string {
  return digestOf(value);
}

/** Digest of a set of digests/identifiers: sorted and de-duplicated first, so order never matters. */
export function digestOfSet(items: readonly string[]): string {
  return digestOf([...new Set(items)].sort());
}

/**
 * Digest of the 1-based inclusive line range [start, end] of a text (docs/review-pass-protocol.md#suppression
 * suppress_hash). Lines are split on "\n" (a trailing "\r" stays part of its line, so a CRLF→LF edit
 * counts as an edit). Returns null when the range starts beyond the last line ("range invalid",
 * docs/review-pass-protocol.md#invalidation). An end beyond the last line is clamped: appending lines inside the window changes the hash.
 */
export function lineRangeDigest(text: string, start: number, end: number): string | null {
  const lines = text.split('\n');
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 1 || end < start) return null;
  if (start > lines.length) return null;
  const slice = lines.slice(start - 1, Math.min(end, lines.length));
  return digestOf({ range: [start, end], lines: slice });
}

/** Digest of a whole text (docs/review-pass-protocol.md#suppression: "For findings without a line number: hash the entire file"). */
export function wholeTextDigest(text: string): string {
  return sha256Digest(text);
}
