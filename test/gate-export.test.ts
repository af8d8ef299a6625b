// `governed gate ... --export DIR` (docs/commands.md#what-each-command-guarantees table, docs/decision.md#8-delivery-state-and-reason-codes; docs/gate.md "`--export DIR`: the deploy
// record"): the record of a reached decision — decision.json (the printed object minus its `export`
// field), the exact envelopes the gate re-verified, the --trust bytes, the VSA, manifest.json —
// written all or nothing by the built CLI over a real store and a real repository; every exported
// receipt verifies with `governed verify --trust DIR/trust.json` elsewhere; refusals write nothing,
// leave the store unchanged and print no secret; a record that cannot be written never lets the gate
// exit 0. The lean gate path does not load the exporter.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Metafile } from 'esbuild';
import { gateBundleMetafile, gateEntryOutput, staticClosure, staticImports } from './helpers/gate-bundle.js';
import { stringify as stringifyYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs build script without type declarations
import { buildPinned } from '../scripts/pinned-build.mjs';
import { canonicalJson, isCanonicalJsonText } from '../src/core/canonical.js';
import { deployRecordManifestSchema } from '../src/core/deploy-record.js';
import { jsonOut, REPO_ROOT, runCli } from './helpers/cli.js';
import { writeJson } from './helpers/receipts.js';
import { cleanupDirs, CONTEXT_CANARY, FILE_CANARY, makeKeys, policyDoc, SOURCE_CANARY, tempDir, type Keys } from './state-helpers.js';
import { challenge, cloneHome, eligibleStory, expectGateRefused, gate, gateJson, newStory, rounds, SESSION, status, storeDigestAt, type GateJson, type Story } from './gate-world.js';
import { abortChallenge, consumeAuthority } from './helpers/store-receipts.js';
import Database from 'better-sqlite3';
import { govOk, recordAuthorityFor } from './state-helpers.js';
import { makeTempDir } from './helpers/temp.js';

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

interface ExportJson extends GateJson {
  export: { path: string; manifestDigest: string } | null;
}
interface Manifest {
  format: string;
  version: number;
  unit: string;
  state: string;
  subject: { commit: string; manifestDigest: string };
  evaluatedAt: string;
  policyDigest: string;
  gateTrustDigest: string;
  files: { path: string; sha256: string }[];
}

let attestor: string;
let keys: Keys;
let gateCfg: string;
let s: Story;

beforeAll(async () => {
  // The pinned gate attestor, built like scripts/build.mjs builds attestors/ed25519-file.mjs (as
  // test/gate-attest.test.ts does), so --attest and --export can be combined.
  const out = makeTempDir('governed-export-attestor-');
  attestor = join(out, 'ed25519-file.mjs');
  await buildPinned('attestors/src/ed25519-file.ts', attestor, REPO_ROOT);
  const dir = tempDir('governed-gate-export-');
  keys = makeKeys(join(dir, 'keys'));
  gateCfg = writeJson(join(dir, 'gate-attestor.json'), { credential: 'gate', kind: 'decision', key_id: keys.gate.keyId, key_ref: keys.gate.privateKeyPath });
  const cred = (k: { keyId: string }, c: string) => ({ key_id: k.keyId, attestor_sha256: [c.repeat(64)], attestor_config_sha256: [c.repeat(64)] });
  const policy = policyDoc(keys, {
    credentials: {
      reviewer: cred(keys.reviewer, '5'),
      runner: cred(keys.runner, '6'),
      gate: { key_id: keys.gate.keyId, attestor_sha256: [sha(readFileSync(attestor))], attestor_config_sha256: [sha(readFileSync(gateCfg))] },
      log: cred(keys.log, '8'),
    },
  });
  s = eligibleStory({ policy, keys });
}, 180_000);
afterAll(() => cleanupDirs());

const attestArgs = (file: string): string[] => ['--attest', file, '--attestor', attestor, '--attestor-config', gateCfg];

/** A fresh place for DIR: a new empty parent (so leftovers would show) and DIR inside it. */
function place(): { parent: string; out: string } {
  const parent = tempDir('governed-gate-export-out-');
  return { parent, out: join(parent, 'record') };
}

/** Every file under `dir`, relative, sorted. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]))
    .sort();
}

/** The record is complete and exactly what the decision printed; returns its manifest. */
function expectRecord(d: ExportJson, out: string, opts: { vsa?: string } = {}): Manifest {
  expect(d.export?.path).toBe(out);
  expect(lstatSync(out).isDirectory()).toBe(true);
  const manifestBytes = readFileSync(join(out, 'manifest.json'));
  expect(d.export?.manifestDigest).toBe(`sha256:${sha(manifestBytes)}`);
  expect(isCanonicalJsonText(manifestBytes.toString('utf8')).canonical).toBe(true);
  const manifest = JSON.parse(manifestBytes.toString('utf8')) as Manifest;
  expect(manifest).toMatchObject({
    format: 'governed/gate-record',
    version: 1,
    unit: d.unit,
    state: d.state,
    subject: { commit: d.subject.commit, manifestDigest: d.subject.manifestDigest, manifest_digest: d.subject.manifestDigest },
    evaluatedAt: d.evaluatedAt,
    policyDigest: d.policyDigest,
    gateTrustDigest: d.gateTrustDigest,
    // Each deprecated camelCase field with its snake_case twin (docs/commands.md#the-json-style).
    evaluated_at: d.evaluatedAt,
    policy_digest: d.policyDigest,
    gate_trust_digest: d.gateTrustDigest,
  });
  // Exactly these fields, no others; the published schema (zod) accepts it and refuses a missing twin.
  expect(Object.keys(manifest).sort()).toEqual(['evaluatedAt', 'evaluated_at', 'files', 'format', 'gateTrustDigest', 'gate_trust_digest', 'policyDigest', 'policy_digest', 'state', 'subject', 'unit', 'version']);
  expect(Object.keys(manifest.subject).sort()).toEqual(['commit', 'manifestDigest', 'manifest_digest']);
  expect(deployRecordManifestSchema.safeParse(manifest).success).toBe(true);
  const { gate_trust_digest: _twin, ...untwinned } = manifest as Manifest & { gate_trust_digest: string };
  expect(deployRecordManifestSchema.safeParse(untwinned).success).toBe(false);
  // decision.json: canonical, the printed object without its own `export` field.
  const decisionText = readFileSync(join(out, 'decision.json'), 'utf8');
  expect(isCanonicalJsonText(decisionText).canonical).toBe(true);
  const { export: _self, ...printed } = d;
  expect(decisionText).toBe(canonicalJson(printed));
  // The files: exactly those listed, each hash right, nothing else (no staging leftovers inside).
  const expected = [
    'decision.json',
    'trust.json',
    // each receipt, with the same envelope in the standard containers beside it (two signatures)
    ...(d.reliedOn?.receipts ?? []).flatMap((id) => {
      const hex = id.slice('sha256:'.length);
      return [`receipts/${hex}.json`, `intoto/${hex}.intoto.jsonl`, `sigstore/${hex}.0.sigstore.json`, `sigstore/${hex}.1.sigstore.json`];
    }),
    ...(d.reliedOn?.authorities ?? []).map((id) => `authority/${id}.json`),
    ...(opts.vsa !== undefined ? ['vsa.json', 'intoto/vsa.intoto.jsonl', 'sigstore/vsa.0.sigstore.json'] : []),
  ].sort();
  expect(manifest.files.map((f) => f.path)).toEqual(expected);
  for (const f of manifest.files) expect(sha(readFileSync(join(out, f.path))), f.path).toBe(f.sha256);
  expect(filesUnder(out)).toEqual([...expected, 'manifest.json'].sort());
  // The exact bytes: the --trust file, the stored envelopes (as the story recorded them), the VSA.
  expect(readFileSync(join(out, 'trust.json'))).toEqual(readFileSync(s.w.trustFile));
  const byId = new Map(s.receipts.map((r) => [r.receiptId, r.envelope]));
  for (const id of d.reliedOn?.receipts ?? []) expect(readFileSync(join(out, 'receipts', `${id.slice(7)}.json`))).toEqual(byId.get(id));
  if (opts.vsa !== undefined) expect(readFileSync(join(out, 'vsa.json'))).toEqual(readFileSync(opts.vsa));
  // Private directory renamed into place (0700, as audit export), files readable copies (0644).
  expect(lstatSync(out).mode & 0o777).toBe(0o700);
  expect(lstatSync(join(out, 'decision.json')).mode & 0o777).toBe(0o644);
  // No secret in the record either (the request's source and context canaries).
  for (const f of filesUnder(out)) {
    const text = readFileSync(join(out, f), 'utf8');
    for (const canary of [SOURCE_CANARY, FILE_CANARY, CONTEXT_CANARY]) expect(text).not.toContain(canary);
  }
  return manifest;
}

/** `governed verify` on another "machine": the record copied elsewhere, no state directory at all. */
function verifyElsewhere(out: string): void {
  const away = join(tempDir('governed-gate-export-away-'), 'copy');
  cpSync(out, away, { recursive: true });
  const receipts = readdirSync(join(away, 'receipts')).map((f) => join(away, 'receipts', f));
  expect(receipts.length).toBeGreaterThan(0);
  const v = runCli(['verify', ...receipts, '--trust', join(away, 'trust.json'), '--home', join(away, 'no-state'), '--json'], { cwd: away });
  expect(v.code, v.stdout + v.stderr).toBe(0);
  expect(existsSync(join(away, 'no-state'))).toBe(false);
}

describe('gate --export DIR: the deploy record of a reached decision', () => {
  it('RELEASE_ELIGIBLE: exit 0, the record complete and exact; every receipt verifies elsewhere', () => {
    const { parent, out } = place();
    const before = storeDigestAt(s.w.home);
    const r = gate(s, { extra: ['--export', out] });
    expect(r.code, r.stderr).toBe(0);
    const d = gateJson(r) as ExportJson;
    expect(d).toMatchObject({ decision: 'ALLOW', state: 'RELEASE_ELIGIBLE', error: null, attestation: null });
    // `export` sits with the other outputs, before `error`.
    expect(Object.keys(d).slice(-3)).toEqual(['attestation', 'export', 'error']);
    expect(d.reliedOn?.receipts.length).toBeGreaterThan(0);
    const m = expectRecord(d, out);
    expect(m.state).toBe('RELEASE_ELIGIBLE');
    expect(readdirSync(parent)).toEqual(['record']);
    expect(storeDigestAt(s.w.home)).toBe(before);
    verifyElsewhere(out);
  });

  it('a tampered record is caught by its manifest (the hashes are real)', () => {
    const { out } = place();
    const d = gateJson(gate(s, { extra: ['--export', out] })) as ExportJson;
    const m = expectRecord(d, out);
    const first = m.files.find((f) => f.path.startsWith('receipts/')) as { path: string; sha256: string };
    const bytes = readFileSync(join(out, first.path));
    writeFileSync(join(out, first.path), Buffer.concat([bytes, Buffer.from(' ')]));
    expect(sha(readFileSync(join(out, first.path)))).not.toBe(first.sha256);
  });

  it('with --attest: vsa.json is the attest file, listed in the manifest; the human form names the record', () => {
    const { out } = place();
    const vsa = join(tempDir(), 'decision.vsa.json');
    const r = gate(s, { extra: [...attestArgs(vsa), '--export', out] });
    expect(r.code, r.stderr).toBe(0);
    const d = gateJson(r) as ExportJson;
    expect(d.attestation?.path).toBe(vsa);
    expectRecord(d, out, { vsa });
    const h = runCli(
      ['gate', '--unit', s.unit, '--trust', s.w.trustFile, '--policy-digest', s.policyDigest, '--subject', s.subject, '--export', join(place().parent, 'h'), '--home', s.w.home],
      { cwd: s.w.repo.root },
    );
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/deploy record +\S+\/h \(manifest sha256:[0-9a-f]{64}\)/);
  });

  it('a YAML --trust is recorded as trust.yaml, byte for byte, and verifies the receipts from there', () => {
    const { out } = place();
    const yamlTrust = join(tempDir(), 'deploy-trust.yaml');
    writeFileSync(yamlTrust, `# deploy-side trust root\n${stringifyYaml(JSON.parse(readFileSync(s.w.trustFile, 'utf8')))}`);
    const r = gate(s, { trust: yamlTrust, extra: ['--export', out] });
    expect(r.code, r.stderr).toBe(0);
    const d = gateJson(r) as ExportJson;
    const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as Manifest;
    expect(m.files.map((f) => f.path)).toContain('trust.yaml');
    expect(existsSync(join(out, 'trust.json'))).toBe(false);
    expect(readFileSync(join(out, 'trust.yaml'))).toEqual(readFileSync(yamlTrust));
    expect(d.export?.manifestDigest).toBe(`sha256:${sha(readFileSync(join(out, 'manifest.json')))}`);
    const receipts = readdirSync(join(out, 'receipts')).map((f) => join(out, 'receipts', f));
    const v = runCli(['verify', ...receipts, '--trust', join(out, 'trust.yaml'), '--home', join(out, 'no-state'), '--json'], { cwd: out });
    expect(v.code, v.stdout + v.stderr).toBe(0);
  });

  it('a usage error (--export without its value) is the one DENY object with export: null', () => {
    const { parent } = place();
    const r = runCli(['gate', '--json', '--export'], { cwd: parent });
    expect(r.code).toBe(2);
    const d = gateJson(r) as ExportJson;
    expect(d).toMatchObject({ decision: 'DENY', export: null, error: { code: 'usage_error' } });
    expect(readdirSync(parent)).toEqual([]);
  });

  it('REVIEW_ONLY: exit 3 and a record of it', () => {
    const home = cloneHome(s);
    govOk({ ...s.w, home }, ['lease', 'acquire', '--unit', s.unit, '--writer-session', SESSION]);
    const { out } = place();
    const r = gate(s, { home, extra: ['--export', out] });
    expect(r.code).toBe(3);
    const d = gateJson(r) as ExportJson;
    expect(d).toMatchObject({ decision: 'DENY', state: 'REVIEW_ONLY', error: null });
    expect(d.reasons.map((x) => x.code)).toContain('lease_active');
    expect(expectRecord(d, out).state).toBe('REVIEW_ONLY');
  });

  it('authority records the decision relies on are exported as their exact stored envelopes', () => {
    // A planning slot blocked by an ABORTED run, lifted by a consumed `dismiss` (as status-report.test.ts).
    const t = newStory();
    rounds(t, 'planning', 1);
    const aborted = abortChallenge(t.w.home, challenge(t, 'planning', 'baseline_preservation')).runId;
    const planning = (jsonOut(status(t)) as { current: { planningStateDigest: string } }).current.planningStateDigest;
    const dismiss = recordAuthorityFor(t.w, { unit: t.unit, operation: 'dismiss', ids: [aborted], stateBefore: planning, stateAfter: null as unknown as string });
    consumeAuthority(t.w.home, { recordId: dismiss, operation: 'dismiss', ids: [aborted], unit: t.unit, stateBefore: planning, stateAfter: null });
    const { out } = place();
    const r = gate(t, { extra: ['--export', out] });
    expect(r.code, r.stderr).toBe(3);
    const d = gateJson(r) as ExportJson;
    expect(d.reliedOn?.authorities).toEqual([dismiss]);
    const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as Manifest;
    expect(m.files.map((f) => f.path)).toContain(`authority/${dismiss}.json`);
    const db = new Database(join(t.w.home, 'governed.db'), { readonly: true, fileMustExist: true });
    try {
      const stored = db.prepare('SELECT envelope FROM authority_records WHERE id = ?').pluck().get(dismiss) as Buffer;
      expect(readFileSync(join(out, 'authority', `${dismiss}.json`))).toEqual(stored);
    } finally {
      db.close();
    }
    for (const f of m.files) expect(sha(readFileSync(join(out, f.path))), f.path).toBe(f.sha256);
  });

  it('an error path (wrong --policy-digest) writes nothing and is unchanged otherwise', () => {
    const { parent, out } = place();
    const wrong = `sha256:${'0'.repeat(64)}`;
    const plain = expectGateRefused(s, { policyDigest: wrong }, 'gate_policy_digest_mismatch', 4) as ExportJson;
    const withExport = expectGateRefused(s, { policyDigest: wrong, extra: ['--export', out] }, 'gate_policy_digest_mismatch', 4) as ExportJson;
    expect(withExport.export).toBeNull();
    const { evaluatedAt: _a, evaluated_at: _a2, ...x } = plain as ExportJson & { evaluated_at?: string };
    const { evaluatedAt: _b, evaluated_at: _b2, ...y } = withExport as ExportJson & { evaluated_at?: string };
    expect(y).toEqual(x);
    expect(readdirSync(parent)).toEqual([]);
  });

  it.each([
    ['a file', (p: string) => writeFileSync(p, 'keep me\n')],
    ['an empty directory', (p: string) => mkdirSync(p)],
    ['a non-empty directory', (p: string) => (mkdirSync(p), writeFileSync(join(p, 'old.json'), '{}'))],
    ['a symlink to a directory', (p: string) => symlinkSync(tempDir(), p)],
    ['a dangling symlink', (p: string) => symlinkSync(join(tempDir(), 'nowhere'), p)],
  ])('DIR already there (%s): gate_export_output_exists (2), nothing written, store unchanged', (_name, make) => {
    const { parent, out } = place();
    make(out);
    // Every entry under the parent, the parent itself included (its mtime would show a private
    // directory made and removed), never following a symlink.
    const snapshot = (): string => {
      const lines: string[] = [];
      const walk = (p: string): void => {
        const st = lstatSync(p);
        lines.push(`${p} ${st.mode} ${st.size} ${st.mtimeMs}`);
        if (st.isDirectory()) for (const e of readdirSync(p).sort()) walk(join(p, e));
      };
      walk(parent);
      return lines.join('\n');
    };
    const before = snapshot();
    const d = expectGateRefused(s, { extra: ['--export', out] }, 'gate_export_output_exists', 2) as ExportJson;
    expect(d.export).toBeNull();
    expect(snapshot()).toBe(before);
  });

  it('refused before anything runs: with --attest too, no attestor is run and nothing signed', () => {
    const { out } = place();
    mkdirSync(out);
    const vsa = join(tempDir(), 'never.vsa.json');
    expectGateRefused(s, { extra: [...attestArgs(vsa), '--export', out] }, 'gate_export_output_exists', 2);
    expect(existsSync(vsa)).toBe(false);
  });

  it('checked in the preflight, like --attest: it wins over a later check (an unknown subject commit)', () => {
    const { out } = place();
    mkdirSync(out);
    expectGateRefused(s, { subject: 'f'.repeat(40), extra: ['--export', out] }, 'gate_export_output_exists', 2);
    // Positive control: without the taken DIR, that subject is refused for itself.
    expectGateRefused(s, { subject: 'f'.repeat(40), extra: ['--export', join(place().parent, 'r')] }, 'workspace_revision_unresolved', 2);
  });

  it('a parent that is a file: gate_export_output_unwritable (2), never 0, nothing left', () => {
    const parent = tempDir('governed-gate-export-out-');
    writeFileSync(join(parent, 'file'), 'x');
    const d = expectGateRefused(s, { extra: ['--export', join(parent, 'file', 'record')] }, 'gate_export_output_unwritable', 2) as ExportJson;
    expect(d.decision).toBe('DENY');
    expect(readdirSync(parent)).toEqual(['file']);
  });

  it('an unwritable parent (immutable, so even root cannot write): non-zero, coded, no partial DIR, no VSA left', () => {
    const { parent, out } = place();
    const chattr = spawnSync('chattr', ['+i', parent]);
    if (chattr.status !== 0) {
      // chattr needs root on a filesystem with attributes: the file-parent case above still runs.
      console.warn('chattr +i unavailable; skipping the immutable-parent case');
      return;
    }
    try {
      const vsa = join(tempDir(), 'withdrawn.vsa.json');
      const d = expectGateRefused(s, { extra: [...attestArgs(vsa), '--export', out] }, 'gate_export_output_unwritable', 2) as ExportJson;
      expect(d.attestation).toBeNull();
      expect(d.export).toBeNull();
      expect(existsSync(vsa)).toBe(false);
      expect(readdirSync(parent)).toEqual([]);
    } finally {
      spawnSync('chattr', ['-i', parent]);
    }
  });

  it('DIR appearing while the gate runs (here: the --attest file written there): refused, the VSA withdrawn, nothing left', () => {
    const { parent, out } = place();
    // Both paths are free at the preflight; the attestation lands on DIR after the record's private
    // directory was made, so the final check finds DIR taken.
    const d = expectGateRefused(s, { extra: [...attestArgs(out), '--export', out] }, 'gate_export_output_exists', 2) as ExportJson;
    expect(d.attestation).toBeNull();
    expect(readdirSync(parent)).toEqual([]);
  });
});

