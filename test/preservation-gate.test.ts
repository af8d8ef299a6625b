// Preservation at the deploy gate (docs/preservation.md#delivery-state, docs/preservation.md#probes):
// a unit whose policy REQUIRES preservation walks from its baseline to RELEASE_ELIGIBLE with the
// built CLI — preservation contract bound, baseline and current probes run by the allowlisted Node
// adapter in the real check sandbox and signed by the probe credential, planning / development /
// integration rounds — and a later change that breaks the CLI entry (the file kept) is REVIEW_ONLY
// with `preservation_capability_lost` at the gate, although every review of it was CLEAN.
// Review receipts are made at store level exactly as the runner makes them (test/gate-world.ts);
// probes are the real command.
//
// The gate judges probe receipts under the same trust root as every other record it relies on: the
// deploy side's `--trust`. Attacks: a deploy trust root without the probe key (key_unknown, exit 6),
// one that gives the probe key another role (key_wrong_role, exit 6), a probe receipt edited in the
// store (decision_fact_mismatch, exit 4); each refusal leaves the store unchanged, and the same gate
// with the probe key in --trust is the positive control (RELEASE_ELIGIBLE, exit 0).
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticProfileSha256 } from '../runner/sandbox/profile.js';
import { inspectBwrap } from '../runner/sandbox/bwrap.js';
import { seccompBlob } from '../runner/sandbox/index.js';
import { ATTESTOR, REPO_ROOT } from './helpers/cli.js';
import { makeKey, trustRootDoc, type TestKey } from './helpers/receipts.js';
import { cloneHome, expectGateRefused, gate, gateJson, planningRequiredPolicy, policyDigestOf, rounds, SESSION, status, storeDigestAt, type Story } from './gate-world.js';
import { cleanupDirs, contractDoc, gov, govOk, makeKeys, makeWorld, setupUnit, tempDir, writeJsonFile, type Keys } from './state-helpers.js';

const IS_ROOT = process.geteuid?.() === 0;
const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
const ADAPTER = join(REPO_ROOT, 'runner', 'preservation', 'node-adapter.mjs');
const HELP = 'usage: greet <command>\n\nCommands:\n  hello   say hello\n  bye     say goodbye\n';
const GREET = `#!/usr/bin/env node\nif (process.argv.includes('--help')) { process.stdout.write(${JSON.stringify(HELP)}); process.exit(0); }\nprocess.stdout.write('hello\\n');\n`;
const PRODUCT = {
  'package.json': JSON.stringify({ name: 'greeter', version: '1.0.0', type: 'module', bin: { greet: 'bin/greet.js' }, exports: { '.': './lib/index.js' } }, null, 2),
  'bin/greet.js': GREET,
  'lib/index.js': "export const greet = (n) => 'hello ' + n;\n",
};
const LOST = ['SURF-cli', 'reachability', 'capability:command:bye', 'capability:command:hello'];

let keys: Keys;
let probeKey: TestKey;
let attestors: string;
let s: Story;

/** The deploy side's trust root: the story's keys, and the probe key in `probeRoles` (none: left out). */
function deployTrust(probeRoles: readonly ('probe' | 'reviewer')[] | null): string {
  const specs = [
    { key: keys.reviewer, roles: ['reviewer'] as const },
    { key: keys.runner, roles: ['runner'] as const },
    { key: keys.gate, roles: ['gate'] as const },
    { key: keys.log, roles: ['log'] as const },
    { key: keys.authority, roles: ['authority'] as const },
    ...(probeRoles === null ? [] : [{ key: probeKey, roles: probeRoles }]),
  ];
  return writeJsonFile(join(tempDir('gvd-pres-gate-trust-'), 'trust.json'), trustRootDoc(specs));
}

const probe = (phase: 'baseline' | 'current'): void => {
  govOk(s.w, ['preservation', 'probe', '--unit', s.unit, '--phase', phase, '--adapter', ADAPTER, '--attestors', attestors]);
};

/** The request contract: the CSV export, whose implementation may also touch the CLI entry. */
const requestContract = (state: 'active' | 'done'): Record<string, unknown> => {
  const doc = contractDoc({ state, extraImplPaths: ['bin/greet.js'] }) as { directives: { state: string }[] };
  for (const d of doc.directives) d.state = state === 'done' ? 'done' : d.state;
  return doc;
};

