// What reviewers see of preservation (docs/bundle.md#the-preservation-section), through the built CLI
// on a real Node product: the planning and integration bundles of the `baseline_preservation` and
// `authority_release` views carry the bound contract, the probe receipts the check counts (run by the
// allowlisted adapter in the real check sandbox, signed by the probe credential), each surface's real
// diff digest, and the incident history item by item; their coverage lists the surfaces.
//
// Attacks: a challenge for a view that shows preservation before the surfaces' probes exist
// (planning: no baseline probe; integration: no current probe of the content judged) is refused
// with `preservation_surface_unreviewable` (8) naming the surfaces, nothing issued and the store
// unchanged; the positive controls are the same challenge once the probes ran, and a view that
// withholds preservation (source_fidelity), issued at once. The pinned coverage reviewer
// (runner/reviewers/coverage.mjs) judges the section: CLEAN on a kept product, DIRTY with a CRITICAL
// `preservation_regression` on a change that breaks the CLI entry (file kept).
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticProfileSha256 } from '../runner/sandbox/profile.js';
import { inspectBwrap } from '../runner/sandbox/bwrap.js';
import { seccompBlob } from '../runner/sandbox/index.js';
import type { Bundle } from '../src/core/bundle/index.js';
import { ATTESTOR, REPO_ROOT } from './helpers/cli.js';
import { makeKey, trustRootDoc, type TestKey } from './helpers/receipts.js';
import { planningRequiredPolicy, policyDigestOf, rounds, SESSION, storeDigestAt, type Story } from './gate-world.js';
import { cleanupDirs, contractDoc, gov, govOk, makeKeys, makeWorld, setupUnit, tempDir, writeJsonFile, type Keys } from './state-helpers.js';

const IS_ROOT = process.geteuid?.() === 0;
const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
const ADAPTER = join(REPO_ROOT, 'runner', 'preservation', 'node-adapter.mjs');
const COVERAGE = join(REPO_ROOT, 'runner', 'reviewers', 'coverage.mjs');
const HELP = 'usage: greet <command>\n\nCommands:\n  hello   say hello\n  bye     say goodbye\n';
const GREET = `#!/usr/bin/env node\nif (process.argv.includes('--help')) { process.stdout.write(${JSON.stringify(HELP)}); process.exit(0); }\nprocess.stdout.write('hello\\n');\n`;
const PRODUCT = {
  'package.json': JSON.stringify({ name: 'greeter', version: '1.0.0', type: 'module', bin: { greet: 'bin/greet.js' }, exports: { '.': './lib/index.js' } }, null, 2),
  'bin/greet.js': GREET,
  'lib/index.js': "export const greet = (n) => 'hello ' + n;\n",
};
const SURFACES = ['SURF-cli', 'SURF-lib'];

let keys: Keys;
let probeKey: TestKey;
let attestors: string;
let s: Story;

const probe = (phase: 'baseline' | 'current'): void => {
  govOk(s.w, ['preservation', 'probe', '--unit', s.unit, '--phase', phase, '--adapter', ADAPTER, '--attestors', attestors]);
};
const challengeArgs = (stage: string, slot: string): string[] => ['review-challenge', '--unit', s.unit, '--writer-session', SESSION, '--stage', stage, '--slot', slot];
const bundleFiles = (): string[] => readdirSync(join(s.w.home, 'bundles')).sort();

/** Issue a challenge and read the bundle file it wrote. */
function issued(stage: string, slot: string): { id: string; path: string; bundle: Bundle } {
  const id = govOk(s.w, challengeArgs(stage, slot)).challenge_id as string;
  const path = join(s.w.home, 'bundles', `${id}.json`);
  return { id, path, bundle: JSON.parse(readFileSync(path, 'utf8')) as Bundle };
}

/** The refusal: its exact code, exit and ids, nothing issued, the store unchanged. */
function expectUnreviewable(stage: string, slot: string, ids: readonly string[]): void {
  const before = storeDigestAt(s.w.home);
  const files = bundleFiles();
  const r = gov(s.w, [...challengeArgs(stage, slot), '--json']);
  const out = JSON.parse(r.stdout) as { ok: boolean; error?: { code: string; ids: string[] } };
  expect({ exit: r.code, ok: out.ok, code: out.error?.code, ids: out.error?.ids }).toEqual({ exit: 8, ok: false, code: 'preservation_surface_unreviewable', ids });
  expect(storeDigestAt(s.w.home)).toBe(before);
  expect(bundleFiles()).toEqual(files);
}

