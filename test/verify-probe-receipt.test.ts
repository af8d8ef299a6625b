// `governed verify` on preservation probe receipt files (docs/preservation.md#verifying-a-probe-receipt-offline):
// the receipt is a REAL one — `preservation probe` ran the allowlisted Node adapter in the check
// sandbox on the sealed baseline snapshot and the probe credential's pinned attestor signed it — and
// the file is its exact stored envelope (what a deploy record's probes/<hex>.json holds).
//
// Attacks, each with its exact code and exit, the store untouched and nothing of the file echoed: a
// tampered predicate under the original signature, one re-signed by a key outside the trust root, a
// trust root without the probe key or giving it another role, a policy naming another probe key or
// another adapter, a statement of the wrong kind signed by the probe key, a review receipt given with
// --contract, a subject that is not the snapshot, a predicate outside the schema, and a contract the
// probe is not bound to. Positive controls: the real receipt verifies alone, beside a review receipt,
// and with its policy and its contract.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticProfileSha256 } from '../runner/sandbox/profile.js';
import { inspectBwrap } from '../runner/sandbox/bwrap.js';
import { seccompBlob } from '../runner/sandbox/index.js';
import { loadTrustRoot } from '../src/core/trust-root.js';
import type { ProbePredicate } from '../src/core/preservation/probe.js';
import { parsePreservationContract } from '../src/core/preservation/schema.js';
import { probeContractMismatches, receiptKindOfSigners } from '../src/core/preservation/verify-probe.js';
import { ATTESTOR, REPO_ROOT, jsonOut, runCli, type CliResult } from './helpers/cli.js';
import { makeKey, payloadOf, samplePredicate, signEnvelope, statementFor, trustRootDoc, type TestKey } from './helpers/receipts.js';
import { planningRequiredPolicy } from './gate-world.js';
import { cleanupDirs, contractDoc, govOk, makeKeys, makeWorld, setupUnit, storeDigest, tempDir, writeJsonFile, type Keys, type World } from './state-helpers.js';

const IS_ROOT = process.geteuid?.() === 0;
const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
const ADAPTER = join(REPO_ROOT, 'runner', 'preservation', 'node-adapter.mjs');
const PRODUCT = {
  'package.json': JSON.stringify({ name: 'greeter', version: '1.0.0', type: 'module', bin: { greet: 'bin/greet.js' }, exports: { '.': './lib/index.js' } }, null, 2),
  'bin/greet.js': "#!/usr/bin/env node\nif (process.argv.includes('--help')) { process.stdout.write('usage: greet <command>\\n\\nCommands:\\n  hello   say hello\\n'); process.exit(0); }\nprocess.stdout.write('hello\\n');\n",
  'lib/index.js': "export const greet = (n) => 'hello ' + n;\n",
};

let keys: Keys;
let probeKey: TestKey;
let other: TestKey;
let w: World;
let dir: string;
let contract: Record<string, unknown>;
let contractFile: string;
/** The real probe receipt: its file, its envelope and its statement. */
let probeFile: string;
let envelope: { payloadType: string; payload: string; signatures: { keyid: string; sig: string }[] };
let statement: { _type: string; subject: unknown[]; predicateType: string; predicate: ProbePredicate };
let reviewFile: string;

const verify = (args: readonly string[]): CliResult => runCli(['verify', ...args, '--json'], { cwd: w.repo.root });
const trustWith = (name: string, probeRoles: readonly ('probe' | 'gate' | 'reviewer')[] | null): string =>
  writeJsonFile(
    join(dir, name),
    trustRootDoc([
      ...(['reviewer', 'runner', 'gate', 'log', 'authority'] as const).map((r) => ({ key: keys[r], roles: [r] as const })),
      ...(probeRoles === null ? [] : [{ key: probeKey, roles: probeRoles }]),
    ]),
  );
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
/** A statement signed by `signers` (node:crypto; the attestor would never sign these). */
const signed = (name: string, st: unknown, signers: readonly TestKey[]): string => file(name, signEnvelope(payloadOf(st), signers));
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

interface Verdict {
  valid: boolean;
  kind?: string;
  receipt_id?: string;
  phase?: string;
  surfaces?: string[];
  contract_digest?: string;
  signed_by?: { role: string; key_id: string }[];
  error?: { code: string; exit: number; ids: string[] };
}
const verdicts = (r: CliResult): Verdict[] => (jsonOut(r) as { receipts: Verdict[] }).receipts;

