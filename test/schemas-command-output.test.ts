// The --json objects of the commands that set up and feed a store (src/core/command-output-records.ts)
// as the real CLI prints them, judged by their published JSON Schemas (docs/schemas/, ajv draft
// 2020-12, an independent validator) and by the one zod/mini definition, with one mutated document
// per schema refused by both. The documents come from one real story: keygen, sandbox profile,
// setup and doctor (before and after a key made readable by others), contract init, init, unit create, writer register, lease acquire/list/release, unit bind (dry run and real),
// receipts, a DIRTY one dismissed through a real authority request, `authority sign` answered on a
// real pseudo-terminal, authority record, unit dismiss, C2SP checkpoints, audit prove (inclusion and
// consistency, printed and written), a DSSE checkpoint of another store, audit export, audit cosign by a witness, receipt show, a
// policy update, and completion bash.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORD_OUTPUTS } from '../src/core/command-output-records.js';
import { CLI, jsonOut, REPO_ROOT, runCli } from './helpers/cli.js';
import { makeKey, tempDir, writeJson } from './helpers/receipts.js';
import { newStory, planningRequiredPolicy, review, rounds, SESSION, type Story } from './gate-world.js';
import { cleanupDirs, gov, makeKeys, policyDoc, writeJsonFile } from './state-helpers.js';

type Json = Record<string, unknown>;
const STEMS = Object.keys(RECORD_OUTPUTS) as (keyof typeof RECORD_OUTPUTS)[];
const ajv = new Ajv2020({ strict: false, allErrors: false });
const validators = Object.fromEntries(
  STEMS.map((stem) => [stem, ajv.compile(JSON.parse(readFileSync(join(REPO_ROOT, 'docs', 'schemas', `${stem}.schema.json`), 'utf8')) as Json)]),
);
const PTY = join(REPO_ROOT, 'test', 'fixtures', 'authority', 'pty-answer.py');
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** Every real document, by the schema that must accept it ([stem, what, document]). */
const docs: [keyof typeof RECORD_OUTPUTS, string, Json][] = [];
let story: Story;

afterAll(() => cleanupDirs());

