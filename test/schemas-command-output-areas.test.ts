// The --json objects of review-pass (non-governed and governed), run reap, preservation set / probe /
// check / correct and runnerd setup / serve / hello / doctor (src/core/command-output-areas.ts) as
// the real CLI prints them, judged by their published JSON Schemas (docs/schemas/, ajv draft 2020-12,
// an independent validator) and by the one zod/mini definition; one mutated document per schema is
// refused by both. The documents come from real stories: scripted reviewers in the real sandbox,
// governed review-runs through real bubblewrap, probes of a real Node product by the allowlisted
// adapter in the check sandbox, and a real runnerd daemon under its own system users (prefix gvd-h3).
// Preservation and runnerd need root (visibly skipped otherwise).
import { chmodSync, copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AREA_OUTPUTS } from '../src/core/command-output-areas.js';
import { publishedDefinition } from '../src/core/json-schemas.js';
import { staticProfileSha256 } from '../runner/sandbox/profile.js';
import { inspectBwrap } from '../runner/sandbox/bwrap.js';
import { seccompBlob } from '../runner/sandbox/index.js';
import { ATTESTOR, jsonOut, REPO_ROOT, runCli } from './helpers/cli.js';
import { makeKey, trustRootDoc } from './helpers/receipts.js';
import { planningRequiredPolicy, SESSION } from './gate-world.js';
import { cleanupDirs, contractDoc, gov, makeKeys, makeWorld, setupUnit, tempDir, writeJsonFile, type Keys } from './state-helpers.js';
import { makeRunWorld } from './run-helpers.js';
import { scriptedRepo, scriptedTool } from './review-pass-helpers.js';
import { asUser, common, makeSepWorld, namesFor, removeSepUsers, root, startDaemon, type Daemon, type SepWorld } from './runnerd-helpers.js';

type Json = Record<string, unknown>;
type Stem = keyof typeof AREA_OUTPUTS;
const IS_ROOT = process.geteuid?.() === 0;
const STEMS = Object.keys(AREA_OUTPUTS) as Stem[];

/** The one definition as published (a printed --json object carries schema_version and exit: src/core/json-style-schema.ts). */
function definitionOf(stem: Stem): { safeParse(d: unknown): { success: boolean; error?: { issues: unknown[] } } } {
  const d = publishedDefinition(stem);
  if (d === undefined) throw new Error(`no published definition for ${stem}`);
  return d;
}
/** What needs root: preservation probes run in the check sandbox; runnerd makes system users. */
const ROOT_ONLY = new Set<Stem>(['preservation-set', 'preservation-correct', 'preservation-probe', 'preservation-check', 'runnerd-setup', 'runnerd-doctor', 'runnerd-hello', 'runnerd-serve-line']);
/** Published but not produced here (the test says so rather than pretend): vendor-attest needs an origin repository story. */
const NOT_PRODUCED = new Set<Stem>(['preservation-vendor-attest']);
const ajv = new Ajv2020({ strict: false, allErrors: false });
const validators = Object.fromEntries(STEMS.map((s) => [s, ajv.compile(JSON.parse(readFileSync(join(REPO_ROOT, 'docs', 'schemas', `${s}.schema.json`), 'utf8')) as Json)]));
const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
const ADAPTER = join(REPO_ROOT, 'runner', 'preservation', 'node-adapter.mjs');
const NAMES = namesFor('gvd-h3');

const docs: [Stem, string, Json][] = [];
const cleanups: (() => void | Promise<unknown>)[] = [];

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanupDirs();
  if (IS_ROOT) removeSepUsers(NAMES);
});

function reviewPassStories(): void {
  // Non-governed: scripted reviewers in the real read-only sandbox, one CLEAN and one NOT_CLEAN pass.
  for (const [what, yaml, exit] of [
    ['review-pass CLEAN', `tools:\n  alpha: ${scriptedTool('text-clean', { prompt: 'file' })}\nstages:\n  development: { reviewers: [alpha], convergence: 2 }\n`, 0],
    [
      'review-pass NOT_CLEAN (a confirmed finding; a third reviewer fails)',
      `tools:\n  alpha: ${scriptedTool('text-clean')}\n  beta: ${scriptedTool('text-solo', { args: ['src/app.js', '3', 'HIGH'] })}\n  gamma: ${scriptedTool('fail')}\n  arb: ${scriptedTool('arbiter', { args: ['CONFIRMED'] })}\nstages:\n  development: { reviewers: [alpha, beta, gamma], arbiter: arb }\n`,
      9,
    ],
  ] as const) {
    const repo = scriptedRepo({ 'review-pass.yaml': yaml });
    cleanups.push(() => {
      repo.cleanup();
      rmSync(`${repo.root}-out`, { recursive: true, force: true });
    });
    const r = runCli(['review-pass', '--stage', 'development', '--out', `${repo.root}-out`, '--json'], { cwd: repo.root });
    expect(r.code, r.stderr).toBe(exit);
    docs.push(['review-pass', what, jsonOut(r)]);
  }
}

