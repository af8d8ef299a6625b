// Whether a state directory inside a git repository is ignored by it (init's warning, docs/state.md
// "init"). With the default home `./.governed` in the repository, `git add -A` commits the store
// unless .gitignore covers it; the gate then refuses such a subject (gate_subject_tracks_excluded).
// Hardened git as everywhere (./git.ts): the repository's own ignore rules count (.gitignore files,
// .git/info/exclude); the user's global excludes file does not, so the answer may be "not ignored"
// where a user's own `git add` would skip the directory — a warning too many, never one too few.
import { relative } from 'node:path';
import { findEnclosingRepository, runGit, splitNul } from './git.js';

export type HomeInGit = 'outside' | 'ignored' | 'not_ignored';

/** `home` must exist (ls-files lists what is on disk). */
export async function homeInGit(home: string): Promise<HomeInGit> {
  const repo = findEnclosingRepository(home);
  if (repo === null) return 'outside';
  const rel = relative(repo.workTree, home);
  if (rel === '') return 'not_ignored';
  const out = await runGit(repo, ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory', '--', rel], { maxBytes: 1024 * 1024 });
  // `--directory` names a wholly ignored directory once, with a trailing slash.
  return splitNul(out).some((r) => r.toString('utf8') === `${rel}/`) ? 'ignored' : 'not_ignored';
}
