// `governed review-challenge` (docs/bundle.md#the-review-bundle, docs/decision.md#the-rules-in-short; docs/state.md#review-challenge) through the built CLI: what it binds,
// what the bundle holds for each view, and every refusal with its code, an unchanged store and no
// secret in the output.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/core/canonical.js';
import { contentDigest, contractDigest, planningStateDigest, workStateDigest } from '../src/core/contract/digests.js';
import { parseContract } from '../src/core/contract/schema.js';
import { bundleSchema, ROLE_SECTIONS, type Bundle } from '../src/core/bundle/index.js';
import { computeWorkspaceManifest } from '../src/workspace/index.js';
import { writeBundleFile } from '../src/flows/challenge/bundle-file.js';
import { jsonOut } from './helpers/cli.js';
import {
  assertNoSecrets,
  cleanupDirs,
  contractDoc,
  errorOf,
  expectRefused,
  FILE_CANARY,
  gov,
  govAsync,
  govOk,
  makeKeys,
  makeWorld,
  policyDoc,
  readDb,
  setupUnit,
  SOURCE_TEXT,
  storeDigest,
  writeJsonFile,
  type World,
} from './state-helpers.js';

afterEach(cleanupDirs);

const EXPORT_TS = `export const csv = '${FILE_CANARY}';\n`;
const ROLES = ['source_fidelity', 'baseline_preservation', 'implementation_test', 'authority_release'] as const;

/** A unit whose workspace implements DIR-1 (src/export.ts, test/export.test.ts): changes covered. */
function implementedWorld(o: Parameters<typeof makeWorld>[0] = {}): { w: World; unit: string } {
  const w = makeWorld({ baselineFiles: { 'src/export.ts': 'export const csv = "baseline";\n' }, ...o });
  const unit = setupUnit(w);
  w.repo.write('src/export.ts', EXPORT_TS);
  w.repo.write('test/export.test.ts', 'test("csv", () => {});\n');
  return { w, unit };
}

function challenge(unit: string, stage: string, slot: string, extra: string[] = []): string[] {
  return ['review-challenge', '--unit', unit, '--writer-session', 'agent-1', '--stage', stage, '--slot', slot, ...extra];
}

function issue(w: World, unit: string, stage: string, slot: string): { id: string; bundle: Bundle; bytes: Buffer } {
  const out = govOk(w, challenge(unit, stage, slot));
  const id = out.challenge_id as string;
  const bytes = readFileSync(join(w.home, 'bundles', `${id}.json`));
  return { id, bundle: bundleSchema.parse(JSON.parse(bytes.toString('utf8'))), bytes };
}

