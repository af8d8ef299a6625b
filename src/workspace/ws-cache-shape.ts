// The shape check of the `status` stat cache file (docs/contract.md#workspace-digest: the cache is a hint that may only
// speed up `status`; a malformed one is treated as empty). Hand-written instead of zod because it
// runs over every row of a 10,000-file cache on each `status` call (~11 ms with zod, about a tenth
// of the warm status time; docs/performance.md#workspace-digest). Its acceptance is exactly the former zod
// schema's (`z.strictObject({ version: z.literal(1), root: z.string(), entries: z.array(z.tuple([
// z.string(), 5 × z.string().regex(DEC), z.enum(modes), z.string().regex(HEX64_RE)])) })`):
// test/workspace-cache-shape.test.ts proves it over valid files and hundreds of mutations.
import { HEX64_RE } from '../core/canonical.js';
import type { GitMode } from './hash-file.js';

export const CACHE_VERSION = 1;
/** Non-negative decimal integers of up to 24 digits (nanoseconds exceed 2^53). */
export const DEC = /^[0-9]{1,24}$/;

/** [path, dev, ino, size, mtime_ns, ctime_ns, mode, sha256]; integers as decimal strings. */
export type CacheRow = [string, string, string, string, string, string, GitMode, string];

export interface CacheFile {
  readonly version: typeof CACHE_VERSION;
  readonly root: string;
  readonly entries: CacheRow[];
}

/** Whether a JSON.parse result is a well-formed cache file (closed: no unknown keys). */
export function isCacheFile(v: unknown): v is CacheFile {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  let keys = 0;
  for (const k of Object.keys(o)) {
    if (k !== 'version' && k !== 'root' && k !== 'entries') return false;
    keys++;
  }
  if (keys !== 3 || o.version !== CACHE_VERSION || typeof o.root !== 'string' || !Array.isArray(o.entries)) return false;
  for (const row of o.entries as unknown[]) if (!isCacheRow(row)) return false;
  return true;
}

function isCacheRow(row: unknown): row is CacheRow {
  if (!Array.isArray(row) || row.length !== 8) return false;
  if (typeof row[0] !== 'string') return false;
  for (let i = 1; i <= 5; i++) {
    const d: unknown = row[i];
    if (typeof d !== 'string' || !DEC.test(d)) return false;
  }
  const mode: unknown = row[6];
  if (mode !== '100644' && mode !== '100755' && mode !== '120000') return false;
  const sha: unknown = row[7];
  return typeof sha === 'string' && HEX64_RE.test(sha);
}
