// review-run with YAML pins and a YAML contract, through the BUILT CLI's cold review-run bundle.
// scripts/build.mjs gives that bundle's yaml library a file of its own (dist/chunks/
// review-run-yaml.cjs, required only when a YAML document is read), and drift.ts re-parses the
// bound contract with parseBoundContract: this run reads the policy and the trust root as YAML
// (step 1 and the step-8 reload) and the contract as YAML (step 8), so a yaml file that failed to
// resolve, or a YAML contract judged differently, fails the run here. The same challenge flow with
// JSON documents is what every other test/run-*.test.ts exercises.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonOut } from './helpers/cli.js';
import { cleanupDirs, gov, govOk, type World } from './state-helpers.js';
import { expectLogSound, makeRunWorld, runArgs, type RunWorld } from './run-helpers.js';

afterAll(() => cleanupDirs());

/** The JSON document at `path` written again as block-style YAML (never starts with `{`). */
function yamlCopy(path: string, name: string, dir: string): string {
  const out = join(dir, name);
  writeFileSync(out, stringify(JSON.parse(readFileSync(path, 'utf8')), { aliasDuplicateObjects: false }));
  return out;
}

describe('review-run reads YAML pins and a YAML contract (cold bundle, split yaml)', () => {
  it('a CLEAN receipt, verified, with policy, trust root and contract stored as YAML', async () => {
    const w: RunWorld = await makeRunWorld({ modes: ['clean'] });
    // A second store in the same repository whose pins and contract are YAML documents.
    const policy = yamlCopy(w.policyFile, 'policy.yaml', w.dir);
    const trust = yamlCopy(w.trustFile, 'trust.yaml', w.dir);
    const contract = yamlCopy(w.contractFile, 'contract.yaml', w.dir);
    for (const f of [policy, trust, contract]) expect(readFileSync(f, 'utf8').trimStart().startsWith('{')).toBe(false);
    const y: RunWorld = { ...w, home: join(w.dir, 'state-yaml') } as RunWorld;
    govOk(y, ['init', '--policy', policy, '--trust', trust]);
    const unit = govOk(y, ['unit', 'create', '--contract', contract, '--baseline', w.baseline]).unit as string;
    govOk(y, ['writer', 'register', '--unit', unit, '--writer-session', 'agent-1']);
    const yw: RunWorld = { ...y, unit };
    const challenge = govOk(yw as World, ['review-challenge', '--unit', unit, '--writer-session', 'agent-1', '--stage', 'development', '--slot', 'clean'])
      .challenge_id as string;

    const r = gov(yw, [...runArgs(yw, challenge), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = jsonOut(r);
    expect(out.verdict).toBe('CLEAN');
    expect(Object.keys(out).sort()).toEqual(['exit', 'ok', 'receipt_id', 'run_id', 'schema_version', 'verdict']);
    // The stored pins really are the YAML bytes (exact bytes are pinned).
    const db = (await import('better-sqlite3')).default(join(yw.home, 'governed.db'), { readonly: true });
    try {
      const pins = db.prepare('SELECT bytes FROM pins').all() as { bytes: Buffer }[];
      expect(pins.length).toBeGreaterThanOrEqual(2);
      for (const p of pins) expect(p.bytes.toString('utf8').trimStart().startsWith('{')).toBe(false);
    } finally {
      db.close();
    }
    expectLogSound(yw);
  });
});