function row(w: World, id: string): Record<string, unknown> {
  const db = readDb(w);
  try {
    return db.prepare('SELECT * FROM challenges WHERE id = ?').get(id) as Record<string, unknown>;
  } finally {
    db.close();
  }
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

describe('review-challenge: issuing', () => {
  it('prints only {challenge_id, stage, slot, expires_at}; writes the bundle once, 0600, whose digest is the stored one', () => {
    const { w, unit } = implementedWorld();
    const r = gov(w, [...challenge(unit, 'development', 'coverage'), '--json']);
    expect(r.code).toBe(0);
    assertNoSecrets(r);
    expect(r.stderr).toBe('');
    const out = jsonOut(r);
    expect(Object.keys(out).sort()).toEqual(['challenge_id', 'exit', 'expires_at', 'ok', 'schema_version', 'slot', 'stage']);
    expect(out).toMatchObject({ stage: 'development', slot: 'coverage' });
    const id = out.challenge_id as string;
    expect(id).toMatch(/^CHL-[0-9a-f]{32}$/);
    const file = join(w.home, 'bundles', `${id}.json`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const bytes = readFileSync(file);
    const stored = row(w, id);
    expect(`sha256:${createHash('sha256').update(bytes).digest('hex')}`).toBe(stored.bundle_digest);
    expect(stored.bundle_size).toBe(bytes.length);
    // Canonical bytes of a bundle that matches the published schema.
    expect(canonicalJson(JSON.parse(bytes.toString('utf8')))).toBe(bytes.toString('utf8'));
    const bundle = bundleSchema.parse(JSON.parse(bytes.toString('utf8')));
    expect(bundle).toMatchObject({ challenge_id: id, unit, stage: 'development', slot: 'coverage' });
    expect(bundle.view.digest).toBe(stored.view_digest);
    expect(stored).toMatchObject({ status: 'open', ordinal: 1, writer_session: 'agent-1', reviewer_name: 'coverage', reviewer_sha256: '1'.repeat(64) });
    expect(Date.parse(out.expires_at as string) / 1000 - (stored.issued_at as number)).toBe(600);
    expect(stored.expires_at).toBe((stored.issued_at as number) + 600);
    // The human form prints the same four fields and nothing else.
    const human = gov(w, challenge(unit, 'development', 'coverage'));
    expect(human.code).toBe(0);
    expect(human.stdout.trim().split('\n').map((l) => l.split(' ')[0])).toEqual(['challenge_id', 'stage', 'slot', 'expires_at']);
    assertNoSecrets(human);
  });

  it('binds every digest: planning state, content, work state, contract, sources, workspace, baseline, policy, trust, epoch, revision', async () => {
    const { w, unit } = implementedWorld();
    const { id } = issue(w, unit, 'development', 'coverage');
    const stored = row(w, id);
    const contract = parseContract(JSON.parse(readFileSync(w.contractFile, 'utf8')));
    const tree = w.repo.git('rev-parse', `${w.baseline}^{tree}`);
    const planning = planningStateDigest({
      sourceDigests: new Map([['SRC-1', `sha256:${createHash('sha256').update(SOURCE_TEXT).digest('hex')}`]]),
      contract,
      baseline: { commit: w.baseline, tree },
    });
    const workspace = (await computeWorkspaceManifest(w.repo.root, { productRoots: ['.'], exclude: ['.governed'] })).digest;
    const content = contentDigest({ planningStateDigest: planning, contract, workspaceDigest: workspace });
    const db = readDb(w);
    const pins = Object.fromEntries((db.prepare('SELECT kind, digest FROM pins').all() as { kind: string; digest: string }[]).map((p) => [p.kind, p.digest]));
    db.close();
    expect(stored).toMatchObject({
      planning_state_digest: planning,
      workspace_digest: workspace,
      content_digest: content,
      work_state_digest: workStateDigest({ contentDigest: content, workRevision: 0 }),
      contract_digest: contractDigest(contract),
      baseline_commit: w.baseline,
      baseline_tree: tree,
      policy_digest: pins.policy,
      trust_digest: pins.trust,
      scope_version: 1,
      scope_epoch: 1,
      work_revision: 0,
      view: 'complete',
    });
  });

  it('development: the complete view holds the exact hashed bytes, changes with CHG>IMP edges, no prior receipts', () => {
    const { w, unit } = implementedWorld();
    const { bundle } = issue(w, unit, 'development', 'coverage');
    expect(bundle.view).toMatchObject({
      name: 'complete',
      included: ['sources', 'source_map', 'contract', 'authorities', 'tombstones', 'scope_history', 'changes', 'current_files', 'baseline_files'],
      withheld: [],
    });
    const s = bundle.sections;
    expect(Buffer.from(s.sources?.[0]?.bytes_b64 ?? '', 'base64').toString('utf8')).toBe(SOURCE_TEXT);
    const current = s.current_files?.find((f) => f.path === 'src/export.ts');
    expect(current?.present && Buffer.from(current.bytes_b64, 'base64').toString('utf8')).toBe(EXPORT_TS);
    const base = s.baseline_files?.files.find((f) => f.path === 'src/export.ts');
    expect(base?.present && Buffer.from(base.bytes_b64, 'base64').toString('utf8')).toBe('export const csv = "baseline";\n');
    expect(s.current_files?.find((f) => f.path === 'src/json.ts')).toEqual({ path: 'src/json.ts', present: false });
    expect(s.changes?.map((c) => c.path)).toEqual(['src/export.ts', 'test/export.test.ts']);
    const chg = s.changes?.[0]?.id as string;
    expect(bundle.coverage.relations).toContain(`${chg}>IMP-1`);
    expect(bundle.coverage.changes).toHaveLength(2);
    expect(bundle.coverage.scope_versions).toEqual(['SCOPE-1']);
    expect(s.prior_receipts).toBeUndefined();
  });

  it('each planning and integration role sees exactly its sections, and nothing withheld leaks into its file', () => {
    const { w, unit } = implementedWorld();
    const expected: Record<string, Record<(typeof ROLES)[number], string[]>> = {
      planning: {
        source_fidelity: ['sources', 'authorities', 'tombstones'],
        baseline_preservation: ['baseline_files'],
        implementation_test: ['contract'],
        authority_release: ['source_map', 'authorities', 'tombstones', 'scope_history', 'prior_receipts'],
      },
      integration: {
        source_fidelity: ['sources', 'authorities', 'tombstones'],
        baseline_preservation: ['changes', 'baseline_files'],
        implementation_test: ['contract', 'changes', 'current_files'],
        authority_release: ['source_map', 'authorities', 'tombstones', 'scope_history', 'prior_receipts'],
      },
    };
    for (const stage of ['planning', 'integration'] as const) {
      for (const role of ROLES) {
        const { bundle, bytes } = issue(w, unit, stage, role);
        const text = bytes.toString('utf8');
        expect(bundle.view.name).toBe(role);
        expect(bundle.view.included).toEqual(expected[stage]?.[role]);
        expect(Object.keys(bundle.sections).sort()).toEqual([...(expected[stage]?.[role] ?? [])].sort());
        expect(bundle.view.included.every((s) => ROLE_SECTIONS[role].includes(s))).toBe(true);
        expect([...bundle.view.included, ...bundle.view.withheld].sort()).toEqual(
          stage === 'planning'
            ? ['authorities', 'baseline_files', 'contract', 'prior_receipts', 'scope_history', 'source_map', 'sources', 'tombstones']
            : ['authorities', 'baseline_files', 'changes', 'contract', 'current_files', 'prior_receipts', 'scope_history', 'source_map', 'sources', 'tombstones'],
        );
        // Withheld evidence is not in the file at all.
        const hasSourceBytes = text.includes(b64(SOURCE_TEXT));
        const hasWorkspaceFile = text.includes(b64(EXPORT_TS));
        const hasStatements = text.includes('The export writes one row per receipt.');
        expect(hasSourceBytes).toBe(role === 'source_fidelity');
        expect(hasWorkspaceFile).toBe(stage === 'integration' && role === 'implementation_test');
        expect(hasStatements).toBe(role === 'implementation_test');
        if (role === 'source_fidelity') expect(bundle.coverage.targets.length + bundle.coverage.criteria.length).toBe(0);
        if (role === 'authority_release') expect(bundle.sections.prior_receipts).toEqual([]);
      }
    }
  });

  it('planning bundles come from the baseline tree only: a workspace edit changes neither their bytes of files nor their view digest', () => {
    // requests/ is excluded from the reviewed workspace so the working-tree request can be edited
    // without being an uncovered change: the bound source bytes still come from the baseline tree.
    const keys = makeKeys();
    const { w, unit } = implementedWorld({ keys, policy: policyDoc(keys, { exclude: ['.governed', 'requests'] }) });
    const first = issue(w, unit, 'planning', 'baseline_preservation');
    const base = first.bundle.sections.baseline_files?.files.find((f) => f.path === 'src/export.ts');
    expect(base?.present && Buffer.from(base.bytes_b64, 'base64').toString('utf8')).toBe('export const csv = "baseline";\n');
    expect(first.bytes.toString('utf8')).not.toContain(b64(EXPORT_TS));
    // Edit the workspace again (and the request text in the working tree): the planning view is unmoved.
    w.repo.write('src/export.ts', `${EXPORT_TS}// more\n`);
    w.repo.write('requests/export.md', 'rewritten in the workspace\n');
    const second = issue(w, unit, 'planning', 'baseline_preservation');
    expect(second.bundle.view.digest).toBe(first.bundle.view.digest);
    expect(row(w, second.id).planning_state_digest).toBe(row(w, first.id).planning_state_digest);
    expect(row(w, second.id).content_digest).not.toBe(row(w, first.id).content_digest);
    const sf = issue(w, unit, 'planning', 'source_fidelity');
    expect(Buffer.from(sf.bundle.sections.sources?.[0]?.bytes_b64 ?? '', 'base64').toString('utf8')).toBe(SOURCE_TEXT);
  });

  it('an expired challenge is swept (logged) before issuing, and its bundle file removed', async () => {
    const keys = makeKeys();
    const w2 = makeWorld({ policy: policyDoc(keys, { challenge_ttl: '1s' }), keys });
    const unit2 = setupUnit(w2);
    const { id } = issue(w2, unit2, 'development', 'coverage');
    await new Promise((r) => setTimeout(r, 2100));
    // A refused command still records the expiry it observed, and nothing else.
    const db = readDb(w2);
    const before = (db.prepare('SELECT COUNT(*) FROM log').pluck().get() as number) + 1;
    db.close();
    const r = gov(w2, [...challenge(unit2, 'development', 'nope'), '--json']);
    expect(errorOf(r).code).toBe('slot_unknown');
    const after = readDb(w2);
    try {
      expect(after.prepare('SELECT COUNT(*) FROM log').pluck().get()).toBe(before);
      expect(after.prepare('SELECT type FROM log ORDER BY seq DESC LIMIT 1').pluck().get()).toBe('challenge_sweep');
      expect(after.prepare('SELECT status FROM challenges WHERE id = ?').pluck().get(id)).toBe('expired');
    } finally {
      after.close();
    }
    expect(existsSync(join(w2.home, 'bundles', `${id}.json`))).toBe(false);
  });
});

describe('review-challenge: refusals (code, store unchanged, no secret)', () => {
  it('refuses while any lease is active (exit 8), on this unit or another', () => {
    const { w, unit } = implementedWorld();
    const { lease } = govOk(w, ['lease', 'acquire', '--unit', unit, '--writer-session', 'agent-1']) as { lease: string };
    expectRefused(w, challenge(unit, 'development', 'coverage'), 'challenge_lease_active', 8);
    govOk(w, ['lease', 'release', '--lease', lease, '--writer-session', 'agent-1']);
    // A lease on another unit of the store also blocks issuing.
    const other = govOk(w, ['unit', 'create', '--contract', w.contractFile, '--baseline', w.baseline]).unit as string;
    govOk(w, ['writer', 'register', '--unit', other, '--writer-session', 'agent-9', '--pid', String(process.ppid)]);
    govOk(w, ['lease', 'acquire', '--unit', other, '--writer-session', 'agent-9']);
    expectRefused(w, challenge(unit, 'development', 'coverage'), 'challenge_lease_active', 8);
  });

  it('refuses an unregistered writer (8) and an unknown unit (7); precedence picks the highest exit', () => {
    const { w, unit } = implementedWorld();
    expectRefused(w, ['review-challenge', '--unit', unit, '--writer-session', 'ghost', '--stage', 'development', '--slot', 'coverage'], 'writer_not_registered', 8);
    const missing = 'UNIT-' + 'e'.repeat(32);
    expectRefused(w, challenge(missing, 'development', 'coverage'), 'unit_unknown', 7);
    // unknown unit (7) and unknown stage (2): 7 wins; an active lease (8) beats both.
    expectRefused(w, challenge(missing, 'deployment', 'coverage'), 'unit_unknown', 7);
    govOk(w, ['lease', 'acquire', '--unit', unit, '--writer-session', 'agent-1']);
    expectRefused(w, challenge(missing, 'deployment', 'coverage'), 'challenge_lease_active', 8);
  });

  it('refuses a current policy or trust root that differs from the pinned one (exit 4)', () => {
    const { w, unit } = implementedWorld();
    const otherPolicy = writeJsonFile(join(w.dir, 'other-policy.json'), policyDoc(w.keys, { max_runs_per_content: 3 }));
    const otherTrust = writeJsonFile(join(w.dir, 'other-trust.json'), { ...JSON.parse(readFileSync(w.trustFile, 'utf8')), expires: '2098-01-01T00:00:00Z' });
    expectRefused(w, challenge(unit, 'development', 'coverage', ['--policy', otherPolicy]), 'policy_not_pinned', 4);
    expectRefused(w, challenge(unit, 'development', 'coverage', ['--trust', otherTrust]), 'trust_not_pinned', 4);
    // The pinned files themselves are accepted (same canonical digest).
    govOk(w, challenge(unit, 'development', 'coverage', ['--policy', w.policyFile, '--trust', w.trustFile]));
  });

  it('refuses a pinned policy edited behind governed (pin_integrity_failed, exit 4)', () => {
    const { w, unit } = implementedWorld();
    const raw = new Database(join(w.home, 'governed.db'));
    raw.prepare("UPDATE pins SET bytes = ? WHERE kind = 'policy'").run(Buffer.from(JSON.stringify(policyDoc(w.keys, { max_runs_per_content: 1000 }))));
    raw.close();
    expectRefused(w, challenge(unit, 'development', 'coverage'), 'pin_integrity_failed', 4);
  });

  it('refuses a stage the policy does not list and an unknown slot (exit 2)', () => {
    const { w, unit } = implementedWorld();
    expectRefused(w, challenge(unit, 'test', 'coverage'), 'stage_not_in_policy', 2);
    expectRefused(w, challenge(unit, 'staging', 'coverage'), 'stage_not_in_policy', 2);
    expectRefused(w, challenge(unit, 'planning', 'coverage'), 'slot_unknown', 2);
    expectRefused(w, challenge(unit, 'development', 'source_fidelity'), 'slot_unknown', 2);
    const { ids } = expectRefused(w, challenge(unit, 'development', 'CANARY-SOURCE-5f1e0c'), 'slot_unknown', 2);
    expect(ids).toEqual([]);
  });

  it('refuses an invalid contract: uncovered changes (8), a target that is a symlink (2), tampered scope bytes (4)', () => {
    const { w, unit } = implementedWorld();
    w.repo.write('src/unplanned.ts', 'export {};\n');
    expectRefused(w, challenge(unit, 'development', 'coverage'), 'contract_change_uncovered', 8);
    rmSync(join(w.repo.root, 'src/unplanned.ts'));
    // DIR-2's target src/json.ts becomes a symlink: the change is covered, the path is not a file.
    w.repo.symlink('src/json.ts', 'util.ts');
    expectRefused(w, challenge(unit, 'development', 'coverage'), 'contract_path_not_file', 2);
    rmSync(join(w.repo.root, 'src/json.ts'));
    govOk(w, challenge(unit, 'development', 'coverage'));
    const raw = new Database(join(w.home, 'governed.db'));
    raw.prepare('UPDATE scope_versions SET contract_bytes = ? WHERE unit = ?').run(Buffer.from(JSON.stringify(contractDoc({ title: 'edited' }))), unit);
    raw.close();
    expectRefused(w, challenge(unit, 'development', 'coverage'), 'scope_integrity_failed', 4);
  });

  it('refuses more than max_runs_per_content challenges per (unit, stage, slot, content); lease cycles do not reset it', () => {
    const keys = makeKeys();
    const { w, unit } = implementedWorld({ keys, policy: policyDoc(keys, { max_runs_per_content: 2 }) });
    issue(w, unit, 'development', 'coverage');
    issue(w, unit, 'development', 'coverage');
    expectRefused(w, challenge(unit, 'development', 'coverage'), 'challenge_budget_exhausted', 8);
    const { lease } = govOk(w, ['lease', 'acquire', '--unit', unit, '--writer-session', 'agent-1']) as { lease: string };
    govOk(w, ['lease', 'release', '--lease', lease, '--writer-session', 'agent-1']);
    expectRefused(w, challenge(unit, 'development', 'coverage'), 'challenge_budget_exhausted', 8);
    // Another slot, or really changed content, has its own budget.
    issue(w, unit, 'integration', 'source_fidelity');
    w.repo.write('src/export.ts', `${EXPORT_TS}// v2\n`);
    const again = issue(w, unit, 'development', 'coverage');
    expect(row(w, again.id).ordinal).toBe(1);
  });

  it('refuses a bundle over max_bundle (never truncated) and writes no file', () => {
    const keys = makeKeys();
    const { w, unit } = implementedWorld({ keys, policy: policyDoc(keys, { sandbox: { ...(policyDoc(keys).sandbox as object), max_bundle: '2KiB' } }) });
    w.repo.write('src/export.ts', `${EXPORT_TS}${'// padding\n'.repeat(400)}`);
    expectRefused(w, challenge(unit, 'development', 'coverage'), 'bundle_too_large', 8);
    expect(readdirSync(join(w.home, 'bundles'))).toEqual([]);
  });

  it('refuses an empty view (a source_fidelity view of a contract without sources, authorities or tombstones)', () => {
    const bare = contractDoc();
    const noSources = {
      ...bare,
      sources: [],
      directives: [
        {
          id: 'DIR-1',
          statement: 'Keep the util module.',
          state: 'active',
          sources: [],
          targets: [{ id: 'TGT-1', paths: ['src/util.ts'] }],
          criteria: [{ id: 'AC-1', statement: 'util still exports util.', atoms: [] }],
          implementations: [],
          evidence: [],
        },
      ],
      implementations: [],
      evidence: [],
    };
    const w = makeWorld({ contract: noSources });
    const unit = setupUnit(w);
    expectRefused(w, challenge(unit, 'planning', 'source_fidelity'), 'bundle_view_empty', 8);
    // The other roles of the same stage have something to show.
    govOk(w, challenge(unit, 'planning', 'implementation_test'));
  });

  it('refuses a state directory inside the reviewed workspace that the policy does not exclude (exit 2)', () => {
    const w0 = makeWorld();
    const w: World = { ...w0, home: join(w0.repo.root, 'state') };
    const unit = setupUnit(w);
    expectRefused(w, challenge(unit, 'development', 'coverage'), 'state_dir_in_workspace', 2);
  });
});

describe('review-challenge: two processes at once', () => {
  it('with budget for one, exactly one of two racing issuers wins; the loser records nothing and leaves no file', async () => {
    const keys = makeKeys();
    const { w, unit } = implementedWorld({ keys, policy: policyDoc(keys, { max_runs_per_content: 1 }) });
    const before = storeDigest(w);
    const results = await Promise.all([0, 1].map(() => govAsync(w, [...challenge(unit, 'development', 'coverage'), '--json'])));
    const codes = results.map((r) => r.code).sort();
    expect(codes).toEqual([0, 8]);
    const loser = results.find((r) => r.code === 8);
    expect(['challenge_budget_exhausted', 'store_constraint_violation']).toContain(JSON.parse(loser?.stdout ?? '{}').error.code);
    for (const r of results) assertNoSecrets(r);
    const db = readDb(w);
    try {
      const ids = db.prepare('SELECT id FROM challenges').pluck().all() as string[];
      expect(ids).toHaveLength(1);
      expect(readdirSync(join(w.home, 'bundles'))).toEqual([`${ids[0]}.json`]);
    } finally {
      db.close();
    }
    expect(storeDigest(w)).not.toBe(before);
  });

  it('with budget for both, two racing issuers both succeed with ordinals 1 and 2', async () => {
    const { w, unit } = implementedWorld();
    const results = await Promise.all([0, 1].map(() => govAsync(w, [...challenge(unit, 'development', 'coverage'), '--json'])));
    expect(results.map((r) => r.code)).toEqual([0, 0]);
    const db = readDb(w);
    try {
      expect(db.prepare('SELECT ordinal FROM challenges ORDER BY ordinal').pluck().all()).toEqual([1, 2]);
    } finally {
      db.close();
    }
    expect(readdirSync(join(w.home, 'bundles'))).toHaveLength(2);
  });
});

describe('bundle file', () => {
  it('is created exclusively with mode 0600, never overwrites, never follows a planted symlink', () => {
    const w = makeWorld();
    const dir = join(w.dir, 'bundles');
    mkdirSync(dir, { mode: 0o700 });
    const id = `CHL-${'7'.repeat(32)}`;
    const path = writeBundleFile(dir, id, Buffer.from('{"a":1}'));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe('{"a":1}');
    let code: string | undefined;
    try {
      writeBundleFile(dir, id, Buffer.from('{"b":2}'));
    } catch (e) {
      code = (e as { code?: string }).code;
    }
    expect(code).toBe('bundle_write_failed');
    expect(readFileSync(path, 'utf8')).toBe('{"a":1}');
    // A symlink planted at the path is never followed.
    const other = `CHL-${'8'.repeat(32)}`;
    const target = join(w.dir, 'outside.txt');
    writeFileSync(target, 'untouched');
    symlinkSync(target, join(dir, `${other}.json`));
    expect(() => writeBundleFile(dir, other, Buffer.from('{}'))).toThrow();
    expect(readFileSync(target, 'utf8')).toBe('untouched');
  });
});
