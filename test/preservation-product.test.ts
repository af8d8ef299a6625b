// Preservation end to end on a real small product (docs/preservation.md): a git repository with a CLI
// command (`greet`) and a library export that imports a dependency under node_modules. Real bwrap
// (check profile), the real Node adapter (allowlisted by sha256), real Ed25519 keys and the pinned
// attestor's `probe` kind. What it shows:
//   - baseline probes (inventory + two signed probe receipts); a change that keeps everything is
//     satisfied; a change that breaks the CLI entry (files kept) is `preservation_capability_lost`;
//   - the same removal with a signed `remove` record and the real diff digest is accepted; with a
//     wrong diff digest it is refused;
//   - attacks: a hand-written "adapter" (probe JSON) and an edited adapter are not allowlisted; a probe
//     of a stale snapshot does not count; a sealed baseline altered after sealing is refused; a moved
//     baseline branch changes nothing; an undisclosed and a missing surface; a vendor origin that is
//     the product itself (the local copy).
// Every refusal asserts its code and that the store did not change.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs build script without type declarations
import { buildPinned } from '../scripts/pinned-build.mjs';
import { isGovernedError } from '../src/core/errors.js';
import { surfaceDiffDigest } from '../src/core/preservation/rules.js';
import { buildProbeStatement } from '../src/core/preservation/probe.js';
import { canonicalBytes, sha256Digest } from '../src/core/canonical.js';
import { closeStore, initStore, mutate, openStore, recordAuthority, requestAuthority, tablesDigest } from '../src/store/index.js';
import { computeCommitManifest, computeWorkspaceManifest, diffManifests } from '../src/workspace/index.js';
import { makeSealRoot, removeSealed, sealCommit, verifySealed } from '../src/workspace/snapshot.js';
import { originDigest } from '../src/workspace/vendor-origin.js';
import { setPreservationFlow } from '../src/flows/preservation/set.js';
import { probePreservationFlow } from '../src/flows/preservation/probe.js';
import { checkPreservationFlow, vendorAttestFlow } from '../src/flows/preservation/check.js';
import { statusFlow } from '../src/flows/decide/status.js';
import { createUnitFlow } from '../src/flows/unit-create.js';
import { buildAuthorityStatement } from '../src/core/authority/predicate.js';
import { staticProfileSha256 } from '../runner/sandbox/profile.js';
import { inspectBwrap } from '../runner/sandbox/bwrap.js';
import { seccompBlob } from '../runner/sandbox/index.js';
import { makeKey, trustRootDoc, type TestKey } from './helpers/receipts.js';
import { payloadOf, signPayload } from './authority-helpers.js';
import { REPO_ROOT } from './helpers/cli.js';

const IS_ROOT = process.geteuid?.() === 0;
const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t', HOME: '/nonexistent', PATH: '/usr/bin:/bin' };
const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();

const ADAPTER = join(REPO_ROOT, 'runner', 'preservation', 'node-adapter.mjs');
const HELP = 'usage: greet <command>\n\nCommands:\n  hello   say hello\n  bye     say goodbye\n\nOptions:\n  --loud  shout\n';
const GREET = `#!/usr/bin/env node\nif (process.argv.includes('--help')) { process.stdout.write(${JSON.stringify(HELP)}); process.exit(0); }\nprocess.stdout.write('hello\\n');\n`;
const LIB = "import pad from 'leftpad';\nexport const greet = (n) => pad('hello ' + n);\nexport const VERSION = '1.0.0';\n";

let dir: string;
let keys: { human: TestKey; probe: TestKey };
let attestors: string;
let policy: Record<string, unknown>;
const roots: string[] = [];

function tmp(label: string): string {
  const d = mkdtempSync(join(tmpdir(), `gvd-pres-${label}-`));
  chmodSync(d, 0o755);
  roots.push(d);
  return d;
}

