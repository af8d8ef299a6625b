// Two pin refusals through the BUILT CLI (docs/commands.md#exit-codes exit codes, docs/reviewers.md#the-reviewers-world, docs/formats.md#receipt, docs/policy.md#policy-and-trust-root): `init` refuses a
// policy whose reviewer env steers the loader and a trust root with an impossible date, creating
// nothing; `policy update` / `trust update` refuse them on an initialised store, leaving every table
// unchanged (tablesDigest); `verify` refuses a signed receipt whose times are an impossible date.
// No rejected value (canary) ever appears in stdout or stderr.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeStore, initStore, openStore, tablesDigest } from '../src/store/index.js';
import { jsonOut, runCli, type CliResult } from './helpers/cli.js';
import { payloadOf, receiptWorld, samplePredicate, signEnvelope, statementFor } from './helpers/receipts.js';
import { cleanupDirs, errorOf, gov, makeWorld, policyDoc, trustDoc, writeJsonFile } from './state-helpers.js';
import { bytesOf, policyDoc as authorityPolicyDoc, tempDir as authorityTempDir, trustWith, world as authorityWorld } from './authority-helpers.js';

afterEach(cleanupDirs);

const CANARY = 'CANARY-s3sec-9d2e41';
/** A loader-influencing value that also carries the canary (it must never be echoed). */
const INJECT = `--import=data:text/javascript,globalThis.x=1//${CANARY}`;

function noCanary(r: CliResult): void {
  expect(r.stdout + r.stderr).not.toContain(CANARY);
  expect(r.stdout + r.stderr).not.toContain('data:text/javascript');
}

describe('governed init', () => {
  it('refuses a policy whose reviewer env sets NODE_OPTIONS or LD_PRELOAD (policy_invalid, exit 2), creating nothing', () => {
    const w = makeWorld();
    for (const [name, value] of [['NODE_OPTIONS', INJECT], ['LD_PRELOAD', `/tmp/${CANARY}.so`], ['GCONV_PATH', `/tmp/${CANARY}`]] as const) {
      const doc = policyDoc(w.keys, { reviewers: { coverage: { sha256: 'a'.repeat(64), interpreter: '/usr/bin/node', env: { [name]: value } } } });
      const file = writeJsonFile(join(w.dir, `env-${name}.json`), doc);
      const r = gov(w, ['init', '--policy', file, '--trust', w.trustFile, '--json']);
      expect([r.code, errorOf(r).code, errorOf(r).ids], name).toEqual([2, 'policy_invalid', ['reviewers.coverage.env']]);
      noCanary(r);
      expect(existsSync(w.home), name).toBe(false);
    }
    // The control: an ordinary variable loads and init succeeds.
    const ok = writeJsonFile(join(w.dir, 'env-ok.json'), policyDoc(w.keys, { reviewers: { coverage: { sha256: 'a'.repeat(64), interpreter: '/usr/bin/node', env: { REVIEW_LEVEL: 'strict' } } } }));
    const r = gov(w, ['init', '--policy', ok, '--trust', w.trustFile, '--json']);
    expect(r.code, r.stderr).toBe(0);
  });

  it('refuses a trust root with an impossible date (trust_root_invalid, exit 2, naming the field), creating nothing', () => {
    const w = makeWorld();
    const base = trustDoc(w.keys) as { expires: string; keys: Record<string, unknown>[] };
    const cases: [string, Record<string, unknown>][] = [
      ['expires', { ...base, expires: '2099-02-30T00:00:00Z' }],
      ['keys.0.not_before', { ...base, keys: base.keys.map((k, i) => (i === 0 ? { ...k, not_before: '2020-13-01T00:00:00Z' } : k)) }],
      ['keys.2.not_after', { ...base, keys: base.keys.map((k, i) => (i === 2 ? { ...k, not_after: '2098-04-31T00:00:00Z' } : k)) }],
      ['keys.1.revoked_at', { ...base, keys: base.keys.map((k, i) => (i === 1 ? { ...k, revoked_at: '2090-01-01T24:00:00Z', reason: CANARY } : k)) }],
    ];
    for (const [path, doc] of cases) {
      const file = writeJsonFile(join(w.dir, `trust-${path}.json`), doc);
      const r = gov(w, ['init', '--policy', w.policyFile, '--trust', file, '--json']);
      expect([r.code, errorOf(r).code, errorOf(r).ids], path).toEqual([2, 'trust_root_invalid', [path]]);
      noCanary(r);
      expect(existsSync(w.home), path).toBe(false);
    }
  });
});