beforeAll(() => {
  const keys = makeKeys();
  const attestors = tempDir('gvd-cmdout-att-');
  const cfg = writeJson(join(attestors, 'log.json'), { credential: 'log', kind: 'tlog-checkpoint', key_id: keys.log.keyId, key_ref: keys.log.privateKeyPath, origin: 'governed.example/cmdout' });
  const program = readFileSync(join(REPO_ROOT, 'attestors', 'tlog-note.mjs'));
  writeFileSync(join(attestors, 'log.mjs'), program);
  const policy = planningRequiredPolicy(keys) as { credentials: Record<string, unknown> };
  policy.credentials.log = { key_id: keys.log.keyId, attestor_sha256: [sha(program)], attestor_config_sha256: [sha(readFileSync(cfg))] };
  const work = tempDir('gvd-cmdout-work-');
  const run = (args: string[], stem: keyof typeof RECORD_OUTPUTS | null, what: string, home = true): Json => {
    const r = home ? gov(story.w, [...args, '--json']) : runCli([...args, '--json'], { cwd: work });
    expect(r.code, `${what}: ${r.stdout} ${r.stderr}`).toBe(0);
    const out = jsonOut(r);
    if (stem !== null) docs.push([stem, what, out]);
    return out;
  };

  // Before any store: keygen, sandbox profile, completion.
  run(['keygen', '--credential', 'extra', '--out', join(work, 'keys')], 'keygen', 'keygen', false);
  run(['sandbox', 'profile'], 'sandbox-profile', 'sandbox profile', false);
  run(['completion', 'bash'], 'completion', 'completion bash', false);
  // setup (twice: made, then nothing changed), doctor on it (no problem, then a key readable by others).
  const setupDir = join(work, 'setup');
  run(['setup', '--out', setupDir, '--home', join(work, 'setup-home')], 'setup', 'setup', false);
  run(['setup', '--out', setupDir, '--home', join(work, 'setup-home')], 'setup', 'setup again (nothing changed)', false);
  run(['doctor', '--dir', setupDir, '--home', join(work, 'setup-home')], 'doctor', 'doctor (no problem)', false);
  chmodSync(join(setupDir, 'keys', 'runner.key'), 0o644);
  const broken = runCli(['doctor', '--dir', setupDir, '--home', join(work, 'setup-home'), '--json'], { cwd: work });
  expect(broken.code).toBe(4);
  docs.push(['doctor', 'doctor (a key readable by others)', jsonOut(broken)]);

  // init, unit create, writer register through the CLI (newStory's own calls are not captured: do them here).
  story = newStory({ policy, keys });
  const w = story.w;
  // A second store whose policy asks for a checkpoint after every entry: its commands' objects carry
  // the tlog_checkpoint field (src/cli/run-action.ts) that every appending command's schema admits.
  const home2 = join(w.dir, 'state-2');
  const policy2 = writeJsonFile(join(work, 'policy-auto.json'), { ...policy, tlog_checkpoints: { every_entries: 1 } });
  const inHome2 = (args: string[]) => runCli([...args, '--home', home2, '--json'], { cwd: w.repo.root, env: { GOVERNED_ATTESTORS_DIR: attestors } });
  const init = inHome2(['init', '--policy', policy2, '--trust', w.trustFile]);
  expect(init.code, init.stderr).toBe(0);
  docs.push(['init', 'init', jsonOut(init)]);
  const created2 = inHome2(['unit', 'create', '--contract', w.contractFile, '--baseline', w.baseline]);
  expect(created2.code, created2.stderr).toBe(0);
  const withCheckpoint = jsonOut(created2);
  expect((withCheckpoint.tlog_checkpoint as { written: unknown[] }).written.length).toBe(1);
  docs.push(['unit-create', 'unit create with an automatic checkpoint', withCheckpoint]);
  // A third store whose log attestor signs the older DSSE checkpoint statement: the other shape of audit checkpoint.
  const attestors3 = tempDir('gvd-cmdout-att3-');
  const cfg3 = writeJson(join(attestors3, 'log.json'), { credential: 'log', kind: 'checkpoint', key_id: keys.log.keyId, key_ref: keys.log.privateKeyPath });
  const policy3 = writeJsonFile(join(work, 'policy-dsse.json'), {
    ...policy,
    credentials: { ...policy.credentials, log: { key_id: keys.log.keyId, attestor_sha256: [sha(readFileSync(join(REPO_ROOT, 'attestors', 'ed25519-file.mjs')))], attestor_config_sha256: [sha(readFileSync(cfg3))] } },
  });
  const home3 = join(w.dir, 'state-3');
  expect(runCli(['init', '--policy', policy3, '--trust', w.trustFile, '--home', home3], { cwd: w.repo.root }).code).toBe(0);
  const dsse = runCli(['audit', 'checkpoint', '--out', join(work, 'cp-dsse.json'), '--attestors', attestors3, '--home', home3, '--json'], { cwd: w.repo.root });
  expect(dsse.code, dsse.stdout + dsse.stderr).toBe(0);
  docs.push(['audit-checkpoint', 'audit checkpoint (DSSE statement)', jsonOut(dsse)]);
  const unit2 = run(['unit', 'create', '--contract', w.contractFile, '--baseline', w.baseline], 'unit-create', 'unit create').unit as string;
  run(['writer', 'register', '--unit', unit2, '--writer-session', 'agent-2'], 'writer-register', 'writer register');
  run(['unit', 'bind', '--unit', story.unit, '--contract', w.contractFile, '--dry-run'], 'unit-bind', 'unit bind --dry-run');
  const contractInit = (args: string[], what: string): void => {
    const r = runCli(['contract', 'init', '--source', 'requests/export.md', ...args, '--json'], { cwd: w.repo.root });
    expect(r.code, r.stderr).toBe(0);
    docs.push(['contract-init', what, jsonOut(r)]);
  };
  contractInit(['--atoms', 'sentence'], 'contract init (printed)');
  contractInit(['--out', join(work, 'skeleton.yaml')], 'contract init --out');

  // Planning rounds (sealing planning, so that a lease may be taken), a DIRTY receipt, checkpoints.
  rounds(story, 'planning', 2);
  run(['audit', 'checkpoint', '--out', join(work, 'cp1.note'), '--attestors', attestors], 'audit-checkpoint', 'audit checkpoint (C2SP)');
  const lease = run(['lease', 'acquire', '--unit', story.unit, '--writer-session', SESSION], 'lease-acquire', 'lease acquire').lease as string;
  run(['lease', 'list', '--unit', story.unit], 'lease-list', 'lease list (one active)');
  run(['lease', 'release', '--lease', lease, '--writer-session', SESSION], 'lease-release', 'lease release');
  run(['lease', 'list'], 'lease-list', 'lease list (released)');
  w.repo.write('src/export.ts', 'export const toCsv = (rows: string[]): string => rows.join("\\n");\n');
  story.subject = w.repo.commitAll('implement');
  const done = writeJsonFile(join(w.dir, 'contract-done.json'), JSON.parse(readFileSync(w.contractFile, 'utf8')));
  run(['unit', 'bind', '--unit', story.unit, '--contract', done], 'unit-bind', 'unit bind');
  const bug = { code: 'test_gap' as const, class: 'correctness' as const, severity: 'MEDIUM' as const, refs: ['AC-1'] };
  const dirty = review(story, 'development', 'coverage', { findings: [bug] });
  const cp2 = join(work, 'cp2.note');
  const cp = run(['audit', 'checkpoint', '--out', cp2, '--attestors', attestors], 'audit-checkpoint', 'audit checkpoint (C2SP, later)');

  // A human authority: dismiss the DIRTY receipt (dry run, request, sign on a terminal, record, consume).
  const dry = run(['unit', 'dismiss', '--unit', story.unit, '--dry-run', '--ids', dirty.receiptId], 'unit-dismiss', 'unit dismiss --dry-run');
  const presentation = join(work, 'dismiss.request.json');
  run(['authority', 'request', '--operation', 'dismiss', '--unit', story.unit, '--ids', dirty.receiptId, '--state-before', dry.state_before as string, '--out', presentation], 'authority-request', 'authority request (dismiss)');
  const sign = (request: string, out: string): void => {
    const s = spawnSync('python3', [PTY, 'confirm', '--', process.execPath, CLI, 'authority', 'sign', '--request', request, '--key', keys.authority.privateKeyPath, '--out', out, '--json'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' },
      timeout: 30_000,
    });
    expect(s.status, s.stderr).toBe(0);
    const answered = JSON.parse(s.stdout) as { code: number; stdout: string; stderr: string };
    expect(answered.code, answered.stderr).toBe(0);
    docs.push(['authority-sign', 'authority sign (on a pseudo-terminal)', JSON.parse(answered.stdout) as Json]);
  };
  sign(presentation, join(work, 'dismiss.record.json'));
  const rec = run(['authority', 'record', '--record', join(work, 'dismiss.record.json')], 'authority-record', 'authority record').record_id as string;
  run(['unit', 'dismiss', '--unit', story.unit, '--authority', rec], 'unit-dismiss', 'unit dismiss (consumed)');

  // Proofs, printed and written; the export; a witness's cosignature; a stored receipt.
  const first = story.receipts[0]!.receiptId;
  run(['audit', 'prove', '--receipt', first, '--checkpoint', cp2], 'audit-prove', 'audit prove --receipt (printed)');
  const proofFile = join(work, 'week.proof.json');
  run(['audit', 'prove', '--from', join(work, 'cp1.note'), '--to', cp2, '--out', proofFile], 'audit-prove', 'audit prove --from --to --out');
  run(['audit', 'prove', '--from', join(work, 'cp1.note'), '--to', cp2], 'audit-prove', 'audit prove --from --to (printed)');
  run(['audit', 'prove', '--entry', '1', '--checkpoint', cp2, '--out', join(work, 'entry1.proof.json')], 'audit-prove', 'audit prove --entry --out');
  run(['audit', 'export', '--out', join(work, 'export')], 'audit-export', 'audit export');
  const witness = makeKey(tempDir('gvd-cmdout-witness-'), 'witness');
  run(
    ['audit', 'cosign', '--checkpoint', cp2, '--log-key', cp.verifier_key as string, '--key', witness.privateKeyPath, '--name', 'witness.example', '--state', join(work, 'witness.state'), '--out', join(work, 'cp2.cosigned.note')],
    'audit-cosign',
    'audit cosign',
    false,
  );
  run(['receipt', 'show', '--receipt', first], 'receipt-show', 'receipt show --json');
  run(['receipt', 'show', '--receipt', dirty.receiptId, '--out', join(work, 'dirty.receipt.json')], 'receipt-show', 'receipt show --out --json');

  // A policy update through its own authority record (last: it restarts every streak).
  const newPolicy = writeJsonFile(join(work, 'policy-2.json'), { ...policyDoc(keys), credentials: policy.credentials });
  const request2 = join(work, 'policy.request.json');
  run(['authority', 'request', '--operation', 'policy_update', '--document', newPolicy, '--out', request2], 'authority-request', 'authority request (policy_update)');
  sign(request2, join(work, 'policy.record.json'));
  const rec2 = run(['authority', 'record', '--record', join(work, 'policy.record.json')], 'authority-record', 'authority record (policy_update)').record_id as string;
  run(['policy', 'update', '--policy', newPolicy, '--authority', rec2], 'pin-update', 'policy update');
}, 600_000);

