// Reading the repository from the orchestrator's side (host), read-only:
//   - the review scope: `--files` (validated) or, by default, the workspace file set of docs/contract.md#workspace-digest
//     (what git tracks or would track; every regular file outside a repository);
//   - the current text of files that findings and known issues name (docs/review-pass-protocol.md#known-issues suppress
//     hashes, the weave/simple lead's bounded checks). A reviewer-supplied path is confined to the
//     repository: normalized, no `..`, real path inside the repository, a regular UTF-8 file under a
//     size cap; anything else reads as null ("deleted or unreadable"), never as an error of the run.
import { closeSync, fstatSync, openSync, readSync, realpathSync, statSync, constants } from 'node:fs';
import { join } from 'node:path';
import { SANDBOX_REPO } from '../../../runner/repo-sandbox.js';
import { fail } from '../../core/errors.js';
import { utf8OrNull } from '../../core/utf8.js';
import { computeWorkspaceManifest } from '../../workspace/index.js';

import { REVIEW_PASS_FILE_MAX_BYTES as MAX_FILE_BYTES } from '../../core/limits.js';
/** Cap on the default scope listed in prompts (a prompt is not the place for a whole monorepo). */
import { REVIEW_PASS_SCOPE_MAX_FILES as MAX_SCOPE_FILES } from '../../core/limits.js';

/** A normalized repository-relative path: no empty, `.` or `..` component, no NUL or backslash. */
export function isRepoRelative(p: string): boolean {
  if (p.length === 0 || p.length > REPO_PATH_MAX_CHARS || p.includes('\0') || p.includes('\\') || p.startsWith('/')) return false;
  return p.split('/').every((c) => c !== '' && c !== '.' && c !== '..');
}


/** The UTF-8 text of a repository file, or null (outside the repository, not a regular file, too large, not UTF-8). */
export function readRepoText(repoDir: string, rel: string): string | null {
  // Reviewers inside the sandbox may name files by their sandbox path (/repo/src/a.ts).
  let p = rel.startsWith(`${SANDBOX_REPO}/`) ? rel.slice(SANDBOX_REPO.length + 1) : rel;
  while (p.startsWith('./')) p = p.slice(2);
  if (!isRepoRelative(p)) return null;
  let real: string;
  let root: string;
  try {
    root = realpathSync(repoDir);
    real = realpathSync(join(repoDir, p));
  } catch {
    return null;
  }
  if (!real.startsWith(`${root}/`)) return null;
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_FILE_BYTES) return null;
    const buf = Buffer.alloc(st.size);
    let off = 0;
    while (off < st.size) {
      const n = readSync(fd, buf, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    return utf8OrNull(buf.subarray(0, off));
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** A repository-relative path naming a regular file whose real path stays inside the repository. */
export function isRepoFile(repoDir: string, rel: string): boolean {
  if (!isRepoRelative(rel)) return false;
  try {
    const root = realpathSync(repoDir);
    const real = realpathSync(join(repoDir, rel));
    return real.startsWith(`${root}/`) && statSync(real).isFile();
  } catch {
    return false;
  }
}

/** Total text read for one round: reviewer-named files must not exhaust memory. */
import { REVIEW_PASS_ROUND_MAX_BYTES as MAX_TOTAL_BYTES } from '../../core/limits.js';
import { REPO_PATH_MAX_CHARS } from '../../core/limits.js';

/** Texts of the named files (null for unreadable ones, and beyond the total budget), keyed by the name as given. */
export function readRepoTexts(repoDir: string, names: Iterable<string>, budget = MAX_TOTAL_BYTES): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  let used = 0;
  for (const n of new Set(names)) {
    const text = used >= budget ? null : readRepoText(repoDir, n);
    if (text !== null) used += text.length;
    out[n] = text !== null && used > budget ? null : text;
  }
  return out;
}

/** `--files`: each must be a repository-relative regular file inside the repository. */
export function validateFiles(repoDir: string, files: readonly string[]): string[] {
  const out: string[] = [];
  files.forEach((f, i) => {
    if (!isRepoFile(repoDir, f)) fail('orchestrator_files_invalid', [`files[${i}]`]);
    out.push(f);
  });
  return [...new Set(out)];
}

/** The default scope: the workspace file set (docs/contract.md#workspace-digest), capped for prompts. */
export async function defaultScope(repoDir: string): Promise<{ files: string[]; truncated: boolean }> {
  const manifest = await computeWorkspaceManifest(repoDir, { productRoots: ['.'], exclude: ['.governed'] });
  const all = manifest.entries.map((e) => e.path);
  return { files: all.slice(0, MAX_SCOPE_FILES), truncated: all.length > MAX_SCOPE_FILES };
}
