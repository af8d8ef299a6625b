// The published JSON Schemas (docs/schemas/*.schema.json) are generated from the one definition of
// each format and not stale, and an independent validator (ajv, draft 2020-12) accepts the real
// documents a real store and real CLI runs produce (`governed audit export` of a world that went
// through init, unit create, challenges and receipts; the `--json` objects of gate, status, verify,
// audit verify, review-challenge and review-run — the last two through the real sandbox — a
// deploy record of `gate --export`, proof files of `audit prove`, the real coverage reviewer's
// output) and refuses one mutated document per schema; the one definition (zod/mini) accepts every
// real document too.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCheckpointStatement } from '../src/core/checkpoint.js';
import { publishedDefinition, publishedJsonSchemas } from '../src/core/json-schemas.js';
import { RECORD_OUTPUTS } from '../src/core/command-output-records.js';
import { AREA_OUTPUTS } from '../src/core/command-output-areas.js';
import { buildVsaStatement } from '../src/core/vsa.js';
import { buildProbeStatement } from '../src/core/preservation/probe.js';
import { jsonOut, REPO_ROOT, runCli } from './helpers/cli.js';
import { makeKey, sampleDecisionForVsa, tempDir, writeJson } from './helpers/receipts.js';
import { gate, implement, newStory, planningRequiredPolicy, rounds, status, type Story } from './gate-world.js';
import { gov, govOk, makeKeys } from './state-helpers.js';
import { issue, makeRunWorld, runReview } from './run-helpers.js';

const DIR = join(REPO_ROOT, 'docs', 'schemas');
const generated = publishedJsonSchemas();
/** The schemas whose real documents this file judges (those of src/core/command-output-records.ts: test/schemas-command-output.test.ts). */
// The command outputs of command-output-records.ts and command-output-areas.ts are judged by test/schemas-command-output*.test.ts.
const JUDGED_HERE = Object.keys(generated).filter((s) => !Object.prototype.hasOwnProperty.call(RECORD_OUTPUTS, s) && !Object.prototype.hasOwnProperty.call(AREA_OUTPUTS, s));

describe('docs/schemas is generated and not stale (npm run schemas:doc)', () => {
  it('holds exactly one file per published schema', () => {
    expect(readdirSync(DIR).sort()).toEqual(Object.keys(generated).map((s) => `${s}.schema.json`).sort());
  });
  it.each(Object.keys(generated))('%s.schema.json equals what the definition generates', (stem) => {
    expect(readFileSync(join(DIR, `${stem}.schema.json`), 'utf8')).toBe(`${JSON.stringify(generated[stem], null, 2)}\n`);
  });
});

type Json = Record<string, unknown>;
const ajv = new Ajv2020({ strict: false, allErrors: false });
const validators = Object.fromEntries(
  Object.keys(generated).map((stem) => [stem, ajv.compile(JSON.parse(readFileSync(join(DIR, `${stem}.schema.json`), 'utf8')) as Json)]),
);
const valid = (stem: string, doc: unknown): boolean => validators[stem]?.(doc) === true;

let story: Story;
let docs: Record<string, unknown>;
/** Further real documents judged by a schema that already has one above (stem, what, document). */
let extra: [string, string, unknown][];