/** A refused file: the exact code and exit, the store untouched, nothing of the file echoed. */
function expectRefused(args: readonly string[], code: string, exit: number): string[] {
  const before = storeDigest(w);
  const r = verify(args);
  expect({ exit: r.code, code: verdicts(r)[0]?.error?.code }).toEqual({ exit, code });
  expect(storeDigest(w)).toBe(before);
  expect(r.stdout + r.stderr).not.toContain(envelope.payload.slice(0, 40));
  expect(r.stdout + r.stderr).not.toContain('greet <command>');
  return verdicts(r)[0]?.error?.ids ?? [];
}

beforeAll(async () => {
  if (!IS_ROOT) return;
  dir = tempDir('gvd-pres4-verify-');
  keys = makeKeys(join(dir, 'keys'));
  probeKey = makeKey(join(dir, 'keys'), 'probe');
  other = makeKey(join(dir, 'keys'), 'other');
  const attestors = tempDir('gvd-pres4-verify-attestors-');
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
  w = makeWorld({ policy, keys, baselineFiles: PRODUCT, contract: contractDoc({ state: 'active' }) });
  writeJsonFile(w.trustFile, JSON.parse(readFileSync(trustWith('trust-all.json', ['probe']), 'utf8')));
  const unit = setupUnit(w, 'agent-1');
  contract = {
    kind: 'governed/preservation-contract',
    version: 1,
    baseline: w.baseline,
    intent: 'Keep the greet command and the library export.',
    surfaces: [
      { id: 'SURF-cli', kind: 'cli_command', paths: ['bin', 'package.json'], disposition: 'preserve', probe: 'bin:greet', baseline_evidence_id: 'EVD-cli-b', current_evidence_id: 'EVD-cli-c' },
      { id: 'SURF-lib', kind: 'library_export', paths: ['lib', 'src'], disposition: 'extend', probe: 'export:.', baseline_evidence_id: 'EVD-lib-b', current_evidence_id: 'EVD-lib-c' },
    ],
    vendor_sources: [],
  };
  contractFile = writeJsonFile(join(dir, 'preservation.json'), contract);
  govOk(w, ['preservation', 'set', '--unit', unit, '--contract', contractFile]);
  govOk(w, ['preservation', 'probe', '--unit', unit, '--phase', 'baseline', '--adapter', ADAPTER, '--attestors', attestors]);
  const db = new Database(join(w.home, 'governed.db'), { readonly: true });
  let rows: { envelope: Buffer }[];
  try {
    rows = db.prepare('SELECT envelope FROM probe_receipts').all() as { envelope: Buffer }[];
  } finally {
    db.close();
  }
  if (rows.length !== 1) throw new Error(`expected one probe receipt, got ${rows.length}`);
  const bytes = (rows[0] as { envelope: Buffer }).envelope;
  probeFile = file('probe.json', bytes.toString('utf8'));
  envelope = JSON.parse(bytes.toString('utf8')) as typeof envelope;
  statement = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as typeof statement;
  reviewFile = signed('review.json', statementFor(samplePredicate()), [keys.reviewer, keys.runner]);
}, 300_000);
afterAll(() => cleanupDirs());

