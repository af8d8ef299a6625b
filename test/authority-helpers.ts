// Shared fixtures of the authority tests: real Ed25519 keys (governed's keygen), real trust roots,
// a valid policy, real stores, and signing with node:crypto exactly as `authority sign` does (the
// CLI tests drive the real `authority sign` through a pty; store tests sign directly so they can
// forge the odd cases: wrong key, wrong role, edited bytes, two signatures).
import { sign as nodeSign } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { canonicalJson } from '../src/core/canonical.js';
import { encodeEnvelope, IN_TOTO_PAYLOAD_TYPE, pae } from '../src/core/dsse.js';
import { isGovernedError } from '../src/core/errors.js';
import type { KeyRole } from '../src/core/trust-root.js';
import { initStore } from '../src/store/pins.js';
import { tablesDigest } from '../src/store/state-digest.js';
import type { Store } from '../src/store/store.js';
import { makeKey, trustRootDoc, type TestKey } from './helpers/receipts.js';
import { makeTempDir } from './helpers/temp.js';

export const T0 = 1_700_000_000;
export const COMMIT = 'a'.repeat(40);
export const TREE = 'b'.repeat(40);
const H = (c: string): string => c.repeat(64);

const dirs: string[] = [];
export function tempDir(prefix = 'governed-authority-'): string {
  const d = makeTempDir(prefix);
  dirs.push(d);
  return d;
}
export function cleanupDirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

const cred = (c: string): Record<string, unknown> => ({ key_id: H(c), attestor_sha256: [H('e')], attestor_config_sha256: [H('f')] });

/** A policy that passes loadPolicy (docs/policy.md#policy-and-trust-root). `note` changes its digest without changing its meaning. */
export function policyDoc(note = 'preservation arrives with a later issue'): Record<string, unknown> {
  return {
    kind: 'governed/policy',
    version: 1,
    trust_mode: 'co-located',
    accept_co_located: true,
    challenge_ttl: '10m',
    max_runs_per_content: 12,
    product_roots: ['.'],
    exclude: ['.governed'],
    preservation: { waived: note },
    stages: { development: { required: true, streak: 2, slots: { coverage: 'coverage' } } },
    reviewers: { coverage: { sha256: H('1'), interpreter: '/usr/bin/node', env: {} } },
    sandbox: {
      bwrap_sha256: [H('2')],
      profile_sha256: [H('3')],
      seccomp_sha256: [H('4')],
      uid: 64500,
      timeout: '120s',
      memory: '2GiB',
      max_output: '1MiB',
      max_bundle: '64MiB',
    },
    credentials: { reviewer: cred('5'), runner: cred('6'), gate: cred('7'), log: cred('8') },
    controls: ['deploy_gate'],
  };
}

export interface World {
  readonly dir: string;
  /** In the trust root with role authority. */
  readonly human: TestKey;
  /** A second authority key (role authority), e.g. the one that signs a trust update. */
  readonly human2: TestKey;
  /** In the trust root, but only with role reviewer. */
  readonly reviewer: TestKey;
  /** Not in any trust root. */
  readonly outsider: TestKey;
  readonly trust: Record<string, unknown>;
}

export function world(): World {
  const dir = tempDir();
  const keys = join(dir, 'keys');
  const human = makeKey(keys, 'authority');
  const human2 = makeKey(keys, 'authority2');
  const reviewer = makeKey(keys, 'reviewer');
  const outsider = makeKey(keys, 'outsider');
  const trust = trustRootDoc([
    { key: human, roles: ['authority'] },
    { key: human2, roles: ['authority'] },
    { key: reviewer, roles: ['reviewer'] },
  ]);
  return { dir, human, human2, reviewer, outsider, trust };
}

export function trustWith(specs: readonly { key: TestKey; roles: readonly KeyRole[]; revoked_at?: string; not_after?: string }[], expires?: string): Record<string, unknown> {
  return trustRootDoc(specs, expires);
}

export function bytesOf(doc: unknown): Buffer {
  return Buffer.from(JSON.stringify(doc, null, 2), 'utf8');
}

/** An initialised store in `<tmp>/state` pinning `policyDoc()` and `trust`. */
export function newStore(trust: unknown, now = T0, policy: unknown = policyDoc()): Store {
  return initStore(join(tempDir(), 'state'), { policyBytes: bytesOf(policy), trustBytes: bytesOf(trust), now });
}

/** Sign payload bytes as a DSSE envelope (what `authority sign` writes). */
export function signPayload(payload: Uint8Array, signers: readonly TestKey[]): Buffer {
  const m = pae(IN_TOTO_PAYLOAD_TYPE, payload);
  const sigs = signers.map((k) => ({ keyid: k.keyId, sig: nodeSign(null, m, k.privateKey) }));
  return Buffer.from(`${JSON.stringify(encodeEnvelope(IN_TOTO_PAYLOAD_TYPE, payload, sigs))}\n`);
}

export function payloadOf(statement: unknown): Buffer {
  return Buffer.from(canonicalJson(statement), 'utf8');
}

/** The GovernedError code `fn` throws (fails the test when it does not throw one). */
export function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isGovernedError(e)) return e.code;
    throw e;
  }
  return expect.fail('expected a GovernedError') as never;
}

/** Run a refused operation and assert its code AND that the store did not change at all. */
export function expectRefusedUnchanged(store: Store, code: string, fn: () => unknown): void {
  const before = tablesDigest(store);
  expect(codeOf(fn)).toBe(code);
  expect(tablesDigest(store)).toBe(before);
}
