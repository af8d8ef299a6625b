// `governed init` (docs/commands.md#what-each-command-guarantees, docs/state.md#the-store, docs/policy.md#policy-and-trust-root; docs/state.md#init) through the built CLI, and the shipped
// example policies and trust root (docs/policy.md#policy).
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadPolicy } from '../src/core/policy.js';
import { loadTrustRoot } from '../src/core/trust-root.js';
import { parseStructured } from '../src/core/strict-parse.js';
import { pinDigestOf } from '../src/store/pins.js';
import { REPO_ROOT, runCli } from './helpers/cli.js';
import {
  cleanupDirs,
  errorOf,
  expectRefused,
  gov,
  govOk,
  makeKeys,
  makeWorld,
  policyDoc,
  readDb,
  storeDigest,
  tempDir,
  trustDoc,
  writeJsonFile,
} from './state-helpers.js';

afterEach(cleanupDirs);

const load = (rel: string): unknown => parseStructured(readFileSync(join(REPO_ROOT, rel), 'utf8'), rel);

describe('shipped policies and example trust root (docs/policy.md#policy)', () => {
  it('policies/default.yaml: co-located accepted, preservation required, planning + integration required with the four roles, development optional', () => {
    const p = loadPolicy(load('policies/default.yaml'));
    expect(p.doc.accept_co_located).toBe(true);
    expect(p.doc.preservation).toBe('required');
    const roles = ['authority_release', 'baseline_preservation', 'implementation_test', 'source_fidelity'];
    for (const stage of ['planning', 'integration'] as const) {
      expect(p.doc.stages[stage]?.required).toBe(true);
      expect(Object.keys(p.doc.stages[stage]?.slots ?? {}).sort()).toEqual(roles);
      expect(new Set(Object.values(p.doc.stages[stage]?.slots ?? {}))).toEqual(new Set(['coverage']));
    }
    expect(p.doc.stages.development).toEqual({ required: false, streak: 2, slots: { coverage: 'coverage' } });
    expect(Object.keys(p.doc.reviewers)).toEqual(['coverage']);
  });

  it('policies/strict.yaml: accept_co_located false, preservation required', () => {
    const p = loadPolicy(load('policies/strict.yaml'));
    expect(p.doc.accept_co_located).toBe(false);
    expect(p.doc.trust_mode).toBe('separated');
    expect(p.doc.preservation).toBe('required');
    // It lists the preservation adapter and the probe credential the way policies/default.yaml does,
    // so a unit can satisfy the preservation it requires (docs/preservation.md#adapter-protocol).
    const d = loadPolicy(load('policies/default.yaml'));
    expect(p.doc.preservation_adapters).toEqual(d.doc.preservation_adapters);
    expect(p.doc.credentials.probe).toEqual(d.doc.credentials.probe);
  });

  it('the example policies name exactly the keys of keys.example/trust.yaml, each with its role; no private key ships', () => {
    const trust = loadTrustRoot(load('keys.example/trust.yaml'));
    for (const file of ['policies/default.yaml', 'policies/strict.yaml']) {
      const p = loadPolicy(load(file));
      for (const [role, c] of Object.entries(p.doc.credentials)) {
        expect(trust.keys.get(c?.key_id ?? '')?.roles.has(role as never)).toBe(true);
      }
    }
    const shipped = ['README.md', 'trust.yaml', 'reviewer.pub', 'runner.pub', 'gate.pub', 'log.pub', 'authority.pub'];
    for (const f of shipped) expect(readFileSync(join(REPO_ROOT, 'keys.example', f), 'utf8')).not.toMatch(/PRIVATE KEY/);
  });

  it('init accepts both shipped policies with the example trust root', () => {
    for (const policy of ['policies/default.yaml', 'policies/strict.yaml']) {
      const home = join(tempDir(), 'state');
      const r = runCli(['init', '--policy', join(REPO_ROOT, policy), '--trust', join(REPO_ROOT, 'keys.example/trust.yaml'), '--home', home, '--json']);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).policy_digest).toBe(pinDigestOf(readFileSync(join(REPO_ROOT, policy)), 'policy'));
    }
  });
});

