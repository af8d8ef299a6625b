// `workspaceStatus`: the workspace manifest with a stat cache (docs/contract.md#workspace-digest). An entry is re-used only
// when (dev, ino, size, mtime_ns, ctime_ns) and the file type are unchanged. A writer can make
// mtime lie, so this fast path serves `governed status` only: issuing a challenge and the
// post-launch drift check call `computeWorkspaceManifest`, which re-hashes every byte.
import { randomBytes } from 'node:crypto';
import { renameSync, readFileSync, rmSync, writeFileSync, type BigIntStats } from 'node:fs';
import { join, resolve } from 'node:path';
import { findRepository } from './git.js';
import { assertSupportedType, hashEntry, lstatEntry, type GitMode } from './hash-file.js';
import { listWorkspaceEntries } from './listing.js';
import { manifestOf, ParentCheck, type Manifest, type ManifestEntry } from './manifest.js';
import { makeScope, type ScopeOptions } from './scope.js';
import { CACHE_VERSION, isCacheFile, type CacheRow } from './ws-cache-shape.js';

export interface WorkspaceStatus {
  readonly manifest: Manifest;
  /** Files whose bytes were read and hashed in this call. */
  readonly hashed: number;
  /** Files whose hash came from the stat cache. */
  readonly reused: number;
}

export interface WorkspaceStatusOptions {
  /** Wall clock in ms at the start of the scan (a parameter so tests can pin racy-entry handling). */
  readonly nowMs?: number;
}

/**
 * A file modified within this window before the scan started may share its timestamps with a
 * later edit (git's "racily clean" problem; kernel file times use a coarse clock), so it is hashed
 * but not cached.
 */
const RACY_WINDOW_NS = 1_000_000_000n;

export async function workspaceStatus(
  root: string,
  options: ScopeOptions,
  cachePath: string,
  statusOptions: WorkspaceStatusOptions = {},
): Promise<WorkspaceStatus> {
  const nowNs = BigInt(Math.floor(statusOptions.nowMs ?? Date.now())) * 1_000_000n;
  const scope = makeScope(options);
  const repo = findRepository(root);
  const top = repo === null ? resolve(root) : repo.workTree;
  const cache = loadCache(cachePath, top);
  const listed = await listWorkspaceEntries(top, repo, scope);
  const parents = new ParentCheck(top);
  const entries: ManifestEntry[] = [];
  const rows: CacheRow[] = [];
  let hashed = 0;
  let reused = 0;
  // Rows written exactly as they were loaded (a hit whose key and mode are unchanged).
  let rowsFromCache = 0;
  for (const { path, kind } of listed) {
    // The walk reached `kind !== null` entries through real directories only (./listing.ts); a
    // path it did not see may lie below a directory that became a symlink.
    if (kind === null && !parents.allRealDirectories(path)) continue;
    const abs = join(top, path);
    const st = lstatEntry(abs);
    if (st === null || st.isDirectory()) continue;
    assertSupportedType(st);
    const key = statKey(st);
    const hit = cache.get(path);
    let mode: GitMode;
    let sha256: string;
    let fromCache = false;
    if (hit !== undefined && sameKey(hit, key) && hit[6] === modeOf(st)) {
      mode = hit[6];
      sha256 = hit[7];
      reused++;
      fromCache = true;
    } else {
      ({ mode, sha256 } = hashEntry(abs, st));
      hashed++;
    }
    entries.push({ path, mode, sha256 });
    if (st.mtimeNs < nowNs - RACY_WINDOW_NS && st.ctimeNs < nowNs - RACY_WINDOW_NS) {
      rows.push([path, ...key, mode, sha256]);
      if (fromCache) rowsFromCache++;
    }
  }
  // Every row is a loaded row, unchanged, and as many as were loaded (paths are unique): the
  // cache on disk already holds exactly this set, so rewriting it (~1 MB of JSON for 10,000
  // files) would change nothing but its row order.
  if (!(rowsFromCache === rows.length && rows.length === cache.size)) saveCache(cachePath, top, rows);
  return { manifest: manifestOf(entries), hashed, reused };
}

type StatKey = [string, string, string, string, string];

function statKey(st: BigIntStats): StatKey {
  return [st.dev.toString(), st.ino.toString(), st.size.toString(), st.mtimeNs.toString(), st.ctimeNs.toString()];
}

function sameKey(row: CacheRow, key: StatKey): boolean {
  return row[1] === key[0] && row[2] === key[1] && row[3] === key[2] && row[4] === key[3] && row[5] === key[4];
}

function modeOf(st: BigIntStats): GitMode {
  if (st.isSymbolicLink()) return '120000';
  return (st.mode & 0o100n) !== 0n ? '100755' : '100644';
}

/**
 * The cache is a hint, never evidence: a missing, unreadable, malformed or foreign (other root)
 * cache is simply empty, which only costs a full re-hash. JSON.parse is enough here because no
 * value in it is trusted beyond "this stat tuple was seen with this hash".
 */
function loadCache(cachePath: string, top: string): Map<string, CacheRow> {
  let text: string;
  try {
    text = readFileSync(cachePath, 'utf8');
  } catch {
    return new Map();
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return new Map();
  }
  if (!isCacheFile(parsed) || parsed.root !== top) return new Map();
  return new Map(parsed.entries.map((row) => [row[0], row]));
}

/** Write-then-rename (0600), so a crash never leaves a torn cache that parses. */
function saveCache(cachePath: string, top: string, rows: CacheRow[]): void {
  const tmp = `${cachePath}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, JSON.stringify({ version: CACHE_VERSION, root: top, entries: rows }), {
      mode: 0o600,
      flag: 'wx',
    });
    renameSync(tmp, cachePath);
  } catch {
    // An unwritable cache location only disables the fast path next time; status itself is exact.
    rmSync(tmp, { force: true });
  }
}