/** The pinned coverage reviewer on a bundle file, as the sandbox starts it (exit 0 and one output). */
function pinnedReview(path: string): { verdict: string; findings: unknown[]; coverage: { surfaces: string[] } } {
  const r = spawnSync(process.execPath, [COVERAGE], { env: { GOVERNED_BUNDLE: path }, encoding: 'utf8', cwd: '/tmp' });
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as never;
}

function change(files: Record<string, string>, message: string): void {
  const lease = govOk(s.w, ['lease', 'acquire', '--unit', s.unit, '--writer-session', SESSION]).lease as string;
  for (const [path, text] of Object.entries(files)) s.w.repo.write(path, text);
  govOk(s.w, ['lease', 'release', '--lease', lease, '--writer-session', SESSION]);
  s.subject = s.w.repo.commitAll(message);
}

const requestContract = (state: 'active' | 'done'): Record<string, unknown> => {
  const doc = contractDoc({ state, extraImplPaths: ['bin/greet.js'] }) as { directives: { state: string }[] };
  for (const d of doc.directives) d.state = state === 'done' ? 'done' : d.state;
  return doc;
};

beforeAll(async () => {
  if (!IS_ROOT) return;
  const dir = tempDir('gvd-pres-views-keys-');
  keys = makeKeys(dir);
  probeKey = makeKey(dir, 'probe');
  attestors = tempDir('gvd-pres-views-attestors-');
  copyFileSync(ATTESTOR, join(attestors, 'probe.mjs'));
  const cfg = JSON.stringify({ credential: 'probe', kind: 'probe', key_id: probeKey.keyId, key_ref: probeKey.privateKeyPath });
  writeFileSync(join(attestors, 'probe.json'), cfg);
  const bw = await inspectBwrap('/usr/bin/bwrap');
  const base = planningRequiredPolicy(keys) as { sandbox: Record<string, unknown>; credentials: Record<string, unknown> };
  const policy = {
    ...base,
    preservation: 'required',
    sandbox: { ...base.sandbox, bwrap_sha256: [bw.sha256], profile_sha256: [staticProfileSha256('check')], seccomp_sha256: [sha(seccompBlob())] },
    credentials: { ...base.credentials, probe: { key_id: probeKey.keyId, attestor_sha256: [sha(readFileSync(ATTESTOR))], attestor_config_sha256: [sha(cfg)] } },
    controls: ['deploy_gate', 'real_entry_probes', 'incident_history'],
    preservation_adapters: { sha256: [sha(readFileSync(ADAPTER))], interpreter: '/usr/bin/node' },
  };
  const w = makeWorld({ policy, keys, baselineFiles: PRODUCT, contract: requestContract('active') });
  writeJsonFile(w.trustFile, trustRootDoc([...['reviewer', 'runner', 'gate', 'log', 'authority'].map((r) => ({ key: keys[r as keyof Keys], roles: [r] as never })), { key: probeKey, roles: ['probe'] }]));
  const unit = setupUnit(w, SESSION);
  s = { w, unit, policyDigest: policyDigestOf(w), baseline: w.baseline, subject: w.baseline, receipts: [] };
  const contract = {
    kind: 'governed/preservation-contract',
    version: 1,
    baseline: w.baseline,
    intent: 'Keep the greet command and the library export.',
    surfaces: [
      { id: 'SURF-cli', kind: 'cli_command', paths: ['bin', 'package.json'], disposition: 'preserve', probe: 'bin:greet', baseline_evidence_id: 'EVD-cli-b', current_evidence_id: 'EVD-cli-c' },
      { id: 'SURF-lib', kind: 'library_export', paths: ['lib', 'src', 'test'], disposition: 'extend', probe: 'export:.', baseline_evidence_id: 'EVD-lib-b', current_evidence_id: 'EVD-lib-c' },
    ],
    vendor_sources: [],
  };
  govOk(w, ['preservation', 'set', '--unit', unit, '--contract', writeJsonFile(join(w.dir, 'preservation.json'), contract)]);
}, 240_000);
afterAll(() => cleanupDirs());

