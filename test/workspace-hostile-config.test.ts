// docs/contract.md#workspace-digest: repository-configured programs never run. Each attack is first shown to be live with
// plain git (so these tests can fail), then every workspace operation runs and no marker appears.
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  changedPaths,
  computeCommitManifest,
  computeWorkspaceManifest,
  readCommitFiles,
  resolveBaseline,
  workspaceStatus,
} from '../src/workspace/index.js';
import { makeTempRepo, type TempRepo } from './helpers/git-repo.js';

const ALL = { productRoots: ['.'], exclude: ['.governed'] };
let r: TempRepo;
let markers: string;
let baseline: string;

const script = (name: string): string => {
  const path = join(markers, `${name}.sh`);
  writeFileSync(path, `#!/bin/sh\necho ran >> '${join(markers, `${name}.ran`)}'\ncat >/dev/null 2>&1\nexit 0\n`, { mode: 0o755 });
  return path;
};
const ran = (): string[] => readdirSync(markers).filter((f) => f.endsWith('.ran')).sort();
const clearMarkers = (): void => {
  for (const f of ran()) rmSync(join(markers, f));
};

beforeAll(() => {
  r = makeTempRepo();
  markers = join(r.root, '.governed'); // excluded from the manifest, so markers do not change it
  r.write('.governed/.keep', '');
  r.write('src/a.ts', 'export const a = 1;\n');
  r.write('.gitattributes', '* filter=evil diff=evil\n');
  baseline = r.commitAll('baseline');
  // Hostile repository configuration, installed after the baseline commit.
  r.git('config', 'core.fsmonitor', script('fsmonitor'));
  r.git('config', 'filter.evil.clean', script('clean'));
  r.git('config', 'filter.evil.smudge', script('smudge'));
  r.git('config', 'diff.evil.textconv', script('textconv'));
  r.git('config', 'diff.external', script('external'));
  r.git('config', 'core.pager', script('pager'));
  r.git('config', 'core.sshCommand', script('ssh'));
  r.git('config', 'core.alternateRefsCommand', script('altrefs'));
  for (const hook of ['pre-commit', 'post-checkout', 'post-index-change', 'reference-transaction']) {
    script(hook);
    writeFileSync(join(r.root, '.git/hooks', hook), `#!/bin/sh\nexec '${join(markers, `${hook}.sh`)}'\n`, { mode: 0o755 });
  }
  r.write('src/a.ts', 'export const a = 2;\n');
  r.write('src/new.ts', 'untracked\n');
});
afterAll(() => r.cleanup());

describe('hostile repository configuration', () => {
  it('is live: plain git runs the fsmonitor, filters, diff drivers and hooks', () => {
    clearMarkers();
    r.git('status', '--porcelain');
    r.git('diff');
    r.git('diff', '--textconv', '--no-ext-diff', 'HEAD');
    r.git('add', 'src/a.ts');
    r.git('commit', '-q', '-m', 'probe');
    r.git('reset', '-q', '--soft', 'HEAD~1');
    expect(ran()).toEqual(
      expect.arrayContaining(['clean.ran', 'external.ran', 'fsmonitor.ran', 'pre-commit.ran', 'textconv.ran']),
    );
    clearMarkers();
  });

  it('runs none of them during any workspace operation', async () => {
    clearMarkers();
    const ops: Array<[string, () => Promise<unknown>]> = [
      ['computeWorkspaceManifest', () => computeWorkspaceManifest(r.root, ALL)],
      ['computeCommitManifest', () => computeCommitManifest(r.root, baseline, ALL)],
      ['resolveBaseline', () => resolveBaseline(r.root, 'HEAD')],
      ['readCommitFiles', () => readCommitFiles(r.root, baseline, ['src/a.ts', '.gitattributes'])],
      ['changedPaths', () => changedPaths(r.root, baseline, ALL)],
      ['workspaceStatus', () => workspaceStatus(r.root, ALL, join(markers, 'cache.json'))],
    ];
    for (const [name, op] of ops) {
      await op();
      expect({ name, ran: ran() }).toEqual({ name, ran: [] });
    }
  });

  it('hashes raw bytes: no clean/smudge filter shaped what was hashed', async () => {
    const files = await readCommitFiles(r.root, baseline, ['src/a.ts']);
    expect(files.get('src/a.ts')?.toString()).toBe('export const a = 1;\n');
    const changes = await changedPaths(r.root, baseline, ALL);
    expect(changes.map((c) => c.path)).toEqual(['src/a.ts', 'src/new.ts']);
    expect(existsSync(join(markers, 'clean.ran'))).toBe(false);
  });
});