function product(): { repo: string; baseline: string } {
  const repo = tmp('product');
  mkdirSync(join(repo, 'bin'));
  mkdirSync(join(repo, 'lib'));
  mkdirSync(join(repo, 'test'));
  mkdirSync(join(repo, 'node_modules', 'leftpad'), { recursive: true });
  writeFileSync(join(repo, 'package.json'), JSON.stringify({ name: 'greeter', version: '1.0.0', type: 'module', bin: { greet: 'bin/greet.js' }, exports: { '.': './lib/index.js' } }, null, 2));
  writeFileSync(join(repo, 'bin', 'greet.js'), GREET);
  writeFileSync(join(repo, 'lib', 'index.js'), LIB);
  writeFileSync(join(repo, 'test', 'greet.test.js'), '// tests\n');
  writeFileSync(join(repo, '.gitignore'), 'node_modules\n');
  writeFileSync(join(repo, 'node_modules', 'leftpad', 'package.json'), JSON.stringify({ name: 'leftpad', version: '1.0.0', type: 'module', exports: './index.js' }));
  writeFileSync(join(repo, 'node_modules', 'leftpad', 'index.js'), "export default (s) => '  ' + s;\n");
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'baseline');
  return { repo, baseline: git(repo, 'rev-parse', 'HEAD') };
}

function contract(baseline: string, surfaces?: unknown[]): Record<string, unknown> {
  return {
    kind: 'governed/preservation-contract',
    version: 1,
    baseline,
    intent: 'Keep the greet command and the library export.',
    surfaces: surfaces ?? [
      { id: 'SURF-cli', kind: 'cli_command', paths: ['bin', 'package.json'], disposition: 'preserve', probe: 'bin:greet', baseline_evidence_id: 'EVD-cli-b', current_evidence_id: 'EVD-cli-c' },
      { id: 'SURF-lib', kind: 'library_export', paths: ['lib', 'test'], disposition: 'extend', probe: 'export:.', baseline_evidence_id: 'EVD-lib-b', current_evidence_id: 'EVD-lib-c' },
    ],
    vendor_sources: [],
  };
}

interface World {
  readonly repo: string;
  readonly baseline: string;
  readonly home: string;
  readonly unit: string;
}

async function world(): Promise<World> {
  const { repo, baseline } = product();
  const home = join(tmp('home'), 'state');
  const now = Math.floor(Date.now() / 1000) - 20;
  const store = initStore(home, {
    policyBytes: Buffer.from(JSON.stringify(policy)),
    trustBytes: Buffer.from(JSON.stringify(trustRootDoc([{ key: keys.human, roles: ['authority'] }, { key: keys.probe, roles: ['probe'] }]))),
    now,
  });
  closeStore(store);
  // `unit create` with an empty request contract (this test is about preservation): unit + scope version 1.
  const rc = join(tmp('rc'), 'contract.json');
  writeFileSync(rc, JSON.stringify({ kind: 'governed/request-contract', version: 1, title: 'greeter', sources: [], directives: [], implementations: [], evidence: [], authorities: [], tombstones: [] }));
  const { unitId } = await createUnitFlow({ home, contractFile: rc, baseline, repo, now: now + 1 });
  return { repo, baseline, home, unit: unitId };
}

const NOW = (): number => Math.floor(Date.now() / 1000);
function setContract(w: World, doc: unknown, authorities: string[] = []) {
  const f = join(tmp('c'), 'p.json');
  writeFileSync(f, JSON.stringify(doc));
  return setPreservationFlow({ home: w.home, unit: w.unit, contractFile: f, authorities, noIncidentHistory: false, now: NOW() });
}
const probe = (w: World, phase: 'baseline' | 'current', adapter = ADAPTER) =>
  probePreservationFlow({ home: w.home, unit: w.unit, repo: w.repo, phase, surface: null, adapter, attestorsDir: attestors, now: NOW() });
const check = (w: World) => checkPreservationFlow({ home: w.home, unit: w.unit, repo: w.repo, origins: new Map(), now: NOW() });
const codes = async (w: World): Promise<{ code: string; ids: readonly string[] }[]> => [...((await check(w)).report?.violations ?? [])];

