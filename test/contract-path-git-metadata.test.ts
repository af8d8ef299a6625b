// A contract path inside git's own metadata (`.git/config`, any letter case, at any depth) is refused when the unit is created, by the one rule issuance also applies.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isGitMetadataPath } from '../src/core/contract/paths.js';
import { cleanupDirs, contractDoc, expectRefused, gov, govOk, makeWorld, writeJsonFile } from './state-helpers.js';

afterEach(cleanupDirs);

describe('isGitMetadataPath (pure)', () => {
  it('names every path with a .git segment, in any case, and nothing else', () => {
    for (const p of ['.git', '.git/config', '.GIT/HEAD', '.Git/hooks/pre-commit', 'sub/.git/config', 'a/b/.gIt']) expect(isGitMetadataPath(p), p).toBe(true);
    for (const p of ['.gitignore', '.github/workflows/ci.yml', 'a.git/x', 'x/.gitmodules', 'src/git/config', '.git-blame-ignore-revs']) {
      expect(isGitMetadataPath(p), p).toBe(false);
    }
  });
});

describe('unit create refuses contract paths under .git', () => {
  for (const path of ['.git/config', '.GIT/config', 'src/.git/HEAD']) {
    it(`${path}: contract_path_git_metadata (2), naming the field, store unchanged`, () => {
      const w = makeWorld();
      govOk(w, ['init', '--policy', w.policyFile, '--trust', w.trustFile]);
      const file = writeJsonFile(join(w.dir, 'git-path.json'), contractDoc({ extraImplPaths: [path] }));
      const { ids } = expectRefused(w, ['unit', 'create', '--contract', file, '--baseline', 'HEAD'], 'contract_path_git_metadata', 2);
      expect(ids).toEqual(['$.implementations[0].paths[1]']);
    });
  }
  it('positive control: look-alike paths (.gitignore, .github/…) are accepted', () => {
    const w = makeWorld();
    govOk(w, ['init', '--policy', w.policyFile, '--trust', w.trustFile]);
    const file = writeJsonFile(join(w.dir, 'ok.json'), contractDoc({ extraImplPaths: ['.gitignore', '.github/ci.yml'] }));
    const r = gov(w, ['unit', 'create', '--contract', file, '--baseline', 'HEAD', '--json']);
    expect(r.code, r.stdout).toBe(0);
  });
});