describe.skipIf(!IS_ROOT)('governed verify: preservation probe receipt files', () => {
  it('the real probe receipt verifies: alone, beside a review receipt, and with its policy and its contract (positive controls)', () => {
    const alone = verify([probeFile, '--trust', w.trustFile]);
    expect(alone.code).toBe(0);
    const [v] = verdicts(alone);
    expect(v).toMatchObject({ valid: true, kind: 'probe', phase: 'baseline', surfaces: ['SURF-cli', 'SURF-lib'], signed_by: [{ role: 'probe', key_id: probeKey.keyId }] });
    expect(v?.receipt_id).toBe(`sha256:${sha(Buffer.from(envelope.payload, 'base64'))}`);

    const mixed = verify([reviewFile, probeFile, '--trust', w.trustFile]);
    expect({ exit: mixed.code, kinds: verdicts(mixed).map((x) => x.kind) }).toEqual({ exit: 0, kinds: ['review', 'probe'] });

    const bound = verify([probeFile, '--trust', w.trustFile, '--policy', w.policyFile, '--contract', contractFile]);
    expect(bound.code).toBe(0);
    expect(verdicts(bound)[0]?.contract_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    // Human output: IDs only.
    const human = runCli(['verify', probeFile, '--trust', w.trustFile, '--contract', contractFile], { cwd: w.repo.root });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^VALID {4}.*\n {9}probe receipt sha256:[0-9a-f]{64} baseline UNIT-[0-9a-f]{32} surfaces SURF-cli, SURF-lib \(bound to contract sha256:[0-9a-f]{64}\)\n$/);
  });

  it('a tampered probe receipt: an edited result under the original signature → signature_invalid (4); re-signed by a key outside the trust root → key_unknown (6)', () => {
    const st = clone(statement);
    (st.predicate.results[0] as { exit_code: number }).exit_code = 0 === st.predicate.results[0]?.exit_code ? 1 : 0;
    const edited = { ...envelope, payload: payloadOf(st).toString('base64') };
    expectRefused([file('tampered.json', JSON.stringify(edited)), '--trust', w.trustFile], 'signature_invalid', 4);
    expectRefused([signed('resigned.json', st, [other]), '--trust', w.trustFile], 'key_unknown', 6);
  });

  it('the wrong key: a trust root without the probe key → key_unknown (6), giving it another role → key_wrong_role (6); a policy naming another probe key → signature_not_credential_key (6)', () => {
    expectRefused([probeFile, '--trust', trustWith('trust-noprobe.json', null)], 'key_unknown', 6);
    expectRefused([probeFile, '--trust', trustWith('trust-gate.json', ['gate'])], 'key_wrong_role', 6);
    const policy = JSON.parse(readFileSync(w.policyFile, 'utf8')) as { credentials: { probe: { key_id: string } } };
    policy.credentials.probe.key_id = other.keyId;
    expect(expectRefused([probeFile, '--trust', w.trustFile, '--policy', writeJsonFile(join(dir, 'policy-other.json'), policy)], 'signature_not_credential_key', 6)).toEqual(['probe']);
    // A policy whose allowlist no longer holds the adapter that made it.
    const moved = JSON.parse(readFileSync(w.policyFile, 'utf8')) as { preservation_adapters: { sha256: string[] } };
    moved.preservation_adapters.sha256 = ['a'.repeat(64)];
    const ids = expectRefused([probeFile, '--trust', w.trustFile, '--policy', writeJsonFile(join(dir, 'policy-adapter.json'), moved)], 'probe_adapter_not_allowlisted', 6);
    expect(ids).toEqual([`sha256:${sha(Buffer.from(envelope.payload, 'base64'))}`]);
  });

  it('a receipt of the wrong type: a review statement signed by the probe key → receipt_kind_mismatch (4); a review receipt with --contract → receipt_kind_mismatch (4)', () => {
    expectRefused([signed('review-by-probe.json', statementFor(samplePredicate()), [probeKey]), '--trust', w.trustFile], 'receipt_kind_mismatch', 4);
    expectRefused([reviewFile, '--trust', w.trustFile, '--contract', contractFile], 'receipt_kind_mismatch', 4);
    // A probe statement signed by the reviewer and runner keys is judged as a review receipt and is not one.
    expectRefused([signed('probe-by-review.json', statement, [keys.reviewer, keys.runner]), '--trust', w.trustFile], 'statement_invalid', 4);
  });

  it('signed by the probe key but not a probe receipt: another subject → statement_invalid (4); a predicate outside the schema → predicate_invalid (4)', () => {
    // Positive control of the forgeries below: the same statement re-signed by the probe key verifies.
    expect(verify([signed('resigned-ok.json', statement, [probeKey]), '--trust', w.trustFile]).code).toBe(0);
    const st = clone(statement) as { subject: { name: string; digest: { sha256: string } }[] };
    (st.subject[0] as { digest: { sha256: string } }).digest.sha256 = 'b'.repeat(64);
    expect(expectRefused([signed('subject.json', st, [probeKey]), '--trust', w.trustFile], 'statement_invalid', 4)).toEqual(['subject']);
    const extra = clone(statement) as { predicate: Record<string, unknown> };
    extra.predicate.note = 'x';
    expectRefused([signed('extra.json', extra, [probeKey]), '--trust', w.trustFile], 'predicate_invalid', 4);
    const unsorted = clone(statement);
    unsorted.predicate.results.reverse();
    expect(expectRefused([signed('unsorted.json', unsorted, [probeKey]), '--trust', w.trustFile], 'predicate_invalid', 4)).toEqual(['results']);
  });

  it('a contract the probe is not bound to → probe_contract_mismatch (4) naming the receipt and the surfaces; the real contract passes', () => {
    const id = `sha256:${sha(Buffer.from(envelope.payload, 'base64'))}`;
    const wrongEvidence = clone(contract) as { surfaces: Record<string, unknown>[] };
    (wrongEvidence.surfaces[0] as Record<string, unknown>).baseline_evidence_id = 'EVD-cli-x';
    expect(expectRefused([probeFile, '--trust', w.trustFile, '--contract', writeJsonFile(join(dir, 'c-evidence.json'), wrongEvidence)], 'probe_contract_mismatch', 4)).toEqual([id, 'SURF-cli']);
    const wrongEntry = clone(contract) as { surfaces: Record<string, unknown>[] };
    (wrongEntry.surfaces[1] as Record<string, unknown>).probe = 'export:./other';
    expect(expectRefused([probeFile, '--trust', w.trustFile, '--contract', writeJsonFile(join(dir, 'c-entry.json'), wrongEntry)], 'probe_contract_mismatch', 4)).toEqual([id, 'SURF-lib']);
    const dropped = clone(contract) as { surfaces: unknown[] };
    dropped.surfaces = dropped.surfaces.slice(0, 1);
    expect(expectRefused([probeFile, '--trust', w.trustFile, '--contract', writeJsonFile(join(dir, 'c-drop.json'), dropped)], 'probe_contract_mismatch', 4)).toEqual([id, 'SURF-lib']);
    expect(verify([probeFile, '--trust', w.trustFile, '--contract', contractFile]).code).toBe(0);
  });

  it('--contract does not mix with --vsa or --inclusion-proof (usage, nothing verified)', () => {
    expect(verify(['--vsa', probeFile, '--contract', contractFile, '--trust', w.trustFile]).code).toBe(2);
    expect(verify([probeFile, '--inclusion-proof', probeFile, '--contract', contractFile, '--trust', w.trustFile]).code).toBe(2);
  });
});

