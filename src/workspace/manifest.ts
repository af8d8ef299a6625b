// The workspace manifest and digest (docs/contract.md#workspace-digest): `(path, mode, sha256)` for every in-scope file,
// sorted by UTF-8 path bytes, digested with JCS. Contents are the working-tree bytes, re-hashed on
// every call (issuing a challenge and the drift check must never trust a stat cache; the cached fast
// path is `workspaceStatus` in ./status.ts).
import { join } from 'node:path';
import { EXIT_PRECEDENCE, isGovernedError } from '../core/errors.js';
import { findRepository } from './git.js';
import { assertSupportedType, hashEntry, lstatEntry, type HashedEntry } from './hash-file.js';
import type { HashKind } from './hash-core.js';
import { hashJobs, PrestartedHelpers, type HashJob, type HashPoolOptions } from './hash-pool.js';
import { beginListing } from './listing.js';
import { manifestOf, type Manifest, type ManifestEntry } from './manifest-entries.js';
import { makeScope, type ScopeOptions } from './scope.js';
import { indexBytes, otherRunnableTasks, prestartCount } from './ws-load.js';

export type { ScopeOptions } from './scope.js';

export { manifestOf, sortEntries, type Manifest, type ManifestEntry } from './manifest-entries.js';

/** How the hashing is shared between threads; never what is checked or hashed. */
export interface WorkspaceHashingOptions extends Omit<HashPoolOptions, 'prestarted' | 'quietFrom' | 'signal'> {
  /**
   * Helpers started before the listing (default, when `helpers` is not given: decided from the
   * index size and the CPUs free right now, ./ws-load.ts; tests pass a number).
   */
  readonly prestart?: number;
}

/**
 * Manifest of the working tree at `root` (the repository top level, or any directory outside a
 * repository). Every file is opened and hashed now; nothing is cached. `hashing` tunes only how
 * many threads share the work (./hash-pool.ts), never what is checked or hashed.
 */
export async function computeWorkspaceManifest(
  root: string,
  options: ScopeOptions,
  hashing: WorkspaceHashingOptions = {},
): Promise<Manifest> {
  const scope = makeScope(options);
  const repo = findRepository(root);
  const top = repo === null ? root : repo.workTree;
  // A helper's startup overlaps git's listing when it is started now (./ws-load.ts says why).
  const { prestart, ...pool } = hashing;
  const early =
    prestart ?? (repo !== null && pool.helpers === undefined ? prestartCount(indexBytes(repo.gitDir), otherRunnableTasks()) : 0);
  const prestarted = early > 0 ? new PrestartedHelpers(early) : null;
  let listing: Awaited<ReturnType<typeof beginListing>>;
  try {
    listing = await beginListing(top, repo, scope);
  } catch (e) {
    await prestarted?.cancel();
    throw e;
  }
  // Hash every file the walk saw while git is still listing (hashJobs yields to the event loop,
  // so git's output keeps flowing). The walk's set is what git will list, minus tracked files
  // below ignored directories (typed by lstat below); a walked path git does not list (created
  // during the scan) is hashed for nothing and dropped. Listed paths are normalized and relative
  // (git and the walk never produce `.`/`..` components), so concatenation names the same file
  // as path.join.
  const walked = listing.seen;
  const jobs: HashJob[] = new Array<HashJob>(walked.paths.length);
  for (let i = 0; i < jobs.length; i++) {
    jobs[i] = { absPath: `${top}/${walked.paths[i] as string}`, kind: walked.kinds[i] as HashKind };
  }
  const stop = new AbortController();
  const candidates = listing.candidates().catch((e: unknown) => {
    stop.abort(LISTING_FAILED); // nothing hashed is needed any more
    throw e;
  });
  const hashed = hashJobs(jobs, { ...pool, signal: stop.signal, prestarted, quietFrom: candidates });
  const [listedR, hashedR] = await Promise.allSettled([candidates, hashed]);
  if (listedR.status === 'rejected' || hashedR.status === 'rejected') {
    await prestarted?.cancel(); // only those hashJobs never took over (it ends its own)
    throwFirstByPrecedence([listedR, hashedR]);
  }
  const results = hashedR.value;
  const entries: ManifestEntry[] = [];
  let parents: ParentCheck | null = null;
  for (const { path, walkIndex } of listedR.value) {
    if (walkIndex >= 0) {
      // Seen by the walk, through real directories only, and hashed from its readdir type.
      const h = results[walkIndex] as HashedEntry;
      entries.push({ path, mode: h.mode, sha256: h.sha256 });
      continue;
    }
    // A path listed by git but not seen by the walk (rare: a tracked file below an ignored
    // directory, a deleted file, a path below a directory that became a symlink).
    // A path below a symlinked directory is not in the working tree (git says "beyond a symbolic
    // link"); lstat would follow the parent link out of the tree, so such paths are skipped.
    parents ??= new ParentCheck(top);
    if (!parents.allRealDirectories(path)) continue;
    const abs = join(top, path);
    const st = lstatEntry(abs);
    // A tracked file deleted from the working tree, or a tracked path now a directory whose
    // files git lists on their own, is not itself a manifest entry.
    if (st === null || st.isDirectory()) continue;
    assertSupportedType(st);
    entries.push({ path, ...hashEntry(abs, st) });
  }
  return manifestOf(entries);
}

/** The abort reason hashing is stopped with when the listing failed (never reported itself). */
const LISTING_FAILED = Symbol('listing failed');

/**
 * Listing and hashing ran side by side; when both failed, report the one docs/commands.md#exit-codes ranks first
 * (a git failure, exit 1, before a file that changed during hashing, exit 4, before refusals with
 * exit 2). A non-governed error is an internal failure and ranks first.
 */
function throwFirstByPrecedence(results: readonly PromiseSettledResult<unknown>[]): never {
  const errors = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as unknown);
  // Hashing stopped because the listing failed: the listing's error is the one to report.
  const rank = (e: unknown): number =>
    e === LISTING_FAILED ? EXIT_PRECEDENCE.length : isGovernedError(e) ? EXIT_PRECEDENCE.indexOf(e.exit) : -1;
  errors.sort((a, b) => rank(a) - rank(b));
  throw errors[0];
}

/** Memoized check that every parent component of a path is a real directory (not a symlink). */
export class ParentCheck {
  private readonly known = new Map<string, boolean>();
  constructor(private readonly top: string) {}

  allRealDirectories(path: string): boolean {
    const slash = path.lastIndexOf('/');
    return slash < 0 || this.isRealDirectory(path.slice(0, slash));
  }

  private isRealDirectory(dir: string): boolean {
    const hit = this.known.get(dir);
    if (hit !== undefined) return hit;
    const slash = dir.lastIndexOf('/');
    let ok = slash < 0 || this.isRealDirectory(dir.slice(0, slash));
    if (ok) {
      const st = lstatEntry(join(this.top, dir));
      ok = st !== null && st.isDirectory();
    }
    this.known.set(dir, ok);
    return ok;
  }
}