function storeDigest(w: World): string {
  const s = openStore(w.home);
  try {
    return tablesDigest(s);
  } finally {
    closeStore(s);
  }
}
async function refusedUnchanged(w: World, code: string, fn: () => Promise<unknown> | unknown): Promise<void> {
  const before = storeDigest(w);
  let got = 'none';
  try {
    await fn();
  } catch (e) {
    if (!isGovernedError(e)) throw e;
    got = e.code;
  }
  expect(got).toBe(code);
  expect(storeDigest(w)).toBe(before);
}

/** A signed `remove` record for SURF-cli with `digest` as its state_after (the human's approval). */
function removeRecord(w: World, digest: string): string {
  const s = openStore(w.home);
  try {
    const req = requestAuthority(s, { operation: 'remove', ids: ['SURF-cli'], unit: w.unit, stateBefore: null, stateAfter: digest, ttlSeconds: 3600, now: NOW() });
    return recordAuthority(s, { envelope: signPayload(payloadOf(buildAuthorityStatement(req.statement.predicate)), [keys.human]), now: NOW() }).recordId;
  } finally {
    closeStore(s);
  }
}

beforeAll(async () => {
  if (!IS_ROOT) return;
  dir = tmp('keys');
  keys = { human: makeKey(join(dir, 'k'), 'authority'), probe: makeKey(join(dir, 'k'), 'probe') };
  attestors = tmp('attestors');
  await buildPinned('attestors/src/ed25519-file.ts', join(attestors, 'probe.mjs'), REPO_ROOT);
  const cfg = JSON.stringify({ credential: 'probe', kind: 'probe', key_id: keys.probe.keyId, key_ref: keys.probe.privateKeyPath });
  writeFileSync(join(attestors, 'probe.json'), cfg);
  const bw = await inspectBwrap('/usr/bin/bwrap');
  const H = (c: string) => c.repeat(64);
  const cred = (c: string) => ({ key_id: H(c), attestor_sha256: [H('e')], attestor_config_sha256: [H('f')] });
  policy = {
    kind: 'governed/policy',
    version: 1,
    trust_mode: 'co-located',
    accept_co_located: true,
    challenge_ttl: '10m',
    max_runs_per_content: 12,
    product_roots: ['.'],
    exclude: ['.governed', 'node_modules'],
    preservation: 'required',
    stages: { development: { required: true, streak: 2, slots: { coverage: 'coverage' } } },
    reviewers: { coverage: { sha256: H('1'), interpreter: '/usr/bin/node', env: {} } },
    sandbox: { bwrap_sha256: [bw.sha256], profile_sha256: [staticProfileSha256('check')], seccomp_sha256: [sha(seccompBlob())], uid: 64500, timeout: '60s', memory: '2GiB', max_output: '1MiB', max_bundle: '64MiB' },
    credentials: {
      reviewer: cred('5'),
      runner: cred('6'),
      gate: cred('7'),
      log: cred('8'),
      probe: { key_id: keys.probe.keyId, attestor_sha256: [sha(readFileSync(join(attestors, 'probe.mjs')))], attestor_config_sha256: [sha(cfg)] },
    },
    controls: ['deploy_gate'],
    preservation_adapters: { sha256: [sha(readFileSync(ADAPTER))], interpreter: '/usr/bin/node', dependency_root: 'node_modules' },
  };
}, 120_000);
afterAll(() => {
  for (const d of roots) rmSync(d, { recursive: true, force: true });
});

