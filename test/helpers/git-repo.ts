// Real git repositories in temp directories for tests (house rule: real git, no mocks). The
// helper's own git runs isolated from the developer's config (no system/global config, fixed
// identity and dates) so fixtures are reproducible; tests then add hostile repository config on
// purpose to prove the product ignores it.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { makeTempDir } from './temp.js';

export const GIT = '/usr/bin/git';

const HELPER_ENV: Record<string, string> = {
  PATH: '/usr/bin:/bin',
  HOME: '/nonexistent/test-git-home',
  LC_ALL: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.invalid',
  GIT_COMMITTER_NAME: 'Test Committer',
  GIT_COMMITTER_EMAIL: 'committer@example.invalid',
  GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z',
};

export interface TempRepo {
  /** Absolute path of the working tree (the repository top level). */
  readonly root: string;
  /** Run git in the repo (isolated env); returns trimmed stdout. */
  git(...args: string[]): string;
  /** Write a file (parents created); `mode` e.g. 0o755. */
  write(rel: string, content: string | Buffer, mode?: number): string;
  symlink(rel: string, target: string): void;
  /** `git add -A` + commit; returns the new commit id. */
  commitAll(message?: string): string;
  cleanup(): void;
}

/** A temp directory, optionally `git init`-ed (`init: false` gives a plain directory). */
export function makeTempRepo(options: { init?: boolean; prefix?: string } = {}): TempRepo {
  const root = makeTempDir(options.prefix ?? 'governed-ws-');
  const git = (...args: string[]): string =>
    execFileSync(GIT, args, { cwd: root, env: HELPER_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  if (options.init !== false) git('init', '-q', '-b', 'main');
  const write = (rel: string, content: string | Buffer, mode = 0o644): string => {
    const abs = join(root, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
    chmodSync(abs, mode);
    return abs;
  };
  return {
    root,
    git,
    write,
    symlink: (rel, target) => {
      mkdirSync(dirname(join(root, rel)), { recursive: true });
      symlinkSync(target, join(root, rel));
    },
    commitAll: (message = 'commit') => {
      git('add', '-A');
      git('commit', '-q', '--allow-empty', '-m', message);
      return git('rev-parse', 'HEAD');
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
