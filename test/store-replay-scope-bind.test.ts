// Replay recomputes what the live `unit create` / `unit bind` derive from the contract bytes
// (docs/audit.md "Replay builds only what the live path could have built"; docs/state.md#the-store, docs/contract.md#scope-history): the
// contract digest, the sources digest and list, and the diff / scope_changed from the previous bound
// contract. Each test rewrites ONE scope_bind entry consistently (payload digest and every later hash
// recomputed, the tables patched to what the rewritten log replays to): before the fix chain and
// replay held and `audit verify` exited 0; now replay refuses `log_entry_not_applicable` (exit 4),
// and the audit leaves the store unchanged.
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalJson, sha256Digest } from '../src/core/canonical.js';
import { contractDigest } from '../src/core/contract/digests.js';
import { sourcesDigest, type SourceDigest } from '../src/core/bundle/sources-digest.js';
import { type Contract } from '../src/core/contract/schema.js';
import { parseContractText } from '../src/core/contract/text.js';
import { auditVerify } from '../src/flows/audit/verify.js';
import { mutate } from '../src/store/log.js';
import { closeStore } from '../src/store/open.js';
import { assertReplayMatches, replayInto } from '../src/store/replay.js';
import { bindScopeIn, getScopeVersion } from '../src/store/scope.js';
import { tablesDigest } from '../src/store/state-digest.js';
import type { Store } from '../src/store/store.js';
import { createUnitIn } from '../src/store/units.js';
import { contractBytes, forgeEntry, lastSeqOf, newReviewStore, scopeArgs } from './helpers/replay-fixtures.js';
import { cleanupDirs, codeOf, COMMIT, T0, tempDir, TREE } from './store-helpers.js';

afterEach(cleanupDirs);

const NO_DIFF = { additions: [], narrowing: [], progress: [] };
const digestOfBytes = (b: Buffer): string => contractDigest(parseContractText(b.toString('utf8'), ''));

/** DIR-2 loses its target TGT-2: a narrowing (docs/contract.md#scope-history), which needs signed authority. */
const narrowed = (c: Contract): void => {
  const d2 = c.directives.find((d) => d.id === 'DIR-2') as { targets: { id: string; paths: string[] }[] };
  (d2.targets[0] as { paths: string[] }).paths = ['src/other.ts'];
};

/** v1, then a live v2 that only adds EVD-2. */
function boundUnit(store: Store): string {
  return mutate(store, T0 + 1, (tx) => {
    const { unitId } = createUnitIn(tx, { baselineCommit: COMMIT, baselineTree: TREE });
    bindScopeIn(tx, scopeArgs(unitId, contractBytes(), null));
    bindScopeIn(tx, scopeArgs(unitId, contractBytes({ extraEvidence: 1 }), { additions: ['EVD-2'], narrowing: [], progress: [] }));
    return unitId;
  });
}

/** Patch scope_versions row `version` of `unit` to the rewritten payload's columns. */
function patchRow(unit: string, version: number, cols: Record<string, unknown>): (db: Database.Database) => void {
  return (db) => {
    const sets = Object.keys(cols).map((k) => `${k} = @${k}`).join(', ');
    db.prepare(`UPDATE scope_versions SET ${sets} WHERE unit = @unit AND version = @version`).run({ ...cols, unit, version });
  };
}

async function refused(store: Store): Promise<void> {
  expect(codeOf(() => replayInto(store, join(tempDir(), 'r.db')))).toBe('log_entry_not_applicable');
  const home = join(store.dbPath, '..');
  const before = tablesDigest(store);
  const report = await auditVerify(home);
  expect(tablesDigest(store)).toBe(before);
  expect({ exit: report.exit, codes: report.failures.map((f) => f.code) }).toEqual({ exit: 4, codes: ['log_entry_not_applicable'] });
}