describe.skipIf(!IS_ROOT)('the preservation section in the review views (policy requires preservation)', () => {
  it('planning before any probe: preservation_surface_unreviewable (8) for both views that show preservation; store unchanged; source_fidelity (withheld) is issued', () => {
    expectUnreviewable('planning', 'baseline_preservation', SURFACES);
    expectUnreviewable('planning', 'authority_release', SURFACES);
    // Positive control: a view that withholds the section is not blocked, and does not carry it.
    const sf = issued('planning', 'source_fidelity');
    expect(sf.bundle.view.withheld).toContain('preservation');
    expect('preservation' in sf.bundle.sections).toBe(false);
  });

  it('after the baseline probes: both views carry the contract, the signed baseline probes and the incident history; the pinned reviewer is CLEAN', () => {
    probe('baseline');
    const bp = issued('planning', 'baseline_preservation');
    const p = bp.bundle.sections.preservation;
    expect(bp.bundle.coverage.surfaces).toEqual(SURFACES);
    expect(p?.surfaces.map((x) => [x.id, x.disposition, x.probe, x.diff_digest])).toEqual([
      ['SURF-cli', 'preserve', 'bin:greet', null],
      ['SURF-lib', 'extend', 'export:.', null],
    ]);
    expect(p?.probes.map((x) => [x.surface, x.phase, x.exit_code])).toEqual([
      ['SURF-cli', 'baseline', 0],
      ['SURF-lib', 'baseline', 0],
    ]);
    expect(p?.probes[0]?.capabilities).toEqual(expect.arrayContaining(['command:bye', 'command:hello']));
    // Every probe receipt named is one governed recorded (signed, in the log).
    const db = new Database(join(s.w.home, 'governed.db'), { readonly: true });
    try {
      const stored = new Set((db.prepare("SELECT id FROM probe_receipts WHERE phase = 'baseline'").pluck().all() as string[]));
      expect(p?.probes.every((x) => stored.has(x.receipt_id))).toBe(true);
    } finally {
      db.close();
    }
    const ar = issued('planning', 'authority_release');
    const h = ar.bundle.sections.preservation?.incident_history ?? [];
    expect(h.map((i) => i.kind)).toEqual(['directives']);
    expect(ar.bundle.sections.preservation?.binding.incident_history).toMatch(/^sha256:/);
    for (const b of [bp, ar]) {
      const out = pinnedReview(b.path);
      expect({ verdict: out.verdict, surfaces: out.coverage.surfaces }).toEqual({ verdict: 'CLEAN', surfaces: SURFACES });
    }
  }, 240_000);

  it('integration: without a current probe of the content judged, refused (8, store unchanged); with it, a broken CLI entry is a CRITICAL preservation_regression of the pinned reviewer', () => {
    rounds(s, 'planning', 2);
    change({ 'bin/greet.js': "#!/usr/bin/env node\nthrow new Error('moved elsewhere');\n", 'src/export.ts': 'export const csv = 1;\n' }, 'the export; greet broken');
    govOk(s.w, ['unit', 'bind', '--unit', s.unit, '--contract', writeJsonFile(join(s.w.dir, 'contract-done.json'), requestContract('done'))]);
    expectUnreviewable('integration', 'baseline_preservation', SURFACES);
    probe('current');
    const bp = issued('integration', 'baseline_preservation');
    const p = bp.bundle.sections.preservation;
    expect(p?.probes.map((x) => [x.surface, x.phase])).toEqual([
      ['SURF-cli', 'baseline'],
      ['SURF-cli', 'current'],
      ['SURF-lib', 'baseline'],
      ['SURF-lib', 'current'],
    ]);
    expect(p?.probes.find((x) => x.surface === 'SURF-cli' && x.phase === 'current')?.exit_code).not.toBe(0);
    expect(p?.surfaces.every((x) => /^sha256:/.test(x.diff_digest ?? ''))).toBe(true);
    const out = pinnedReview(bp.path);
    expect({ verdict: out.verdict, findings: out.findings }).toEqual({
      verdict: 'DIRTY',
      findings: [{ code: 'preservation_regression', class: 'preservation', severity: 'CRITICAL', refs: ['SURF-cli'] }],
    });
    // The library surface kept everything: the same reviewer on the restored entry is CLEAN (positive control).
    change({ 'bin/greet.js': GREET }, 'greet restored');
    probe('current');
    const fixed = issued('integration', 'baseline_preservation');
    expect(pinnedReview(fixed.path).verdict).toBe('CLEAN');
  }, 400_000);
});