const REVIEW_PASS_GOLDEN = join(REPO_ROOT, 'test', 'fixtures', 'protocols', 'review-pass');
const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  // The story of a unit up to RELEASE_ELIGIBLE, its policy naming a log key and attestor so that
  // `audit checkpoint` signs C2SP checkpoints (before and after the change) and `audit prove` proves.
  const keys = makeKeys();
  const attestors = tempDir('governed-schemas-att-');
  const cfg = writeJson(join(attestors, 'log.json'), { credential: 'log', kind: 'tlog-checkpoint', key_id: keys.log.keyId, key_ref: keys.log.privateKeyPath, origin: 'governed.example/schemas' });
  const program = readFileSync(join(REPO_ROOT, 'attestors', 'tlog-note.mjs'));
  writeFileSync(join(attestors, 'log.mjs'), program);
  const policy = planningRequiredPolicy(keys) as { credentials: Record<string, unknown> };
  policy.credentials.log = { key_id: keys.log.keyId, attestor_sha256: [sha(program)], attestor_config_sha256: [sha(readFileSync(cfg))] };
  story = newStory({ policy, keys });
  const work = tempDir('governed-schemas-work-');
  const ok = (args: string[]): Record<string, unknown> => {
    const r = gov(story.w, [...args, '--json']);
    expect(r.code, r.stderr).toBe(0);
    return jsonOut(r);
  };
  rounds(story, 'planning', 2);
  ok(['audit', 'checkpoint', '--out', join(work, 'cp1.note'), '--attestors', attestors]);
  implement(story);
  rounds(story, 'development', 2);
  rounds(story, 'integration', 2);
  const cp2 = ok(['audit', 'checkpoint', '--out', join(work, 'cp2.note'), '--attestors', attestors]);
  // A witness cosigns it: its state file is a published format too.
  const witness = makeKey(tempDir('governed-schemas-witness-'), 'witness');
  const witnessState = join(work, 'witness.state');
  const cosigned = runCli(['audit', 'cosign', '--checkpoint', join(work, 'cp2.note'), '--log-key', cp2.verifier_key as string, '--key', witness.privateKeyPath, '--name', 'witness.example', '--state', witnessState, '--out', join(work, 'cp2.cosigned.note'), '--json']);
  expect(cosigned.code, cosigned.stderr).toBe(0);

  const out = join(tempDir('governed-schemas-export-'), 'audit');
  const r = gov(story.w, ['audit', 'export', '--out', out, '--json']);
  expect(r.code, r.stderr).toBe(0);
  const read = (p: string): unknown => JSON.parse(readFileSync(join(out, p), 'utf8'));
  const files = readdirSync(out);
  const receipt = read(join('receipts', readdirSync(join(out, 'receipts'))[0] as string)) as { payload: string };
  const statement = JSON.parse(Buffer.from(receipt.payload, 'base64').toString('utf8')) as { predicate: unknown };
  const bundleDir = join(story.w.home, 'bundles');
  const bundleFile = readdirSync(bundleDir).find((f) => f.endsWith('.json')) as string;

  // gate --json --export: the decision object and the deploy record's manifest.
  const record = join(tempDir('governed-schemas-record-'), 'record');
  const g = gate(story, { extra: ['--export', record] });
  expect(g.code, g.stderr).toBe(0);
  // A refused gate (an unknown unit) still prints its decision object, with error set.
  const refused = gate(story, { unit: `UNIT-${'0'.repeat(32)}` });
  expect(refused.code).not.toBe(0);

  // verify --json of a stored receipt, alone and with an inclusion proof against a signed checkpoint.
  const r1 = story.receipts[0] as (typeof story.receipts)[0];
  const receiptFile = join(work, 'receipt.json');
  writeFileSync(receiptFile, r1.envelope);
  const proof = join(work, 'receipt.proof.json');
  ok(['audit', 'prove', '--receipt', r1.receiptId, '--checkpoint', join(work, 'cp2.note'), '--out', proof]);
  const consistency = join(work, 'week.proof.json');
  ok(['audit', 'prove', '--from', join(work, 'cp1.note'), '--to', join(work, 'cp2.note'), '--out', consistency]);
  const v = ok(['verify', receiptFile, '--trust', story.w.trustFile]);
  const vi = ok(['verify', receiptFile, '--trust', story.w.trustFile, '--inclusion-proof', proof, '--checkpoint', join(work, 'cp2.note')]);
  const vBad = gov(story.w, ['verify', join(bundleDir, bundleFile), '--trust', story.w.trustFile, '--json']);
  expect(vBad.code).not.toBe(0);

  // The real coverage reviewer (runner/reviewers/coverage.mjs) on a real bundle: its stdout.
  const reviewer = spawnSync(process.execPath, [join(REPO_ROOT, 'runner', 'reviewers', 'coverage.mjs')], {
    env: { PATH: process.env.PATH ?? '', GOVERNED_BUNDLE: join(bundleDir, bundleFile) },
    encoding: 'utf8',
  });
  expect(reviewer.status, reviewer.stderr).toBe(0);

  // review-challenge and review-run --json through the real sandbox: a CLEAN run and an ABORTED one.
  const rw = await makeRunWorld({ modes: ['clean', 'exit-nonzero'] });
  const challenge = govOk(rw, ['review-challenge', '--unit', rw.unit, '--writer-session', 'agent-1', '--stage', 'development', '--slot', 'clean']);
  const run = runReview(rw, challenge.challenge_id as string);
  expect(run.code, run.stderr).toBe(0);
  const aborted = runReview(rw, issue(rw, 'exit-nonzero'));
  expect(aborted.code).toBe(9);

  // A coded error of an ordinary command (status of a unit that does not exist).
  const err = gov(story.w, ['status', '--unit', `UNIT-${'0'.repeat(32)}`, '--json']);
  expect(err.code).not.toBe(0);

  // audit verify --export audits the export with no store (a --home beside it is refused).
  const ea = runCli(['audit', 'verify', '--export', out, '--json']);
  expect(ea.code, ea.stderr).toBe(0);
  const exportAudit = jsonOut(ea);

  docs = {
    'export-manifest': read('manifest.json'),
    policy: read(files.find((f) => f.startsWith('policy.pinned.json')) as string),
    'trust-root': read(files.find((f) => f.startsWith('trust.pinned.json')) as string),
    'dsse-envelope': receipt,
    'receipt-predicate': statement.predicate,
    'request-contract': JSON.parse(readFileSync(story.w.contractFile, 'utf8')),
    bundle: JSON.parse(readFileSync(join(bundleDir, bundleFile), 'utf8')),
    // Built by the product's own builders (the gate's and `audit checkpoint`'s) and, for the authority
    // predicate, by hand after docs/authority.md: not CLI runs here (the story signs no VSA, checkpoint or record).
    vsa: buildVsaStatement(sampleDecisionForVsa()).predicate,
    checkpoint: buildCheckpointStatement({
      trust_mode: 'co-located', log_entries: 3, log_head: `sha256:${'a'.repeat(64)}`, state_digest: `sha256:${'b'.repeat(64)}`,
      policy_digest: `sha256:${'c'.repeat(64)}`, trust_digest: `sha256:${'d'.repeat(64)}`, attestor_sha256: 'e'.repeat(64), made_at: '2026-11-30T00:00:00Z',
    }).predicate,
    // Preservation: documents as docs/preservation.md shows them (the product builds the probe
    // statement with buildProbeStatement; test/preservation-product.test.ts runs it for real).
    'preservation-contract': {
      kind: 'governed/preservation-contract', version: 1, baseline: 'a'.repeat(40), intent: 'keep',
      surfaces: [{ id: 'SURF-cli', kind: 'cli_command', paths: ['bin'], disposition: 'remove', probe: 'bin:greet', baseline_evidence_id: 'EVD-1', current_evidence_id: 'EVD-2', authority_id: 'REC-1', expected_diff_digest: `sha256:${'d'.repeat(64)}` }],
      vendor_sources: [{ id: 'VND-pad', path: 'vendor/pad', disposition: 'import', origin: { repository: 'https://example.invalid/pad.git', commit: 'b'.repeat(40), path: 'src', tree_digest: `sha256:${'e'.repeat(64)}` } }],
    },
    'probe-predicate': buildProbeStatement({
      unit: `UNIT-${'a'.repeat(32)}`, phase: 'baseline', snapshot_digest: `sha256:${'b'.repeat(64)}`, dependency_digest: null, adapter_sha256: 'c'.repeat(64), attestor_sha256: 'd'.repeat(64),
      results: [{ surface: 'SURF-cli', evidence_id: 'EVD-1', entry: 'bin:greet', exit_code: 0, capabilities: ['command:hello'], output_digest: `sha256:${'e'.repeat(64)}` }],
      probed_at: '2026-11-30T00:00:00Z',
    }).predicate,
    'adapter-request': { kind: 'governed/adapter-request', version: 1, mode: 'probe', entries: ['bin:greet'] },
    'adapter-inventory': { kind: 'governed/surface-inventory', version: 1, surfaces: [{ entry: 'bin:greet', kind: 'cli_command' }] },
    'adapter-probe-results': {
      kind: 'governed/probe-results', version: 1,
      results: [{ kind: 'governed/probe-result', version: 1, entry: 'bin:greet', exit_code: 0, capabilities: ['command:hello'], output_digest: `sha256:${'e'.repeat(64)}` }],
    },
    // The socket protocol (docs/runnerd.md): a request as the client builds it, a reply as the daemon does.
    'runnerd-request': { v: 1, op: 'review-challenge', unit: `UNIT-${'a'.repeat(32)}`, writer_session: 'agent-1', stage: 'development', slot: 'coverage', content: { commit: 'f'.repeat(40), bundle_b64: 'UEFDSw==' } },
    'runnerd-response': { ok: true, exit: 0, json: { challenge_id: `CHL-${'a'.repeat(32)}` }, human: 'challenge_id …' },
    'runnerd-progress-frame': { progress: 'bundle', count: 12 },
    'authority-predicate': {
      operation: 'authorize', ids: ['DIR-1'], unit: `UNIT-${'a'.repeat(32)}`, state_before: `sha256:${'b'.repeat(64)}`, state_after: null,
      nonce: 'a'.repeat(64), request_id: `ARQ-${'c'.repeat(32)}`, issued_at: '2026-11-30T00:00:00Z', expires_at: '2026-11-30T01:00:00Z',
    },
    'reviewer-output': JSON.parse(reviewer.stdout),
    'deploy-record-manifest': JSON.parse(readFileSync(join(record, 'manifest.json'), 'utf8')),
    'tlog-inclusion-proof': JSON.parse(readFileSync(proof, 'utf8')),
    'tlog-consistency-proof': JSON.parse(readFileSync(consistency, 'utf8')),
    'witness-state': JSON.parse(readFileSync(witnessState, 'utf8')),
    'gate-decision': jsonOut(g),
    status: jsonOut(status(story)),
    verify: v,
    'review-run': jsonOut(run),
    'review-challenge': challenge,
    'audit-verify': ok(['audit', 'verify']),
    'command-error': jsonOut(err),
    // The protocol's real results over scripted reviewer answers, as test/protocols-review-pass-loop.test.ts
    // renders them (it fails when these golden files differ from what the code writes).
    'review-pass-result': JSON.parse(readFileSync(join(REVIEW_PASS_GOLDEN, 'veto-development.json'), 'utf8')),
  };
  extra = [
    ['gate-decision', 'a refused gate (error set)', jsonOut(refused)],
    ['deploy-record-manifest', "decision.json is the printed decision minus `export`", JSON.parse(readFileSync(join(record, 'decision.json'), 'utf8'))],
    ['verify', 'verify --inclusion-proof --checkpoint', vi],
    ['verify', 'verify of a file that is not a receipt', jsonOut(vBad)],
    ['review-run', 'a run recorded ABORTED', jsonOut(aborted)],
    ['review-pass-result', 'a CLEAN review-pass result', JSON.parse(readFileSync(join(REVIEW_PASS_GOLDEN, 'clean-development.json'), 'utf8'))],
    ['audit-verify', 'audit verify --export', exportAudit],
  ];
}, 600_000);

