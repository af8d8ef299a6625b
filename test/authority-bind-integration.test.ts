// The authority API as `unit bind` uses it (docs/contract.md#scope-history, docs/authority.md#human-authority-records "API"): a narrowing
// bind that defers DIR-2 needs a signed `defer` record naming exactly the narrowed IDs, from the
// current contract's digest to the approved scope. The record is requested and recorded through the
// BUILT CLI, signed on a real pty; the bind side runs the published functions in one transaction.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { contractDigest } from '../src/core/contract/digests.js';
import { diffScope, requireAuthorityForNarrowing } from '../src/core/contract/scope-diff.js';
import { validateContract } from '../src/core/contract/validate.js';
import type { Contract } from '../src/core/contract/schema.js';
import { closeStore, createUnit, getAuthorityRecord, initStore, mutate, openStore, tablesDigest } from '../src/store/index.js';
import { authorityScopeDigest, consumeNarrowingAuthorityIn, tombstoneAuthorityValidator } from '../src/flows/authority/consume.js';
import { CLI, jsonOut, REPO_ROOT, runCli } from './helpers/cli.js';
import { deferralExample } from './contract-fixtures.js';
import { bytesOf, cleanupDirs, codeOf, COMMIT, policyDoc, TREE, world } from './authority-helpers.js';

afterEach(cleanupDirs);

const PTY = join(REPO_ROOT, 'test', 'fixtures', 'authority', 'pty-answer.py');

function withRecord(c: Contract, record: string): Contract {
  return { ...c, authorities: c.authorities.map((a) => ({ ...a, record })) };
}

describe('a narrowing bind consumes a defer record', () => {
  it('request (CLI) → sign (pty) → record (CLI) → consume + validate tombstone in one transaction', () => {
    const w = world();
    const home = join(w.dir, 'state');
    const now = Math.floor(Date.now() / 1000);
    const store0 = initStore(home, { policyBytes: bytesOf(policyDoc()), trustBytes: bytesOf(w.trust), now });
    const { unitId } = createUnit(store0, { baselineCommit: COMMIT, baselineTree: TREE, now });
    closeStore(store0);

    const previous = deferralExample(false).contract;
    const proposed = deferralExample(true).contract; // cites a placeholder record id for now
    const diff = diffScope(previous, proposed);
    expect(diff.narrowing.length).toBeGreaterThan(0);
    const contractFile = join(w.dir, 'next.json');
    writeFileSync(contractFile, JSON.stringify(proposed));

    const presentation = join(w.dir, 'defer.json');
    const req = runCli(
      ['authority', 'request', '--operation', 'defer', '--unit', unitId, '--ids', diff.narrowing.join(','), '--state-before', contractDigest(previous), '--contract', contractFile, '--out', presentation, '--home', home, '--json'],
      { cwd: w.dir },
    );
    expect(req.code, req.stderr).toBe(0);
    expect(jsonOut(req).state_after).toBe(authorityScopeDigest(proposed));

    const recordFile = join(w.dir, 'defer.signed.json');
    const signed = spawnSync('python3', [PTY, 'confirm', '--', process.execPath, CLI, 'authority', 'sign', '--request', presentation, '--key', w.human.privateKeyPath, '--out', recordFile], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' },
      timeout: 30_000,
    });
    const pty = JSON.parse(signed.stdout) as { code: number; tty: string };
    expect(pty.code).toBe(0);
    for (const id of diff.narrowing) expect(pty.tty).toContain(id); // the human saw every narrowed ID
    const rec = runCli(['authority', 'record', '--record', recordFile, '--home', home, '--json'], { cwd: w.dir });
    expect(rec.code, rec.stderr).toBe(0);
    const recordId = String(jsonOut(rec).record_id);

    // The contract now cites the real record; its authority scope digest is unchanged by that.
    const next = withRecord(proposed, recordId);
    expect(authorityScopeDigest(next)).toBe(authorityScopeDigest(proposed));
    const facts = deferralExample(true).facts;

    const store = openStore(home);
    try {
      // Before consumption the tombstone's authority is not valid (never judged yet).
      expect(codeOf(() => validateContract(next, { ...facts, isValidAuthority: tombstoneAuthorityValidator(store, unitId) }))).toBe(
        'contract_tombstone_authority_invalid',
      );
      const bind = (contract: Contract) =>
        mutate(store, now + 1, (tx) => {
          const info = getAuthorityRecord(tx.db, recordId);
          requireAuthorityForNarrowing(diff, info?.ids ?? null);
          const consumed = consumeNarrowingAuthorityIn(tx, { recordId, unit: unitId, previous, next: contract, narrowing: diff.narrowing });
          validateContract(contract, { ...facts, isValidAuthority: tombstoneAuthorityValidator(tx.db, unitId) });
          return consumed;
        });
      // A bind of a different scope than the one approved is refused, and the record stays unused.
      const before = tablesDigest(store);
      const edited = withRecord({ ...proposed, title: 'Export receipts (edited after approval)' }, recordId);
      expect(codeOf(() => bind(edited))).toBe('authority_state_mismatch');
      expect(tablesDigest(store)).toBe(before);

      const consumed = bind(next);
      expect(consumed).toMatchObject({ recordId, operation: 'defer', unit: unitId });
      // Later binds carry it as history: the tombstone stays valid without re-judging.
      expect(() => validateContract(next, { ...facts, isValidAuthority: tombstoneAuthorityValidator(store, unitId) })).not.toThrow();
      // And it cannot narrow anything a second time.
      expect(codeOf(() => bind(next))).toBe('authority_replayed');
      // It authorises disposing only what it names (red-team finding: a later tombstone for another
      // directive could cite this consumed defer record and pass): the deferred directive yes,
      // anything else no.
      const valid = tombstoneAuthorityValidator(store, unitId);
      const tombstone = next.tombstones.find((t) => t.authority === next.authorities[0]?.id);
      expect(tombstone?.directive).toBeDefined();
      expect(diff.narrowing).toContain(tombstone?.directive);
      expect(valid(recordId, 'defer', [tombstone?.directive as string])).toBe(true);
      expect(valid(recordId, 'defer', ['DIR-99'])).toBe(false);
      expect(valid(recordId, 'defer', [tombstone?.directive as string, 'DIR-99'])).toBe(false);
    } finally {
      closeStore(store);
    }
  });
});