describe('the lean gate path does not load the exporter', () => {
  // Built like scripts/build.mjs builds dist/gate.mjs: the gate entry alone, split only for its lazy paths.
  let meta: Metafile;
  beforeAll(async () => {
    meta = await gateBundleMetafile();
  }, 60_000);

  it('export.ts is only behind a dynamic import, and splits no chunk out of dist/gate.mjs', () => {
    const outputs = meta.outputs;
    const entry = gateEntryOutput(meta);
    const closure = staticClosure(meta, [entry]);
    const inputs = new Set([...closure].flatMap((f) => Object.keys(outputs[f]?.inputs ?? {})));
    expect(inputs.has('src/flows/decide/gate.ts')).toBe(true);
    expect(inputs.has('src/flows/decide/export.ts')).toBe(false);
    const exporter = Object.keys(outputs).find((f) => Object.keys(outputs[f]?.inputs ?? {}).includes('src/flows/decide/export.ts')) as string;
    expect(exporter).toBeDefined();
    expect(closure.has(exporter)).toBe(false);
    // --export adds exactly its own chunk: everything else it needs is already in the gate's closure.
    for (const f of staticImports(meta, exporter)) expect(closure.has(f), f).toBe(true);
    // And the exporter split nothing off the gate: every shared chunk of the closure is also used by
    // another lazy path (YAML, authority records, --attest), as it was before --export existed. A
    // value import in export.ts of a module of the gate's own bundle fails here (a chunk just for
    // the gate and the exporter: one more file on every cold gate start).
    const lazy = Object.keys(outputs).filter((f) => f !== exporter && !closure.has(f));
    const lazyClosure = staticClosure(meta, lazy);
    for (const f of closure) if (f !== entry) expect(lazyClosure.has(f), `${f} is shared only with the exporter`).toBe(true);
  });
});