/** One mutation per schema that the one definition refuses and ajv must refuse too. */
const MUTATIONS: Record<string, (d: Json) => void> = {
  policy: (d) => (d.unknown_field = 1),
  'trust-root': (d) => ((d.keys as Json[])[0]!.roles = ['root']),
  'request-contract': (d) => (d.kind = 'governed/other'),
  'receipt-predicate': (d) => (d.verdict = 'MAYBE'),
  'authority-predicate': (d) => (d.request_id = 'x'),
  vsa: (d) => (d.slsaVersion = '0.2'),
  checkpoint: (d) => (d.log_entries = 0),
  'dsse-envelope': (d) => (d.signatures = 'none'),
  'export-manifest': (d) => ((d.log as Json).head = 'sha256:xyz'),
  bundle: (d) => (d.schema = 'governed.review-bundle/v0'),
  'preservation-contract': (d) => ((d.surfaces as Json[])[0]!.disposition = 'REMOVE'),
  'probe-predicate': (d) => (d.phase = 'later'),
  'adapter-request': (d) => (d.mode = 'exec'),
  'adapter-inventory': (d) => ((d.surfaces as Json[])[0]!.entry = 'no colon'),
  'adapter-probe-results': (d) => ((d.results as Json[])[0]!.extra = 1),
  'reviewer-output': (d) => (d.verdict = 'MAYBE'),
  'deploy-record-manifest': (d) => ((d.files as Json[])[0]!.path = '../outside.json'),
  'tlog-inclusion-proof': (d) => (d.root = 'not a hash'),
  'tlog-consistency-proof': (d) => (d.old_size = -1),
  'witness-state': (d) => (d.size = -1),
  'gate-decision': (d) => delete d.export,
  status: (d) => (d.state = 'ALLOW'),
  verify: (d) => ((d.receipts as Json[])[0]!.valid = 'yes'),
  'review-run': (d) => (d.receipt_id = 'RUN-1'),
  'review-challenge': (d) => (d.bundle_path = '/tmp/bundle.json'),
  'audit-verify': (d) => ((d.log as Json).head = 'sha256:xyz'),
  'command-error': (d) => ((d.error as Json).code = 'not_a_code'),
  'review-pass-result': (d) => (d.delivery_state = 'RELEASE_ELIGIBLE'),
  // A forged verdict riding on a request: no operation has such a field.
  'runnerd-request': (d) => (d.verdict = 'CLEAN'),
  'runnerd-response': (d) => (d.ok = 'yes'),
  // Words instead of a phase id: a daemon cannot put text on the client's terminal.
  'runnerd-progress-frame': (d) => (d.progress = 'hashing /home/writer/secret'),
};

