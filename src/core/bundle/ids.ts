// Identifiers the bundle adds to the contract's own (docs/reviewers.md#the-reviewers-world coverage kinds `changes` and
// `scope_versions`). They follow the contract ID syntax (docs/contract.md#validation-rules) so reviewer findings can name
// them as refs, and they are derived, never chosen: the same path or version always has the same id.
// node:crypto directly (not ../canonical.ts), so the pinned coverage reviewer can bundle ./rules.ts.
import { createHash } from 'node:crypto';

const sha256Hex = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** `CHG-<first 24 hex of sha256(path bytes)>`: stable per path, 96 bits, no path text in the id. */
export function changeId(path: string): string {
  return `CHG-${sha256Hex(Buffer.from(path, 'utf8')).slice(0, 24)}`;
}

/** `SCOPE-<version>` for scope version n of the unit. */
export function scopeVersionId(version: number): string {
  return `SCOPE-${version}`;
}