describe('governed init', () => {
  it('creates a 0700 state directory, 0700 bundles/, a 0600 WAL database, and pins both digests and exact bytes', () => {
    const w = makeWorld();
    const out = govOk(w, ['init', '--policy', w.policyFile, '--trust', w.trustFile]);
    expect(out.policy_digest).toBe(pinDigestOf(readFileSync(w.policyFile), 'policy'));
    expect(out.trust_digest).toBe(pinDigestOf(readFileSync(w.trustFile), 'trust'));
    expect(statSync(w.home).mode & 0o777).toBe(0o700);
    expect(statSync(join(w.home, 'bundles')).mode & 0o777).toBe(0o700);
    expect(statSync(join(w.home, 'governed.db')).mode & 0o777).toBe(0o600);
    const db = readDb(w);
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      const pins = db.prepare('SELECT kind, digest, bytes FROM pins ORDER BY kind').all() as { kind: string; digest: string; bytes: Buffer }[];
      expect(pins.map((p) => [p.kind, p.digest])).toEqual([
        ['policy', out.policy_digest],
        ['trust', out.trust_digest],
      ]);
      expect(pins[0]?.bytes.equals(readFileSync(w.policyFile))).toBe(true);
      expect(db.prepare('SELECT type FROM log ORDER BY seq').pluck().all()).toEqual(['store_init']);
    } finally {
      db.close();
    }
    // The human form says what was pinned.
    const again = gov(w, ['init', '--policy', w.policyFile, '--trust', w.trustFile]);
    expect(again.code).toBe(8);
    expect(again.stderr).toContain('store_already_initialized');
  });

  it('refuses to re-init and leaves the store exactly as it was', () => {
    const w = makeWorld();
    govOk(w, ['init', '--policy', w.policyFile, '--trust', w.trustFile]);
    const other = writeJsonFile(join(w.dir, 'other-policy.json'), policyDoc(w.keys, { max_runs_per_content: 3 }));
    expectRefused(w, ['init', '--policy', other, '--trust', w.trustFile], 'store_already_initialized', 8);
  });

  it('requires both --policy and --trust (usage, exit 2) and creates nothing', () => {
    const w = makeWorld();
    expect(gov(w, ['init', '--trust', w.trustFile]).code).toBe(2);
    expect(gov(w, ['init', '--policy', w.policyFile]).code).toBe(2);
    expect(existsSync(w.home)).toBe(false);
  });

  it('refuses an invalid policy before creating anything (policy_invalid, exit 2)', () => {
    const w = makeWorld();
    const bad = writeJsonFile(join(w.dir, 'bad.json'), { ...policyDoc(w.keys), surprise: 'CANARY-SOURCE-5f1e0c' });
    const r = gov(w, ['init', '--policy', bad, '--trust', w.trustFile, '--json']);
    expect(r.code).toBe(2);
    expect(errorOf(r).code).toBe('policy_invalid');
    expect(r.stdout + r.stderr).not.toContain('CANARY');
    expect(existsSync(w.home)).toBe(false);
  });

  it('refuses a "__proto__" key inside a policy map (zod\'s record would drop it silently and load the rest)', () => {
    const w = makeWorld();
    for (const where of ['slots', 'reviewers', 'env'] as const) {
      const doc = policyDoc(w.keys) as { stages: { planning: { slots: object } }; reviewers: Record<string, { env: object }> };
      const target = where === 'slots' ? doc.stages.planning.slots : where === 'reviewers' ? doc.reviewers : (Object.values(doc.reviewers)[0] as { env: object }).env;
      const text = JSON.stringify(doc).replace(JSON.stringify(target), JSON.stringify(target).replace(/^\{/, Object.keys(target).length === 0 ? '{"__proto__":"x"' : '{"__proto__":"x",'));
      expect(text).toContain('__proto__');
      const file = join(w.dir, `proto-${where}.json`);
      writeFileSync(file, text);
      const r = gov(w, ['init', '--policy', file, '--trust', w.trustFile, '--json']);
      expect(r.code, where).toBe(2);
      expect(errorOf(r).code).toBe('policy_invalid');
      expect(existsSync(w.home)).toBe(false);
    }
  });

  it('refuses a policy credential the trust root does not hold for that role (exit 6), creating nothing', () => {
    const w = makeWorld();
    const strangers = makeKeys(tempDir());
    // The reviewer credential names a key of another trust root.
    const doc = policyDoc(w.keys);
    const creds = doc.credentials as Record<string, Record<string, unknown>>;
    creds.reviewer = { ...creds.reviewer, key_id: strangers.reviewer.keyId };
    const p1 = writeJsonFile(join(w.dir, 'p1.json'), doc);
    let r = gov(w, ['init', '--policy', p1, '--trust', w.trustFile, '--json']);
    expect([r.code, errorOf(r).code, errorOf(r).ids]).toEqual([6, 'policy_credential_untrusted', ['credentials.reviewer']]);
    // The runner credential names a key the trust root holds, but only as gate.
    const doc2 = policyDoc(w.keys);
    (doc2.credentials as Record<string, Record<string, unknown>>).runner = {
      ...(doc2.credentials as Record<string, Record<string, unknown>>).runner,
      key_id: w.keys.gate.keyId,
    };
    (doc2.credentials as Record<string, Record<string, unknown>>).gate = {
      ...(doc2.credentials as Record<string, Record<string, unknown>>).gate,
      key_id: w.keys.runner.keyId,
    };
    r = gov(w, ['init', '--policy', writeJsonFile(join(w.dir, 'p2.json'), doc2), '--trust', w.trustFile, '--json']);
    expect([r.code, errorOf(r).code]).toEqual([6, 'policy_credential_untrusted']);
    expect(existsSync(w.home)).toBe(false);
  });

  it('refuses an expired trust root (trust_root_expired, exit 5), creating nothing', () => {
    const w = makeWorld();
    const expired = writeJsonFile(join(w.dir, 'expired.json'), trustDoc(w.keys, '2021-01-01T00:00:00Z'));
    const r = gov(w, ['init', '--policy', w.policyFile, '--trust', expired, '--json']);
    expect([r.code, errorOf(r).code]).toEqual([5, 'trust_root_expired']);
    expect(existsSync(w.home)).toBe(false);
  });

  it('refuses an unreadable file (input_unreadable, exit 2)', () => {
    const w = makeWorld();
    const r = gov(w, ['init', '--policy', join(w.dir, 'missing.yaml'), '--trust', w.trustFile, '--json']);
    expect([r.code, errorOf(r).code]).toEqual([2, 'input_unreadable']);
  });

  it('honours GOVERNED_HOME when --home is absent', () => {
    const w = makeWorld();
    const r = runCli(['init', '--policy', w.policyFile, '--trust', w.trustFile, '--json'], { cwd: w.repo.root, env: { GOVERNED_HOME: w.home } });
    expect(r.code).toBe(0);
    expect(storeDigest(w)).toMatch(/^sha256:/);
  });
});