describe('scope_bind: the diff is recomputed from the bound bytes', () => {
  it('an honest history (create, addition, progress, the same contract again, a second addition) replays exactly', () => {
    const store = newReviewStore();
    try {
      const unit = boundUnit(store);
      mutate(store, T0 + 2, (tx) => bindScopeIn(tx, scopeArgs(unit, contractBytes({ extraEvidence: 1, done: ['DIR-1'] }), { ...NO_DIFF, progress: ['DIR-1'] }, false)));
      mutate(store, T0 + 3, (tx) => bindScopeIn(tx, scopeArgs(unit, contractBytes({ extraEvidence: 1, done: ['DIR-1'] }), NO_DIFF, false)));
      mutate(store, T0 + 4, (tx) => bindScopeIn(tx, scopeArgs(unit, contractBytes({ extraEvidence: 2, done: ['DIR-1'] }), { ...NO_DIFF, additions: ['EVD-3'] })));
      expect(getScopeVersion(store, unit).version).toBe(5);
      expect(() => assertReplayMatches(store, join(tempDir(), 'r.db'))).not.toThrow();
    } finally {
      closeStore(store);
    }
  });

  it('a narrowing recorded as no narrowing (the narrowed contract bound with an empty diff) is refused', async () => {
    const store = newReviewStore();
    try {
      const unit = boundUnit(store);
      const bytes = contractBytes({ extraEvidence: 1, edit: narrowed });
      const cols = { contract_bytes: bytes, contract_file_digest: sha256Digest(bytes), contract_digest: digestOfBytes(bytes), diff: canonicalJson(NO_DIFF) };
      forgeEntry(
        store,
        lastSeqOf(store, 'scope_bind'),
        (p) => {
          p.contract_b64 = bytes.toString('base64');
          p.contract_file_digest = cols.contract_file_digest;
          p.contract_digest = cols.contract_digest;
          p.diff = NO_DIFF;
          p.scope_changed = true;
        },
        patchRow(unit, 2, cols),
      );
      await refused(store);
    } finally {
      closeStore(store);
    }
  });

  it('additions that the bytes do not have (the recorded diff is not diffScope of the two contracts) are refused', async () => {
    const store = newReviewStore();
    try {
      const unit = boundUnit(store);
      const diff = { additions: ['EVD-2', 'EVD-9'], narrowing: [], progress: [] };
      forgeEntry(store, lastSeqOf(store, 'scope_bind'), (p) => (p.diff = diff), patchRow(unit, 2, { diff: canonicalJson(diff) }));
      await refused(store);
    } finally {
      closeStore(store);
    }
  });

  it('an addition recorded as "scope unchanged" (scope_epoch not moved) is refused', async () => {
    const store = newReviewStore();
    try {
      const unit = boundUnit(store);
      forgeEntry(
        store,
        lastSeqOf(store, 'scope_bind'),
        (p) => {
          p.scope_changed = false;
          p.scope_epoch = 1;
          p.diff = NO_DIFF;
        },
        (db) => {
          patchRow(unit, 2, { scope_changed: 0, scope_epoch: 1, diff: canonicalJson(NO_DIFF) })(db);
          db.prepare('UPDATE units SET scope_epoch = 1 WHERE id = ?').run(unit);
        },
      );
      await refused(store);
    } finally {
      closeStore(store);
    }
  });

  it('a bind that drops a directive (diffScope refuses it live: never bound) is refused', async () => {
    const store = newReviewStore();
    try {
      const unit = boundUnit(store);
      const bytes = contractBytes({ extraEvidence: 1, edit: (c) => void c.directives.pop() });
      forgeEntry(
        store,
        lastSeqOf(store, 'scope_bind'),
        (p) => {
          p.contract_b64 = bytes.toString('base64');
          p.contract_file_digest = sha256Digest(bytes);
          p.contract_digest = digestOfBytes(bytes);
        },
        patchRow(unit, 2, { contract_bytes: bytes, contract_file_digest: sha256Digest(bytes), contract_digest: digestOfBytes(bytes) }),
      );
      await refused(store);
    } finally {
      closeStore(store);
    }
  });
});

describe('scope_bind: the digests are recomputed from the bound bytes', () => {
  it('a contract_digest that is not contractDigest of the bytes (here: another contract’s) is refused', async () => {
    const store = newReviewStore();
    try {
      const unit = boundUnit(store);
      const other = digestOfBytes(contractBytes({ extraEvidence: 5 }));
      forgeEntry(store, lastSeqOf(store, 'scope_bind'), (p) => (p.contract_digest = other), patchRow(unit, 2, { contract_digest: other }));
      await refused(store);
    } finally {
      closeStore(store);
    }
  });

  it('version 1 binding bytes that are no contract (with their real file digest) is refused', async () => {
    const store = newReviewStore();
    try {
      const unit = boundUnit(store);
      const bytes = Buffer.from('{"kind":"governed/request-contract"}');
      forgeEntry(
        store,
        lastSeqOf(store, 'scope_bind') - 1,
        (p) => {
          p.contract_b64 = bytes.toString('base64');
          p.contract_file_digest = sha256Digest(bytes);
        },
        patchRow(unit, 1, { contract_bytes: bytes, contract_file_digest: sha256Digest(bytes) }),
      );
      await refused(store);
    } finally {
      closeStore(store);
    }
  });

  it('a sources_digest that is not the digest of the recorded sources, or sources that are not the contract’s, is refused', async () => {
    for (const change of [
      (p: Record<string, unknown>) => (p.sources_digest = `sha256:${'3'.repeat(64)}`),
      (p: Record<string, unknown>) => {
        // A consistent list and digest, but not the contract's source path.
        const sources = p.sources as SourceDigest[];
        (sources[0] as { path: string }).path = 'requests/other.md';
        p.sources_digest = sourcesDigest(sources);
      },
    ]) {
      const store = newReviewStore();
      try {
        boundUnit(store);
        forgeEntry(store, lastSeqOf(store, 'scope_bind'), change);
        expect(codeOf(() => replayInto(store, join(tempDir(), 'r.db')))).toBe('log_entry_not_applicable');
      } finally {
        closeStore(store);
      }
    }
  });
});