describe.skipIf(!IS_ROOT)('preservation on a real product', () => {
  it('baseline probes; a kept change is satisfied; a broken CLI entry is capability lost; removal with the right / a wrong diff digest', async () => {
    const w = await world();
    setContract(w, contract(w.baseline));
    const base = await probe(w, 'baseline');
    expect(base.inventory).toBe(2);
    const cli = base.probes.find((p) => p.surface === 'SURF-cli');
    const lib = base.probes.find((p) => p.surface === 'SURF-lib');
    expect(cli?.exitCode).toBe(0);
    expect(cli?.capabilities).toEqual(['command:bye', 'command:hello', 'option:--loud']);
    expect(lib?.exitCode).toBe(0);
    expect(lib?.capabilities).toEqual(['export:VERSION', 'export:greet']);
    // Without current probes nothing is satisfied.
    expect((await codes(w)).map((v) => v.code)).toEqual(['preservation_probe_missing', 'preservation_probe_missing']);

    // A change that keeps everything (and extends the library).
    writeFileSync(join(w.repo, 'lib', 'index.js'), `${LIB}export const shout = (n) => n.toUpperCase();\n`);
    await probe(w, 'current');
    expect(await codes(w)).toEqual([]);

    // The CLI entry silently dropped: the file is kept, the entry is broken.
    writeFileSync(join(w.repo, 'bin', 'greet.js'), `${GREET.split('\n')[0]}\nthrow new Error('gone');\n`);
    // Stale: the current probes ran on the previous snapshot, so they no longer count.
    expect((await codes(w)).map((v) => v.code)).toEqual(['preservation_probe_missing', 'preservation_probe_missing']);
    await probe(w, 'current');
    const lost = await codes(w);
    expect(lost).toEqual([{ code: 'preservation_capability_lost', ids: ['SURF-cli', 'reachability', 'capability:command:bye', 'capability:command:hello', 'capability:option:--loud'] }]);
    // The delivery state carries it (status: REVIEW_ONLY with the preservation reasons).
    const st = await statusFlow({ home: w.home, unit: w.unit, repo: w.repo, clock: NOW });
    expect(st.state).toBe('REVIEW_ONLY');
    expect(st.reasons.filter((r) => r.code.startsWith('preservation'))).toEqual([
      { code: 'preservation_unsatisfied', ids: ['SURF-cli'] },
      { code: 'preservation_capability_lost', ids: ['SURF-cli', 'reachability', 'capability:command:bye', 'capability:command:hello', 'capability:option:--loud'] },
    ]);
    expect(st.preservation).toMatchObject({ required: true, contract: true, incidentHistory: true, unsatisfiedSurfaces: ['SURF-cli'] });

    // The same removal with a signed `remove` record over the real diff digest: accepted.
    const scope = { productRoots: ['.'], exclude: ['.governed', 'node_modules'] };
    const changes = diffManifests((await computeCommitManifest(w.repo, w.baseline, scope)).entries, (await computeWorkspaceManifest(w.repo, scope)).entries);
    const real = surfaceDiffDigest({ id: 'SURF-cli', paths: ['bin', 'package.json'] }, changes);
    const removal = (digest: string, record: string) =>
      contract(w.baseline, [
        { id: 'SURF-cli', kind: 'cli_command', paths: ['bin', 'package.json'], disposition: 'remove', probe: 'bin:greet', baseline_evidence_id: 'EVD-cli-b', current_evidence_id: 'EVD-cli-c', authority_id: record, expected_diff_digest: digest },
        (contract(w.baseline).surfaces as unknown[])[1],
      ]);
    const wrongDigest = `sha256:${'0'.repeat(64)}`;
    const wrong = removeRecord(w, wrongDigest);
    setContract(w, removal(wrongDigest, wrong), [wrong]);
    expect(await codes(w)).toEqual([{ code: 'preservation_destructive_unauthorized', ids: ['SURF-cli'] }]);
    // The human approves the real diff instead. (Re-binding this unit's destructive fields would be
    // narrowing and need an `authorize` record too; a fresh unit shows the plain path.)
    const w2 = await world();
    setContract(w2, contract(w2.baseline));
    await probe(w2, 'baseline');
    writeFileSync(join(w2.repo, 'bin', 'greet.js'), `${GREET.split('\n')[0]}\nthrow new Error('gone');\n`);
    await probe(w2, 'current');
    const changes2 = diffManifests((await computeCommitManifest(w2.repo, w2.baseline, scope)).entries, (await computeWorkspaceManifest(w2.repo, scope)).entries);
    const real2 = surfaceDiffDigest({ id: 'SURF-cli', paths: ['bin', 'package.json'] }, changes2);
    expect(real2).toBe(real); // the same bytes changed the same way
    const right = removeRecord(w2, real2);
    setContract(w2, { ...removal(real2, right), baseline: w2.baseline }, [right]);
    expect(await codes(w2)).toEqual([]);
  }, 240_000);

  it('attacks: hand-written probe JSON and an edited adapter are not allowlisted; nothing is recorded', async () => {
    const w = await world();
    setContract(w, contract(w.baseline));
    const fake = join(tmp('fake'), 'probe.json');
    writeFileSync(fake, JSON.stringify({ kind: 'governed/probe-result', version: 1, entry: 'bin:greet', exit_code: 0, capabilities: ['command:hello'], output_digest: `sha256:${'1'.repeat(64)}` }));
    await refusedUnchanged(w, 'preservation_adapter_not_allowlisted', () => probe(w, 'baseline', fake));
    const edited = join(tmp('edited'), 'node-adapter.mjs');
    writeFileSync(edited, `${readFileSync(ADAPTER, 'utf8')}\n// edited\n`);
    await refusedUnchanged(w, 'preservation_adapter_not_allowlisted', () => probe(w, 'baseline', edited));
    // Positive control: the allowlisted adapter records.
    const before = storeDigest(w);
    await probe(w, 'baseline');
    expect(storeDigest(w)).not.toBe(before);
    // A probe receipt slipped into the log that the probe key did not sign does not count, even with
    // the right snapshot, adapter and entries; the same statement signed by the probe key does.
    const scope = { productRoots: ['.'], exclude: ['.governed', 'node_modules'] };
    const current = (await computeWorkspaceManifest(w.repo, scope)).digest;
    const forged = (key: TestKey, probedAt: string) => {
      const st = buildProbeStatement({
        unit: w.unit, phase: 'current', snapshot_digest: current, dependency_digest: null, adapter_sha256: sha(readFileSync(ADAPTER)), attestor_sha256: 'a'.repeat(64),
        results: [
          { surface: 'SURF-cli', evidence_id: 'EVD-cli-c', entry: 'bin:greet', exit_code: 0, capabilities: ['command:bye', 'command:hello', 'option:--loud'], output_digest: `sha256:${'1'.repeat(64)}` },
          { surface: 'SURF-lib', evidence_id: 'EVD-lib-c', entry: 'export:.', exit_code: 0, capabilities: ['export:VERSION', 'export:greet'], output_digest: `sha256:${'2'.repeat(64)}` },
        ],
        probed_at: probedAt,
      });
      const payload = canonicalBytes(st);
      const s = openStore(w.home);
      try {
        mutate(s, NOW(), (tx) => tx.append('probe_record', w.unit, { unit: w.unit, receipt: sha256Digest(payload), envelope_b64: signPayload(payload, [key]).toString('base64'), recorded_at: tx.now }));
      } finally {
        closeStore(s);
      }
    };
    forged(keys.human, '2026-12-01T00:00:00Z');
    expect((await codes(w)).map((v) => v.code)).toEqual(['preservation_probe_missing', 'preservation_probe_missing']);
    forged(keys.probe, '2026-12-01T00:00:01Z');
    expect(await codes(w)).toEqual([]);
  }, 120_000);

  it('undisclosed and missing surfaces; a moved baseline branch changes nothing', async () => {
    const w = await world();
    const only = (contract(w.baseline).surfaces as unknown[]).slice(0, 1);
    setContract(w, contract(w.baseline, [...only, { id: 'SURF-ghost', kind: 'cli_command', paths: ['lib', 'test'], disposition: 'preserve', probe: 'bin:ghost', baseline_evidence_id: 'EVD-g-b', current_evidence_id: 'EVD-g-c' }]));
    // bin:ghost is declared but not in the baseline: the adapter run for it reports exit 127.
    await probe(w, 'baseline');
    await probe(w, 'current');
    const v = await codes(w);
    expect(v.find((x) => x.code === 'preservation_surface_undisclosed')?.ids).toEqual(['export:.']);
    expect(v.find((x) => x.code === 'preservation_surface_missing')?.ids).toEqual(['SURF-ghost']);
    // Move the branch the baseline came from: the unit's baseline is the commit, never re-resolved.
    writeFileSync(join(w.repo, 'lib', 'index.js'), 'export const other = 1;\n');
    git(w.repo, 'commit', '-q', '-am', 'moved');
    const head = git(w.repo, 'rev-parse', 'HEAD');
    await refusedUnchanged(w, 'preservation_baseline_mismatch', () => setContract(w, contract(head)));
    const again = await probe(w, 'baseline');
    const scope = { productRoots: ['.'], exclude: ['.governed', 'node_modules'] };
    expect(again.snapshotDigest).toBe((await computeCommitManifest(w.repo, w.baseline, scope)).digest);
  }, 240_000);

  it('the same probe twice in one second is one receipt, recorded once (not store_constraint_violation)', async () => {
    const w = await world();
    setContract(w, contract(w.baseline));
    const rows = (): { id: string; log_seq: number }[] => {
      const s = openStore(w.home);
      try {
        return s.db.prepare("SELECT id, log_seq FROM probe_receipts WHERE unit = ? AND phase = 'baseline' ORDER BY log_seq").all(w.unit) as { id: string; log_seq: number }[];
      } finally {
        closeStore(s);
      }
    };
    const at = NOW();
    const once = (now: number) => probePreservationFlow({ home: w.home, unit: w.unit, repo: w.repo, phase: 'baseline', surface: null, adapter: ADAPTER, attestorsDir: attestors, now });
    const first = await once(at);
    // The second run signs the byte-identical statement (same unit, snapshot, results and second):
    // it succeeds with the same receipt and the store holds it once.
    const second = await once(at);
    expect(second.probes.map((p) => p.receipt)).toEqual(first.probes.map((p) => p.receipt));
    expect(first.probes[0]?.receipt).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(rows().map((r) => r.id)).toEqual([first.probes[0]?.receipt]);
    // Control: one second later the statement differs (its time), so it is a second receipt.
    const third = await once(at + 1);
    expect(third.probes[0]?.receipt).not.toBe(first.probes[0]?.receipt);
    expect(rows().map((r) => r.id)).toEqual([first.probes[0]?.receipt, third.probes[0]?.receipt]);
  }, 240_000);

  it('a sealed baseline altered after sealing is refused (snapshot_altered)', async () => {
    const { repo, baseline } = product();
    const scope = { productRoots: ['.'], exclude: ['.governed', 'node_modules'] };
    const root = makeSealRoot('test');
    try {
      const snap = await sealCommit({ repo, commit: baseline, scope, into: join(root, 's'), expectedDigest: (await computeCommitManifest(repo, baseline, scope)).digest });
      verifySealed(snap);
      chmodSync(join(snap.dir, 'bin'), 0o755);
      chmodSync(join(snap.dir, 'bin', 'greet.js'), 0o644);
      writeFileSync(join(snap.dir, 'bin', 'greet.js'), 'throw 1;\n');
      chmodSync(join(snap.dir, 'bin', 'greet.js'), 0o555);
      chmodSync(join(snap.dir, 'bin'), 0o555);
      let code = 'none';
      try {
        verifySealed(snap);
      } catch (e) {
        code = isGovernedError(e) ? e.code : 'other';
      }
      expect(code).toBe('snapshot_altered');
      // A baseline whose bytes are not the expected manifest is refused at sealing.
      let drift = 'none';
      try {
        await sealCommit({ repo, commit: baseline, scope, into: join(root, 't'), expectedDigest: `sha256:${'2'.repeat(64)}` });
      } catch (e) {
        drift = isGovernedError(e) ? e.code : 'other';
      }
      expect(drift).toBe('review_post_launch_drift');
    } finally {
      removeSealed(root);
    }
  });

  it('vendor origin: the digest is computed from the origin tree; the product itself (or a clone) is the local copy', async () => {
    const { repo, baseline } = product();
    const origin = tmp('origin');
    mkdirSync(join(origin, 'src'));
    writeFileSync(join(origin, 'src', 'pad.js'), 'export default 1;\n');
    git(origin, 'init', '-q', '-b', 'main');
    git(origin, 'add', '-A');
    git(origin, 'commit', '-q', '-m', 'o');
    const commit = git(origin, 'rev-parse', 'HEAD');
    const d = await originDigest({ vendor: 'VND-pad', originDir: origin, commit, path: 'src', productRoot: repo, productBaseline: baseline });
    expect(d).toMatch(/^sha256:/);
    const code = async (o: string, c: string): Promise<string> => {
      try {
        await originDigest({ vendor: 'VND-pad', originDir: o, commit: c, path: 'lib', productRoot: repo, productBaseline: baseline });
        return 'none';
      } catch (e) {
        return isGovernedError(e) ? e.code : 'other';
      }
    };
    expect(await code(repo, baseline)).toBe('vendor_origin_is_local_copy');
    const clone = join(tmp('clone'), 'c');
    execFileSync('git', ['clone', '-q', repo, clone], { env: GIT_ENV });
    expect(await code(clone, baseline)).toBe('vendor_origin_is_local_copy');
    expect(await code(origin, 'f'.repeat(40))).toBe('vendor_origin_unverifiable');
    // A local copy that drifted from the origin: the origin's digest is unchanged by it.
    copyFileSync(join(origin, 'src', 'pad.js'), join(origin, 'src', 'pad2.js'));
    expect(await originDigest({ vendor: 'VND-pad', originDir: origin, commit, path: 'src', productRoot: repo, productBaseline: baseline })).toBe(d);
  });

  it('vendor-attest: a recorded origin verification counts; a wrong digest or the local copy is refused and records nothing', async () => {
    const w = await world();
    const origin = tmp('vorigin');
    mkdirSync(join(origin, 'src'));
    writeFileSync(join(origin, 'src', 'pad.js'), 'export default 1;\n');
    git(origin, 'init', '-q', '-b', 'main');
    git(origin, 'add', '-A');
    git(origin, 'commit', '-q', '-m', 'o');
    const commit = git(origin, 'rev-parse', 'HEAD');
    const digest = await originDigest({ vendor: 'VND-pad', originDir: origin, commit, path: 'src', productRoot: w.repo, productBaseline: w.baseline });
    const withVendor = (treeDigest: string) => ({ ...contract(w.baseline), vendor_sources: [{ id: 'VND-pad', path: 'vendor/pad', disposition: 'import', origin: { repository: 'https://example.invalid/pad.git', commit, path: 'src', tree_digest: treeDigest } }] });
    setContract(w, withVendor(digest));
    const attest = (dirOf: string) => vendorAttestFlow({ home: w.home, unit: w.unit, repo: w.repo, origins: new Map([['VND-pad', dirOf]]), now: NOW() });
    expect((await codes(w)).some((v) => v.code === 'preservation_vendor_unattested')).toBe(true);
    await refusedUnchanged(w, 'vendor_origin_is_local_copy', () => attest(w.repo));
    await attest(origin);
    expect((await codes(w)).some((v) => v.code === 'preservation_vendor_unattested')).toBe(false);
    // A contract whose tree digest is the digest of a (modified) local copy, not of the origin tree.
    const w2 = await world();
    const local = `sha256:${'3'.repeat(64)}`;
    setContract(w2, { ...withVendor(local), baseline: w2.baseline });
    await refusedUnchanged(w2, 'vendor_origin_unverifiable', () => vendorAttestFlow({ home: w2.home, unit: w2.unit, repo: w2.repo, origins: new Map([['VND-pad', origin]]), now: NOW() }));
    expect((await codes(w2)).some((v) => v.code === 'preservation_vendor_unattested')).toBe(true);
  });
});