describe('ajv (draft 2020-12) judges real documents by the published schemas', () => {
  it('covers every schema', () => {
    expect(Object.keys(docs).sort()).toEqual(JUDGED_HERE.sort());
    expect(Object.keys(MUTATIONS).sort()).toEqual(JUDGED_HERE.sort());
  });
  it.each(JUDGED_HERE)('%s: the real document is valid', (stem) => {
    expect(valid(stem, docs[stem]), JSON.stringify(validators[stem]?.errors?.slice(0, 2))).toBe(true);
  });
  it.each(JUDGED_HERE)('%s: one mutated document is refused', (stem) => {
    const d = structuredClone(docs[stem]) as Json;
    MUTATIONS[stem]!(d);
    expect(valid(stem, d)).toBe(false);
    const def = publishedDefinition(stem);
    if (def !== undefined) expect(def.safeParse(d).success).toBe(false);
  });
  it('further real documents of the same formats are valid too', () => {
    for (const [stem, what, doc] of extra) {
      // decision.json holds the decision without its `export` field: judged with it put back as null.
      const d = what.startsWith('decision.json') ? { ...(doc as Json), export: null } : doc;
      const s = what.startsWith('decision.json') ? 'gate-decision' : stem;
      expect(valid(s, d), `${what}: ${JSON.stringify(validators[s]?.errors?.slice(0, 2))}`).toBe(true);
    }
  });
});

describe('the one definition (zod/mini) accepts every real document it publishes a schema for', () => {
  it.each(JUDGED_HERE.filter((s) => publishedDefinition(s) !== undefined))('%s', (stem) => {
    const r = publishedDefinition(stem)!.safeParse(docs[stem]);
    expect(r.success, JSON.stringify(r.error?.issues.slice(0, 2))).toBe(true);
  });
});