/** One mutation per schema that the published schema and the one definition must both refuse. */
const MUTATIONS: Record<keyof typeof RECORD_OUTPUTS, (d: Json) => void> = {
  init: (d) => (d.warnings = ['some other text']),
  keygen: (d) => (d.private_key_pem = '-----BEGIN PRIVATE KEY-----'),
  'unit-create': (d) => (d.unit = 'UNIT-1'),
  'unit-bind': (d) => (d.scope_version = -1),
  'unit-dismiss': (d) => (d.state_after = `sha256:${'a'.repeat(64)}`),
  'writer-register': (d) => (d.ok = false),
  'lease-acquire': (d) => (d.expires_at = 'tomorrow'),
  'lease-release': (d) => (d.lease = 'LSE-xyz'),
  'lease-list': (d) => ((d.leases as Json[])[0]!.state = 'stolen'),
  'authority-request': (d) => (d.operation = 'approve_everything'),
  'authority-sign': (d) => (d.key_id = 'not-hex'),
  'authority-record': (d) => (d.statement_text = 'a rendering'),
  'pin-update': (d) => (d.kind = 'reviewer'),
  'sandbox-profile': (d) => ((d.bwrap as Json).sha256 = 'x'),
  'audit-checkpoint': (d) => (d.tree_size = -1),
  'audit-export': (d) => (d.receipts = 'many'),
  'audit-prove': (d) => (d.kind = 'existence'),
  'audit-cosign': (d) => (d.witness_private_key = 'k'),
  'receipt-show': (d) => (d.verdict = 'ABORTED'),
  completion: (d) => (d.shell = 'fish'),
  setup: (d) => ((d.key_ids as Json).reviewer = 'a private key'),
  doctor: (d) => (d.exit = 10),
  'contract-init': (d) => (d.command = 'init'),
};