/** A change under the writer's lease, committed: the story's subject. */
function change(files: Record<string, string>, message: string): void {
  const lease = govOk(s.w, ['lease', 'acquire', '--unit', s.unit, '--writer-session', SESSION]).lease as string;
  for (const [path, text] of Object.entries(files)) s.w.repo.write(path, text);
  govOk(s.w, ['lease', 'release', '--lease', lease, '--writer-session', SESSION]);
  s.subject = s.w.repo.commitAll(message);
}

beforeAll(async () => {
  if (!IS_ROOT) return;
  const dir = tempDir('gvd-pres-gate-keys-');
  keys = makeKeys(dir);
  probeKey = makeKey(dir, 'probe');
  attestors = tempDir('gvd-pres-gate-attestors-');
  copyFileSync(ATTESTOR, join(attestors, 'probe.mjs'));
  const cfg = JSON.stringify({ credential: 'probe', kind: 'probe', key_id: probeKey.keyId, key_ref: probeKey.privateKeyPath });
  writeFileSync(join(attestors, 'probe.json'), cfg);
  // The gate's own attestor (decision kind), so `gate --attest` can sign the VSA.
  const gateCfg = JSON.stringify({ credential: 'gate', kind: 'decision', key_id: keys.gate.keyId, key_ref: keys.gate.privateKeyPath });
  writeFileSync(join(attestors, 'gate.json'), gateCfg);
  copyFileSync(ATTESTOR, join(attestors, 'gate.mjs'));
  const bw = await inspectBwrap('/usr/bin/bwrap');
  const base = planningRequiredPolicy(keys) as { sandbox: Record<string, unknown>; credentials: Record<string, unknown> };
  const policy = {
    ...base,
    preservation: 'required',
    // Probes run in the check profile on sealed snapshots: this machine's real sandbox digests.
    sandbox: { ...base.sandbox, bwrap_sha256: [bw.sha256], profile_sha256: [staticProfileSha256('check')], seccomp_sha256: [sha(seccompBlob())] },
    credentials: {
      ...base.credentials,
      gate: { key_id: keys.gate.keyId, attestor_sha256: [sha(readFileSync(ATTESTOR))], attestor_config_sha256: [sha(gateCfg)] },
      probe: { key_id: probeKey.keyId, attestor_sha256: [sha(readFileSync(ATTESTOR))], attestor_config_sha256: [sha(cfg)] },
    },
    controls: ['deploy_gate', 'real_entry_probes', 'incident_history'],
    preservation_adapters: { sha256: [sha(readFileSync(ADAPTER))], interpreter: '/usr/bin/node' },
  };
  const w = makeWorld({ policy, keys, baselineFiles: PRODUCT, contract: requestContract('active') });
  writeJsonFile(w.trustFile, trustRootDoc([...['reviewer', 'runner', 'gate', 'log', 'authority'].map((r) => ({ key: keys[r as keyof Keys], roles: [r] as never })), { key: probeKey, roles: ['probe'] }]));
  const unit = setupUnit(w, SESSION);
  s = { w, unit, policyDigest: policyDigestOf(w), baseline: w.baseline, subject: w.baseline, receipts: [] };

  // The preservation contract on the baseline: the CLI preserved, the library extended; the writer's
  // change (src/, test/) belongs to the library surface.
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
  probe('baseline');
  rounds(s, 'planning', 2);
  change({ 'src/export.ts': 'export function toCsv(rows: string[]): string { return rows.join("\\n"); }\n', 'test/export.test.ts': "import { toCsv } from '../src/export';\n", 'src/json.ts': 'export const toJson = JSON.stringify;\n' }, 'implement the export');
  govOk(w, ['unit', 'bind', '--unit', unit, '--contract', writeJsonFile(join(w.dir, 'contract-done.json'), requestContract('done'))]);
  probe('current');
  rounds(s, 'development', 2);
  rounds(s, 'integration', 2);
}, 480_000);
afterAll(() => cleanupDirs());