describe('receipt routing and the contract binding (pure)', () => {
  const k = (c: string): string => c.repeat(64);
  let trust: ReturnType<typeof loadTrustRoot>;
  let rk: TestKey;
  let pk: TestKey;
  beforeAll(() => {
    const d = tempDir('gvd-pres4-route-');
    rk = makeKey(d, 'reviewer');
    pk = makeKey(d, 'probe');
    trust = loadTrustRoot(trustRootDoc([{ key: rk, roles: ['reviewer'] }, { key: pk, roles: ['probe'] }]));
  });
  it('one signature by a key the trust root does not make a reviewer/runner key → probe; two, none, or a reviewer key → review', () => {
    expect(receiptKindOfSigners([pk.keyId], trust)).toBe('probe');
    expect(receiptKindOfSigners([k('a')], trust)).toBe('probe');
    expect(receiptKindOfSigners([rk.keyId], trust)).toBe('review');
    expect(receiptKindOfSigners([pk.keyId, k('b')], trust)).toBe('review');
    expect(receiptKindOfSigners([], trust)).toBe('review');
  });
  it('probeContractMismatches names each unbound surface once, sorted', () => {
    const c = parsePreservationContract({
      kind: 'governed/preservation-contract',
      version: 1,
      baseline: 'c'.repeat(40),
      intent: 'x',
      surfaces: [{ id: 'SURF-a', kind: 'cli_command', paths: ['bin'], disposition: 'preserve', probe: 'bin:a', baseline_evidence_id: 'EVD-a-b', current_evidence_id: 'EVD-a-c' }],
      vendor_sources: [],
    });
    const r = (surface: string, entry: string, evidence_id: string) => ({ surface, entry, evidence_id, exit_code: 0, capabilities: [], output_digest: `sha256:${k('d')}` });
    const p = (phase: 'baseline' | 'current', results: ReturnType<typeof r>[]): ProbePredicate => ({
      unit: `UNIT-${'0'.repeat(32)}`,
      phase,
      snapshot_digest: `sha256:${k('e')}`,
      dependency_digest: null,
      adapter_sha256: k('f'),
      attestor_sha256: k('1'),
      results,
      probed_at: '2026-12-02T10:00:00Z',
    });
    expect(probeContractMismatches(p('baseline', [r('SURF-a', 'bin:a', 'EVD-a-b')]), c)).toEqual([]);
    expect(probeContractMismatches(p('current', [r('SURF-a', 'bin:a', 'EVD-a-b')]), c)).toEqual(['SURF-a']);
    expect(probeContractMismatches(p('baseline', [r('SURF-a', 'bin:b', 'EVD-a-b'), r('SURF-z', 'bin:a', 'EVD-a-b')]), c)).toEqual(['SURF-a', 'SURF-z']);
  });
});