async function governedStories(): Promise<void> {
  const w = await makeRunWorld({ modes: ['clean'] });
  const out = join(tempDir('gvd-h3-rp-out-'), 'out');
  const r = gov(w, ['review-pass', '--unit', w.unit, '--stage', 'development', '--writer-session', 'agent-1', '--reviewers-dir', w.reviewersDir, '--attestors', w.attestorsDir, '--out', out, '--json']);
  expect(r.code, r.stderr).toBe(0);
  docs.push(['review-pass-governed', 'review-pass --unit (two CLEAN rounds)', jsonOut(r)]);
  const reap = gov(w, ['run', 'reap', '--unit', w.unit, '--json']);
  expect(reap.code, reap.stderr).toBe(0);
  docs.push(['run-reap', 'run reap (nothing stale)', jsonOut(reap)]);
}

const HELP = 'usage: greet <command>\n\nCommands:\n  hello   say hello\n';
const PRODUCT = {
  'package.json': JSON.stringify({ name: 'greeter', version: '1.0.0', type: 'module', bin: { greet: 'bin/greet.js' }, exports: { '.': './lib/index.js' } }, null, 2),
  'bin/greet.js': `#!/usr/bin/env node\nif (process.argv.includes('--help')) { process.stdout.write(${JSON.stringify(HELP)}); process.exit(0); }\nprocess.stdout.write('hello\\n');\n`,
  'lib/index.js': "export const greet = (n) => 'hello ' + n;\n",
};

async function preservationStory(): Promise<void> {
  const dir = tempDir('gvd-h3-pres-keys-');
  const keys: Keys = makeKeys(dir);
  const probeKey = makeKey(dir, 'probe');
  const attestors = tempDir('gvd-h3-pres-att-');
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
    preservation_adapters: { sha256: [sha(readFileSync(ADAPTER))], interpreter: '/usr/bin/node' },
  };
  const w = makeWorld({ policy, keys, baselineFiles: PRODUCT, contract: contractDoc({ state: 'active', extraImplPaths: ['bin/greet.js'] }) });
  writeJsonFile(w.trustFile, trustRootDoc([...(['reviewer', 'runner', 'gate', 'log', 'authority'] as const).map((r) => ({ key: keys[r], roles: [r] as never })), { key: probeKey, roles: ['probe'] as never }]));
  const unit = setupUnit(w, SESSION);
  const run = (args: string[], stem: Stem, what: string, exit = 0): Json => {
    const r = gov(w, [...args, '--json']);
    expect(r.code, `${what}: ${r.stdout} ${r.stderr}`).toBe(exit);
    const out = jsonOut(r);
    docs.push([stem, what, out]);
    return out;
  };
  // Before any contract: check reports the missing contract (ok false, exit 3).
  run(['preservation', 'check', '--unit', unit], 'preservation-check', 'preservation check (no contract bound)', 3);
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
  run(['preservation', 'set', '--unit', unit, '--contract', writeJsonFile(join(w.dir, 'preservation.json'), contract)], 'preservation-set', 'preservation set');
  run(['preservation', 'probe', '--unit', unit, '--phase', 'baseline', '--adapter', ADAPTER, '--attestors', attestors], 'preservation-probe', 'preservation probe (baseline, with the inventory)');
  run(['preservation', 'probe', '--unit', unit, '--phase', 'current', '--adapter', ADAPTER, '--attestors', attestors], 'preservation-probe', 'preservation probe (current)');
  run(['preservation', 'check', '--unit', unit], 'preservation-check', 'preservation check (satisfied)');
  const note = join(w.dir, 'correction.txt');
  writeFileSync(note, 'The outage of last week was the export, not the CLI.\n');
  run(['preservation', 'correct', '--unit', unit, '--file', note], 'preservation-correct', 'preservation correct');
}

async function runnerdStory(): Promise<void> {
  removeSepUsers(NAMES);
  const w: SepWorld = await makeSepWorld({ names: NAMES, modes: ['clean'] });
  docs.push(['runnerd-setup', 'runnerd setup (with the store)', w.setupOut]);
  const d: Daemon = await startDaemon(w);
  let stopped = false;
  cleanups.push(async () => {
    if (!stopped) await d.stop();
  });
  docs.push(['runnerd-serve-line', 'runnerd serve (ready)', d.ready]);
  const hello = asUser(NAMES.writer1, ['runnerd', 'hello', '--runner', w.socket, '--json']);
  expect(hello.code, hello.stderr).toBe(0);
  docs.push(['runnerd-hello', 'runnerd hello as a writer', jsonOut(hello)]);
  const doctor = root(['runnerd', 'doctor', ...common(w), '--json']);
  expect(doctor.code, doctor.stdout).toBe(0);
  docs.push(['runnerd-doctor', 'runnerd doctor (all right)', jsonOut(doctor)]);
  await d.stop();
  stopped = true;
  // Every JSON line the daemon printed (the ready line, and the stopped line when it got out before exit).
  for (const line of d.stdout().split('\n').filter((l) => l.startsWith('{'))) docs.push(['runnerd-serve-line', 'runnerd serve (a line)', JSON.parse(line) as Json]);
  chmodSync(join(w.base, 'state'), 0o777);
  // Findings print the command-error object (judged by test/cli-json-error-envelope.test.ts).
  const broken = root(['runnerd', 'doctor', ...common(w), '--json']);
  expect(broken.code).toBe(4);
  expect((jsonOut(broken).error as { code: string }).code).toBe('runnerd_state_unsafe');
}