describe('governed policy update / trust update on an initialised store', () => {
  it('refuses the document before any authority is consulted; every table unchanged', () => {
    const w = authorityWorld();
    const dir = authorityTempDir();
    const home = join(dir, 'state');
    closeStore(initStore(home, { policyBytes: bytesOf(authorityPolicyDoc()), trustBytes: bytesOf(w.trust), now: Math.floor(Date.now() / 1000) }));
    const digest = (): string => {
      const s = openStore(home);
      try {
        return tablesDigest(s);
      } finally {
        closeStore(s);
      }
    };
    const before = digest();
    const cli = (args: readonly string[]): CliResult => runCli([...args, '--home', home, '--json'], { cwd: dir });

    const p = authorityPolicyDoc() as { reviewers: Record<string, { env: Record<string, string> }> };
    for (const r of Object.values(p.reviewers)) r.env = { NODE_OPTIONS: INJECT };
    const policyFile = join(dir, 'policy-env.json');
    writeFileSync(policyFile, bytesOf(p));
    const pr = cli(['policy', 'update', '--policy', policyFile, '--authority', `REC-${'0'.repeat(24)}`]);
    expect([pr.code, (jsonOut(pr).error as { code: string; ids: string[] }).code]).toEqual([2, 'policy_invalid']);
    expect((jsonOut(pr).error as { ids: string[] }).ids[0]).toMatch(/^reviewers\.[a-z0-9_-]+\.env$/);
    noCanary(pr);

    const t = trustWith([{ key: w.human, roles: ['authority'] }]) as { expires: string };
    const trustFile = join(dir, 'trust-feb30.json');
    writeFileSync(trustFile, bytesOf({ ...t, expires: '2099-02-30T00:00:00Z' }));
    const tr = cli(['trust', 'update', '--trust', trustFile, '--authority', `REC-${'0'.repeat(24)}`]);
    expect([tr.code, (jsonOut(tr).error as { code: string }).code]).toEqual([2, 'trust_root_invalid']);
    expect((jsonOut(tr).error as { ids: string[] }).ids).toEqual(['expires']);

    expect(digest()).toBe(before);
  });
});

describe('governed verify', () => {
  it('a correctly signed receipt whose times name Feb 30 is INVALID (predicate_invalid, exit 4); the real-date twin verifies', () => {
    const w = receiptWorld();
    const good = join(w.dir, 'good.json');
    writeFileSync(good, signEnvelope(payloadOf(statementFor(samplePredicate())), [w.reviewer, w.runner]));
    expect(runCli(['verify', good, '--trust', w.trustPath, '--json']).code).toBe(0);
    const base = samplePredicate();
    const bad = join(w.dir, 'feb30.json');
    const p = { ...base, times: { issued_at: '2026-02-30T10:00:00Z', started_at: '2026-02-30T10:00:01Z', finished_at: '2026-02-30T10:00:02Z' } };
    writeFileSync(bad, signEnvelope(payloadOf(statementFor(p)), [w.reviewer, w.runner]));
    const r = runCli(['verify', bad, '--trust', w.trustPath, '--json']);
    expect(r.code).toBe(4);
    expect(JSON.stringify(jsonOut(r))).toContain('predicate_invalid');
    expect(r.stdout + r.stderr).not.toContain('2026-02-30');

  });
});