describe('the --json objects of init, unit, lease, authority, keys, sandbox, audit and receipt commands', () => {
  it('every schema has at least one real document', () => {
    expect([...new Set(docs.map(([s]) => s))].sort()).toEqual([...STEMS].sort());
  });
  it('ajv and the one definition accept every real document', () => {
    for (const [stem, what, doc] of docs) {
      expect(validators[stem]!(doc), `${what}: ${JSON.stringify(validators[stem]!.errors?.slice(0, 2))}`).toBe(true);
      const r = RECORD_OUTPUTS[stem].schema.safeParse(doc);
      expect(r.success, `${what}: ${JSON.stringify(r.error?.issues.slice(0, 2))}`).toBe(true);
    }
  });
  it.each(STEMS)('%s: one mutated document is refused by both', (stem) => {
    const found = docs.find(([s]) => s === stem);
    expect(found).toBeDefined();
    const d = structuredClone(found![2]);
    MUTATIONS[stem](d);
    expect(validators[stem]!(d)).toBe(false);
    expect(RECORD_OUTPUTS[stem].schema.safeParse(d).success).toBe(false);
  });
  it('the automatic-checkpoint field is judged too: a forged entry in it is refused by both', () => {
    const found = docs.find(([, what]) => what === 'unit create with an automatic checkpoint');
    const d = structuredClone(found![2]) as { tlog_checkpoint: { written: Json[] } };
    d.tlog_checkpoint.written[0]!.tree_size = -1;
    expect(validators['unit-create']!(d)).toBe(false);
    expect(RECORD_OUTPUTS['unit-create'].schema.safeParse(d).success).toBe(false);
  });
  it('both shapes of the alternatives were seen: proofs printed and written, inclusion and consistency, a dry run and a consumed dismissal', () => {
    const of = (stem: string): Json[] => docs.filter(([s]) => s === stem).map(([, , d]) => d);
    expect(of('audit-prove').map((d) => `${d.kind}:${'proof' in d ? 'printed' : 'written'}`).sort()).toEqual(['consistency:printed', 'consistency:written', 'inclusion:printed', 'inclusion:written']);
    expect(of('unit-dismiss').map((d) => d.dry_run).sort()).toEqual([false, true]);
    expect(of('unit-bind').map((d) => d.dry_run).sort()).toEqual([false, true]);
    expect(of('doctor').map((d) => d.ok).sort()).toEqual([false, true]);
    expect(of('setup').map((d) => d.changed).sort()).toEqual([false, true]);
    expect(of('contract-init').map((d) => 'contract' in d).sort()).toEqual([false, true]);
    expect(of('audit-checkpoint').map((d) => ('format' in d ? d.format : 'dsse')).sort()).toEqual(['c2sp-tlog-checkpoint', 'c2sp-tlog-checkpoint', 'dsse']);
  });
});