beforeAll(async () => {
  reviewPassStories();
  await governedStories();
  if (IS_ROOT) {
    await preservationStory();
    await runnerdStory();
  }
}, 600_000);

/** One mutation per schema that the published schema and the one definition must both refuse. */
const MUTATIONS: Record<Stem, (d: Json) => void> = {
  'review-pass': (d) => ((d.reviewers as Json[])[0]!.stderr = 'a reviewer said'),
  'review-pass-governed': (d) => (d.advisory = false),
  'run-reap': (d) => (d.aborted = ['not a run id']),
  'preservation-set': (d) => (d.contract_digest = 'sha256:xyz'),
  'preservation-correct': (d) => (d.correction_text = 'the text'),
  'preservation-probe': (d) => (d.phase = 'later'),
  'preservation-vendor-attest': (d) => (d.vendors = ['vendor/pad']),
  'preservation-check': (d) => (d.reasons = [{ code: 'not_a_code', ids: [] }]),
  'runnerd-setup': (d) => ((d.credentials as Json).gate = { key_id: 'a'.repeat(64), attestor_sha256: 'a'.repeat(64), attestor_config_sha256: 'a'.repeat(64) }),
  'runnerd-doctor': (d) => (d.ok = false),
  'runnerd-hello': (d) => (d.trust_mode = 'co-located'),
  'runnerd-serve-line': (d) => (d.private_key = 'k'),
};

describe('the --json objects of review-pass, run reap, preservation * and runnerd *', () => {
  it('every schema has at least one real document (root-only stories aside when not root; vendor-attest is not produced here)', () => {
    const expected = STEMS.filter((s) => !NOT_PRODUCED.has(s) && (IS_ROOT || !ROOT_ONLY.has(s))).sort();
    expect([...new Set(docs.map(([s]) => s))].sort()).toEqual(expected);
  });
  it('ajv and the one definition accept every real document', () => {
    for (const [stem, what, doc] of docs) {
      expect(validators[stem]!(doc), `${what}: ${JSON.stringify(validators[stem]!.errors?.slice(0, 2))}`).toBe(true);
      const r = definitionOf(stem).safeParse(doc);
      expect(r.success, `${what}: ${JSON.stringify(r.error?.issues.slice(0, 2))}`).toBe(true);
    }
  });
  it.each(STEMS.filter((s) => !NOT_PRODUCED.has(s)))('%s: one mutated document is refused by both', (stem) => {
    const found = docs.find(([s]) => s === stem);
    if (found === undefined) {
      expect(IS_ROOT && ROOT_ONLY.has(stem)).toBe(false);
      return;
    }
    const d = structuredClone(found[2]);
    MUTATIONS[stem](d);
    expect(validators[stem]!(d)).toBe(false);
    expect(definitionOf(stem).safeParse(d).success).toBe(false);
  });
  it('vendor-attest: a hand-made document of the shape the command prints is accepted and its mutation refused (no real origin story here)', () => {
    const d: Json = { ok: true, unit: `UNIT-${'0'.repeat(32)}`, vendors: ['VND-pad'], schema_version: 1, exit: 0 };
    expect(validators['preservation-vendor-attest']!(d)).toBe(true);
    MUTATIONS['preservation-vendor-attest'](d);
    expect(validators['preservation-vendor-attest']!(d)).toBe(false);
    expect(definitionOf('preservation-vendor-attest').safeParse(d).success).toBe(false);
  });
  it('both shapes of the alternatives were seen', () => {
    const of = (stem: Stem): Json[] => docs.filter(([s]) => s === stem).map(([, , d]) => d);
    expect(of('review-pass').map((d) => d.result).sort()).toEqual(['CLEAN', 'NOT_CLEAN']);
    if (!IS_ROOT) return;
    expect(of('preservation-check').map((d) => d.ok).sort()).toEqual([false, true]);
    expect(of('preservation-probe').map((d) => d.inventory === null).sort()).toEqual([false, true]);
    expect(of('runnerd-serve-line').some((d) => 'ready' in d)).toBe(true);
  });
});