describe.skipIf(!IS_ROOT)('preservation at the gate (policy requires preservation)', () => {
  it('a preserved unit: probed, checked, reviewed → RELEASE_ELIGIBLE under the deploy trust root holding the probe key', () => {
    const check = gov(s.w, ['preservation', 'check', '--unit', s.unit, '--json']);
    expect(check.code).toBe(0);
    const r = gate(s);
    const d = gateJson(r);
    expect({ exit: r.code, state: d.state, reasons: d.reasons, waiver: d.preservationWaiver }).toEqual({ exit: 0, state: 'RELEASE_ELIGIBLE', reasons: [], waiver: null });
    // Positive control of the attacks below: a deploy trust root of its own, holding the probe key.
    const own = gate(s, { trust: deployTrust(['probe']) });
    expect({ exit: own.code, state: gateJson(own).state }).toEqual({ exit: 0, state: 'RELEASE_ELIGIBLE' });
  });

  it('the probe receipts counted are relied on: in reliedOn.probes, copied into the deploy record, named in the VSA; audit verify re-verifies them (without the probe key: key_unknown)', () => {
    const db = new Database(join(s.w.home, 'governed.db'), { readonly: true });
    let rows: { id: string; envelope: Buffer }[];
    try {
      rows = db.prepare('SELECT id, envelope FROM probe_receipts ORDER BY id').all() as { id: string; envelope: Buffer }[];
    } finally {
      db.close();
    }
    // One baseline run and one current run so far, each one receipt covering both surfaces.
    expect(rows).toHaveLength(2);
    const ids = rows.map((r) => r.id);
    const dir = tempDir('gvd-pres-gate-record-');
    const vsa = join(dir, 'decision.vsa.json');
    const record = join(dir, 'record');
    const before = storeDigestAt(s.w.home);
    const r = gate(s, { extra: ['--export', record, '--attest', vsa, '--attestors', attestors] });
    const d = gateJson(r) as ReturnType<typeof gateJson> & { reliedOn: { probes: string[] } | null };
    expect({ exit: r.code, error: d.error?.code ?? null, state: d.state, probes: d.reliedOn?.probes }).toEqual({ exit: 0, error: null, state: 'RELEASE_ELIGIBLE', probes: ids });
    expect(storeDigestAt(s.w.home)).toBe(before);
    // The deploy record holds each probe receipt's exact stored envelope, listed in its manifest.
    const manifest = JSON.parse(readFileSync(join(record, 'manifest.json'), 'utf8')) as { files: { path: string; sha256: string }[] };
    for (const row of rows) {
      const path = `probes/${row.id.slice(7)}.json`;
      expect(readFileSync(join(record, path))).toEqual(row.envelope);
      expect(manifest.files).toContainEqual({ path, sha256: sha(row.envelope) });
    }
    // The VSA names them as input attestations (an offline auditor sees which probes the release relied on).
    const env = JSON.parse(readFileSync(vsa, 'utf8')) as { payload: string };
    const st = JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8')) as { predicate: { inputAttestations: { uri: string; digest: { sha256: string } }[] } };
    const probeInputs = st.predicate.inputAttestations.filter((a) => a.uri.startsWith('governed:probe:'));
    expect(probeInputs).toEqual(ids.map((id) => ({ uri: `governed:probe:${id}`, digest: { sha256: id.slice(7) } })));
    expect(gov(s.w, ['verify', '--vsa', vsa, '--trust', s.w.trustFile, '--json']).code).toBe(0);
    // audit verify re-verifies every probe receipt of the log: under the store's trust roots it passes
    // (positive control); under an auditor's trust root without the probe key each one fails.
    const ok = gov(s.w, ['audit', 'verify', '--json']);
    expect(ok.code).toBe(0);
    const bad = gov(s.w, ['audit', 'verify', '--trust', deployTrust(null), '--json']);
    const rep = JSON.parse(bad.stdout) as { failures: { code: string; ids: string[] }[] };
    expect(bad.code).toBe(6);
    expect(rep.failures.map((f) => [f.code, f.ids[1]])).toEqual(ids.length === 2 ? expect.arrayContaining(ids.map((id) => ['key_unknown', id])) : []);
    expect(rep.failures.every((f) => f.code === 'key_unknown' && ids.includes(f.ids[1] ?? ''))).toBe(true);
    expect(storeDigestAt(s.w.home)).toBe(before);
  });

  it('probe receipts are judged under --trust: without the probe key key_unknown (6), with it in another role key_wrong_role (6); nothing recorded', () => {
    expectGateRefused(s, { trust: deployTrust(null) }, 'key_unknown', 6);
    expectGateRefused(s, { trust: deployTrust(['reviewer']) }, 'key_wrong_role', 6);
    // The store's own trust root holds the probe key: status (judged under it) still counts the probes.
    expect((JSON.parse(status(s).stdout) as { state: string }).state).toBe('RELEASE_ELIGIBLE');
  });

  it('a probe receipt edited in the store behind governed: decision_fact_mismatch (4) at the gate, in status and in preservation check; store unchanged', () => {
    const home = cloneHome(s);
    const db = new Database(join(home, 'governed.db'));
    try {
      const row = db.prepare("SELECT id, envelope FROM probe_receipts WHERE phase = 'current' ORDER BY log_seq DESC LIMIT 1").get() as { id: string; envelope: Buffer };
      const env = JSON.parse(row.envelope.toString('utf8')) as { signatures: { keyid: string; sig: string }[] };
      const sig = Buffer.from(env.signatures[0]?.sig ?? '', 'base64');
      sig[0] = (sig[0] ?? 0) ^ 1;
      (env.signatures[0] as { sig: string }).sig = sig.toString('base64');
      db.prepare('UPDATE probe_receipts SET envelope = ? WHERE id = ?').run(Buffer.from(JSON.stringify(env)), row.id);
    } finally {
      db.close();
    }
    expectGateRefused(s, { home }, 'decision_fact_mismatch', 4, home);
    // status and preservation check judge it by the same rule (an error, never a state), store unchanged.
    const before = storeDigestAt(home);
    for (const r of [status(s, home), gov({ ...s.w, home }, ['preservation', 'check', '--unit', s.unit, '--json'])]) {
      expect({ exit: r.code, code: (JSON.parse(r.stdout) as { error?: { code: string } }).error?.code }).toEqual({ exit: 4, code: 'decision_fact_mismatch' });
    }
    expect(storeDigestAt(home)).toBe(before);
    // The untouched store is the positive control.
    expect(gate(s).code).toBe(0);
  });

  it('a change that breaks the CLI entry (file kept), reviewed CLEAN: REVIEW_ONLY at the gate with preservation_capability_lost; the fix is eligible again', () => {
    change({ 'bin/greet.js': "#!/usr/bin/env node\nthrow new Error('moved elsewhere');\n" }, 'greet moved');
    // The current probes ran on the previous content: stale, they no longer count.
    const stale = gateJson(gate(s));
    expect(stale.state).toBe('REVIEW_ONLY');
    expect(stale.reasons).toContainEqual({ code: 'preservation_probe_missing', ids: ['SURF-cli', 'current'] });
    probe('current');
    rounds(s, 'development', 2);
    rounds(s, 'integration', 2);
    const before = storeDigestAt(s.w.home);
    const r = gate(s);
    const d = gateJson(r);
    expect({ exit: r.code, state: d.state }).toEqual({ exit: 3, state: 'REVIEW_ONLY' });
    expect(d.reasons.filter((x) => x.code.startsWith('preservation'))).toEqual([
      { code: 'preservation_unsatisfied', ids: ['SURF-cli'] },
      { code: 'preservation_capability_lost', ids: LOST },
    ]);
    // Every other reason is gone: the reviews were CLEAN, only the probe saw the loss.
    expect(d.reasons.every((x) => x.code.startsWith('preservation'))).toBe(true);
    expect(storeDigestAt(s.w.home)).toBe(before);

    change({ 'bin/greet.js': GREET }, 'greet restored');
    probe('current');
    rounds(s, 'development', 2);
    rounds(s, 'integration', 2);
    const fixed = gate(s);
    expect({ exit: fixed.code, state: gateJson(fixed).state }).toEqual({ exit: 0, state: 'RELEASE_ELIGIBLE' });
  }, 480_000);
});
