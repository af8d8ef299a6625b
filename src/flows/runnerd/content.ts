// Content as data (docs/runnerd.md "Content crosses as git objects"). The client sends the commit it
// wants reviewed as a git pack of its objects; the daemon indexes that pack into a repository of its
// OWN (its config made by `git init`, in its 0700 state directory), checks every object (fsck), that
// the named commit is there and complete, and checks it out into its own working tree. Every digest,
// bundle and drift check then reads that copy. git runs with the hardened environment of
// src/workspace/git.ts (no system/global config, no hooks, no fsmonitor, no pager, no protocol) in
// a repository whose config only the daemon writes: nothing the writer configured — .git/config,
// hooks, filters, textconv, aliases — can reach it; attributes inside the commit name drivers that
// do not exist here and are ignored.
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fail } from '../../core/errors.js';
import { COMMIT_READ_MAX_BYTES } from '../../core/limits.js';
import type { RunnerdContent } from '../../core/runnerd-protocol.js';
import { runGit, type GitRepo } from '../../workspace/git.js';

const DAEMON_GIT_ARGS = ['-c', 'gc.auto=0', '-c', 'transfer.fsckObjects=true', '-c', 'core.symlinks=true', '-c', 'core.autocrlf=false'];

export function daemonRepo(dir: string): GitRepo {
  return { gitDir: join(dir, '.git'), workTree: dir };
}

async function git(repo: GitRepo, args: readonly string[], input?: Buffer): Promise<Buffer> {
  try {
    return await runGit(repo, [...DAEMON_GIT_ARGS, ...args], input === undefined ? {} : { input });
  } catch {
    return fail('runnerd_content_invalid', []);
  }
}

/** The bytes a checkout of an `ls-tree -r -l -z` listing writes (blobs; `-` sizes are gitlinks). */
function checkoutBytes(listing: Buffer): number {
  let total = 0;
  for (const rec of listing.toString('utf8').split('\0')) {
    const m = /^[0-7]{6} blob [0-9a-f]{40,64} +([0-9]+)\t/.exec(rec);
    if (m !== null) total += Number(m[1]);
  }
  return total;
}

/**
 * Import `content` into the daemon's repository at `dir` (created if absent) and check out its
 * commit there, replacing whatever was checked out. Returns the directory.
 */
export async function importContent(dir: string, content: RunnerdContent): Promise<string> {
  const repo = daemonRepo(dir);
  if (!existsSync(repo.gitDir)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    await git(repo, ['init', '-q']);
  }
  const pack = Buffer.from(content.bundle_b64, 'base64');
  if (pack.toString('base64') !== content.bundle_b64) fail('runnerd_content_invalid', ['base64']);
  await git(repo, ['index-pack', '--stdin', '--strict'], pack);
  const type = (await git(repo, ['cat-file', '-t', content.commit])).toString('utf8').trim();
  if (type !== 'commit') fail('runnerd_content_invalid', ['commit']);
  // Complete: every object the commit reaches is present (a pack that leaves one out is refused).
  await git(repo, ['rev-list', '--objects', '--quiet', content.commit]);
  // Bounded by what the checkout would WRITE, not by the pack's size: every path's blob, a blob
  // named at many paths counted at each (a few KiB of pack can name gigabytes). Before the previous
  // checkout is removed.
  const listing = await git(repo, ['ls-tree', '-r', '-l', '-z', content.commit]);
  if (checkoutBytes(listing) > COMMIT_READ_MAX_BYTES) fail('runnerd_content_invalid', ['size']);
  // Keep it reachable for later checks, then a fresh checkout of exactly that commit.
  await git(repo, ['update-ref', `refs/governed/${content.commit}`, content.commit]);
  for (const name of readdirSync(dir)) if (name !== '.git') rmSync(join(dir, name), { recursive: true, force: true });
  await git(repo, ['checkout', '-q', '-f', '--detach', content.commit]);
  return dir;
}
