// `status` on a unit whose baseline commit git no longer has (pruned) fails with the code issuance gives (workspace_revision_unresolved, 2) instead of a reasonless REVIEW_ONLY.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupDirs, errorOf, gov, govOk, makeWorld, storeDigest, type World } from './state-helpers.js';

afterEach(cleanupDirs);

/** A unit created on a commit of a side branch; returns the unit id and a function pruning that commit. */
function unitOnSideCommit(w: World): { unit: string; prune: () => void } {
  govOk(w, ['init', '--policy', w.policyFile, '--trust', w.trustFile]);
  w.repo.git('checkout', '-q', '-b', 'side');
  w.repo.write('side.txt', 'side\n');
  const commit = w.repo.commitAll('side');
  w.repo.git('checkout', '-q', '-');
  const unit = govOk(w, ['unit', 'create', '--contract', w.contractFile, '--baseline', commit]).unit as string;
  govOk(w, ['writer', 'register', '--unit', unit, '--writer-session', 's1']);
  return {
    unit,
    prune: () => {
      w.repo.git('branch', '-q', '-D', 'side');
      w.repo.git('reflog', 'expire', '--expire=now', '--all');
      w.repo.git('gc', '-q', '--prune=now');
    },
  };
}

describe('status with a pruned baseline', () => {
  it('positive control: before the prune, status reports a state', () => {
    const w = makeWorld();
    const { unit } = unitOnSideCommit(w);
    const r = gov(w, ['status', '--unit', unit, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ command: 'status', state: 'REVIEW_ONLY' });
  });
  it('after the prune: the same code as review-challenge, exit 2, store unchanged', () => {
    const w = makeWorld();
    const { unit, prune } = unitOnSideCommit(w);
    prune();
    const issue = gov(w, ['review-challenge', '--unit', unit, '--writer-session', 's1', '--stage', 'development', '--slot', 'coverage', '--json']);
    const issued = errorOf(issue);
    expect({ code: issued.code, exit: issue.code }).toEqual({ code: 'workspace_revision_unresolved', exit: 2 });
    const before = storeDigest(w);
    const r = gov(w, ['status', '--unit', unit, '--json']);
    expect({ code: errorOf(r).code, exit: r.code, ids: errorOf(r).ids }).toEqual({ code: issued.code, exit: 2, ids: issued.ids });
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(storeDigest(w)).toBe(before);
  });
});
