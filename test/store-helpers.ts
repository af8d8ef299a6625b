// Shared fixtures of the store tests: real state directories in temp dirs, a pinned store, and a
// raw connection for playing the attacker who edits the database file behind governed's back.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { isGovernedError } from '../src/core/errors.js';
import { initStore } from '../src/store/pins.js';
import { readProcessIdentity, type ProcessIdentity } from '../src/store/process-identity.js';
import type { Store } from '../src/store/store.js';
import { makeTempDir } from './helpers/temp.js';

export const T0 = 1_700_000_000;
export const POLICY_YAML = 'kind: governed/policy\nversion: 1\ntrust_mode: co-located\naccept_co_located: true\n';
export const TRUST_JSON = '{"version": 1, "expires": "2030-01-01T00:00:00Z", "keys": []}';
export const COMMIT = 'a'.repeat(40);
export const TREE = 'b'.repeat(40);

const dirs: string[] = [];

/** A fresh private temp directory (mkdtemp makes it 0700); removed by `cleanupDirs`. */
export function tempDir(prefix = 'governed-store-'): string {
  const d = makeTempDir(prefix);
  dirs.push(d);
  return d;
}

export function cleanupDirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** An initialised store in `<tmp>/state`. */
export function newStore(now = T0): Store {
  return initStore(join(tempDir(), 'state'), {
    policyBytes: Buffer.from(POLICY_YAML),
    trustBytes: Buffer.from(TRUST_JSON),
    now,
  });
}

/** Run `fn` and return the GovernedError code it throws (fails the test when it does not). */
export function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isGovernedError(e)) return e.code;
    throw e;
  }
  expect.fail('expected a GovernedError');
}

/** A second, raw connection to the store file: what an attacker with file access would use. */
export function rawConnection(store: Store): Database.Database {
  return new Database(store.dbPath);
}

/** A distinct, well-formed identity for writer n (real boot id, this process's start time). */
export function identityN(n: number): ProcessIdentity {
  const self = readProcessIdentity(process.pid);
  return { bootId: self.bootId, pid: 100_000 + n, startTime: self.startTime };
}
