// The manifest digest, `digestOf(entries)` (docs/contract.md#workspace-digest: "a manifest of (path, mode, sha256) sorted
// by path bytes, digested with JCS"), without the generic canonicalizer. The generic path walks
// every value to prove it is in the canonical domain and then canonicalizes an arbitrary tree
// (~20-35 ms for 10,000 entries, docs/performance.md#workspace-digest); the manifest has one fixed, closed shape,
// so its RFC 8785 text can be written directly:
//   [{"mode":"<mode>","path":<string>,"sha256":"<hex>"},...]
// Keys are already in JCS order (UTF-16 order: mode < path < sha256), mode and sha256 are ASCII
// tokens that need no escaping, and a path is a well-formed string whose JCS form is exactly
// JSON.stringify's (RFC 8785 §3.2.2.2 adopts the ECMAScript string serialization). Anything
// outside that shape (a lone surrogate, an unknown mode, a non-hex hash, an extra key) goes
// through `digestOf`, so the result and the refusals are exactly those of `digestOf(entries)`;
// test/workspace-manifest-digest.test.ts checks the two byte for byte on random manifests.
import { createHash } from 'node:crypto';
import { digestOf, HEX64_RE, isWellFormedString } from '../core/canonical.js';

interface EntryShape {
  readonly path: string;
  readonly mode: string;
  readonly sha256: string;
}

/** `sha256:<hex>` of the JCS bytes of `entries` (in the given order); equals `digestOf(entries)`. */
export function manifestDigest(entries: readonly EntryShape[]): string {
  const text = manifestJcsText(entries);
  if (text === null) return digestOf(entries);
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

/** The JCS text of `entries`, or null when an entry is outside the fixed shape. */
export function manifestJcsText(entries: readonly EntryShape[]): string | null {
  let text = '[';
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as EntryShape;
    if (!isPlainEntry(e)) return null;
    text += `${i === 0 ? '' : ','}{"mode":"${e.mode}","path":${JSON.stringify(e.path)},"sha256":"${e.sha256}"}`;
  }
  return `${text}]`;
}

function isPlainEntry(e: unknown): e is EntryShape {
  if (typeof e !== 'object' || e === null || Object.getPrototypeOf(e) !== Object.prototype) return false;
  const o = e as Record<string, unknown>;
  const keys = Object.keys(o);
  return (
    keys.length === 3 &&
    Object.prototype.hasOwnProperty.call(o, 'mode') &&
    Object.prototype.hasOwnProperty.call(o, 'path') &&
    Object.prototype.hasOwnProperty.call(o, 'sha256') &&
    (o.mode === '100644' || o.mode === '100755' || o.mode === '120000') &&
    typeof o.path === 'string' &&
    isWellFormedString(o.path) &&
    typeof o.sha256 === 'string' &&
    HEX64_RE.test(o.sha256)
  );
}
