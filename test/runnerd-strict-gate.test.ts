// A unit under policies/strict.yaml — `preservation: required` as shipped — reaches RELEASE_ELIGIBLE
// end to end through governed runnerd (docs/runnerd.md "The deploy side: gate --runner",
// #probes-through-the-daemon): real users (gvd-sep2-…, removed after the file), a real daemon, the
// real sandbox, a product with real surfaces (a CLI `greet`, a library export). Every writer step
// goes through the socket — unit create, writer register, `preservation set` and the baseline and
// current `preservation probe` (the allowlisted Node adapter, signed by the daemon's probe
// attestor), planning / development / integration rounds, `unit bind --runner` (the directive done),
// and the deploy gate `gate --runner`, which judges a private copy of the daemon's store under the
// deploy side's own --trust, --policy-digest and --subject. Not eligible: a later commit whose current
// probe has not run (preservation_probe_missing), the same commit probed with its CLI entry broken
// and every review CLEAN again (preservation_capability_lost), and the same unit with a co-located
// probe receipt (trust_mode_not_accepted). Then every way around the new paths:
// another writer's unit (gate and bind), an unknown unit, --home, wrong anchors, and a daemon that
// lies — a forged store copy is refused by the gate's own checks, the honest copy of the same store
// passes (positive control). Each refusal: its exact code, and the daemon's store unchanged.
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, REPO_ROOT, jsonOut, type CliResult } from './helpers/cli.js';
import { makeKey } from './helpers/receipts.js';
import { makeTempDir } from './helpers/temp.js';
import { tablesDigest } from '../src/store/index.js';
import { contractDoc } from './state-helpers.js';
import { IS_ROOT, asUser, chownTree, idsOf, makeSepWorld, root, writerRepo, namesFor, removeSepUsers, runAs, startDaemon, type Daemon, type PolicyPins, type SepWorld } from './runnerd-helpers.js';

const NAMES = namesFor('gvd-sep2');
const ROLES = ['source_fidelity', 'baseline_preservation', 'implementation_test', 'authority_release'];
const ADAPTER = join(REPO_ROOT, 'runner', 'preservation', 'node-adapter.mjs');
// The product's surfaces, in the baseline commit: a CLI command whose --help lists two subcommands, and a library export.
const HELP = 'usage: greet <command>\n\nCommands:\n  hello   say hello\n  bye     say goodbye\n';
const GREET = `#!/usr/bin/env node\nif (process.argv.includes('--help')) { process.stdout.write(${JSON.stringify(HELP)}); process.exit(0); }\nprocess.stdout.write('hello\\n');\n`;
const PRODUCT = {
  'package.json': JSON.stringify({ name: 'greeter', version: '1.0.0', type: 'module', bin: { greet: 'bin/greet.js' }, exports: { '.': './src/index.js' } }, null, 2),
  'bin/greet.js': GREET,
  'src/index.js': "export const greet = (n) => 'hello ' + n;\nexport const VERSION = '1.0.0';\n",
};
/** The CLI entry broken, its file kept: --help exits 1 (reachability lost, docs/preservation.md#rules). */
const GREET_BROKEN = "#!/usr/bin/env node\nprocess.stderr.write('broken\\n');\nprocess.exit(1);\n";

/** policies/strict.yaml with this machine's digests and keys, `preservation: required` unchanged: the probe credential pins the daemon's probe attestor, the shipped Node adapter is allowlisted, the check profile pinned beside the reviewer profile. */
function strictPolicy(p: PolicyPins): string {
  const c = p.credentials;
  const probe = p.probe;
  if (probe === undefined) throw new Error('the strict world installs a probe key');
  const text = readFileSync(join(REPO_ROOT, 'policies', 'strict.yaml'), 'utf8')
    .replace(/"0{64}"/, `"${p.reviewerSha}"`)
    .replace(/\["1{64}"\]/, `["${p.bwrapSha}"]`)
    .replace(/\["2{64}"\]/, `["${p.profileSha}", "${p.checkProfileSha}"]`)
    .replace(/\["3{64}"\]/, `["${p.seccompSha}"]`)
    .replace(/"2b4dd4f4[0-9a-f]{56}"/, `"${c.reviewer.key_id}"`)
    .replace(/"dba56b56[0-9a-f]{56}"/, `"${c.runner.key_id}"`)
    .replace(/"d58f5414[0-9a-f]{56}"/, `"${c.gate.key_id}"`)
    .replace(/"48409aea[0-9a-f]{56}"/, `"${c.log.key_id}"`)
    .replace(/"426291f3[0-9a-f]{56}"/, `"${probe.credential.key_id}"`)
    .replace(/\["9{64}"\]/, `["${probe.adapterSha256}"]`);
  // The attestor pins, in credential order (each "4…" program line is followed by its config line).
  const programs = [c.reviewer, c.runner, c.gate, c.log, probe.credential];
  let i = 0;
  const withPrograms = text.replace(/\["4{64}"\]/g, () => `["${programs[i++]!.attestor_sha256[0]}"]`);
  if (i !== programs.length || !/^preservation: required/m.test(withPrograms)) throw new Error('policies/strict.yaml changed shape: pin it anew');
  return withPrograms
    .replace(/\["5{64}"\]/, `["${c.reviewer.attestor_config_sha256[0]}"]`)
    .replace(/\["6{64}"\]/, `["${c.runner.attestor_config_sha256[0]}"]`)
    .replace(/\["7{64}"\]/, `["${c.gate.attestor_config_sha256[0]}"]`)
    .replace(/\["8{64}"\]/, `["${c.log.attestor_config_sha256[0]}"]`)
    .replace(/\["a{64}"\]/, `["${probe.credential.attestor_config_sha256[0]}"]`);
}

function storeDigest(home: string): string {
  const db = new Database(join(home, 'governed.db'), { readonly: true, fileMustExist: true });
  try {
    return tablesDigest(db);
  } finally {
    db.close();
  }
}

/** Store copies a gate --runner of the writer left in its TMPDIR (/tmp): always none. */
const leftCopies = (): string => runAs(NAMES.writer1, ['/bin/sh', '-c', 'ls -d /tmp/governed-store-copy-* 2>/dev/null | wc -l']).stdout.trim();
const errCode = (r: CliResult): string | undefined => ((jsonOut(r) as { error?: { code?: string } | null }).error ?? {}).code;

describe.skipIf(!IS_ROOT)('separated mode under policies/strict.yaml: RELEASE_ELIGIBLE through the daemon, gate --runner on a store copy', () => {
  let w: SepWorld;
  let d: Daemon;
  let unit: string;
  let subject: string;
  let policyDigest: string;
  let deploy: string;
  const env = (): Record<string, string> => ({ GOVERNED_RUNNER: w.socket });
  const as = (user: string, args: string[]): CliResult => asUser(user, [...args, '--json'], { cwd: w.repo.root, env: env() });
  const as1 = (args: string[]): CliResult => as(NAMES.writer1, args);
  const git = (...args: string[]): string => {
    const r = runAs(NAMES.writer1, ['/usr/bin/git', '-C', w.repo.root, ...args], {
      env: { HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'w', GIT_AUTHOR_EMAIL: 'w@example.invalid', GIT_COMMITTER_NAME: 'w', GIT_COMMITTER_EMAIL: 'w@example.invalid' },
    });
    if (r.code !== 0) throw new Error(`git ${args[0]}: ${r.stderr}`);
    return r.stdout.trim();
  };
  const review = (stage: string, slot: string): string => {
    const ch = as1(['review-challenge', '--unit', unit, '--writer-session', 'agent-1', '--stage', stage, '--slot', slot]);
    expect(ch.code, ch.stdout + ch.stderr).toBe(0);
    const run = as1(['review-run', '--challenge', jsonOut(ch).challenge_id as string]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    return jsonOut(run).verdict as string;
  };
  const gate = (user: string, extra: string[] = [], sub?: string): CliResult =>
    as(user, ['gate', '--unit', unit, '--trust', join(deploy, 'trust.json'), '--policy-digest', policyDigest, '--subject', sub ?? subject, ...extra]);
  const probe = (phase: 'baseline' | 'current'): CliResult => {
    const r = as1(['preservation', 'probe', '--unit', unit, '--phase', phase, '--adapter', join(deploy, 'node-adapter.mjs')]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    return r;
  };
  let scratch: string;

  beforeAll(async () => {
    scratch = makeTempDir('gvd-sep2-keys-');
    const probeKey = makeKey(join(scratch, 'k'), 'probe');
    const adapterSha256 = createHash('sha256').update(readFileSync(ADAPTER)).digest('hex');
    w = await makeSepWorld({ modes: ['coverage'], names: NAMES, policyText: strictPolicy, probe: { key: probeKey, adapterSha256 }, baselineFiles: PRODUCT });
    d = await startDaemon(w);
    // The deploy side's anchors, readable by the writers (they are public).
    deploy = makeTempDir('gvd-sep2-deploy-');
    chmodSync(deploy, 0o755);
    copyFileSync(w.trustFile, join(deploy, 'trust.json'));
    chmodSync(join(deploy, 'trust.json'), 0o644);
    // The request contract's implementation also names the CLI's entry (a later commit edits it).
    writeFileSync(join(deploy, 'contract.json'), JSON.stringify(contractDoc({ extraImplPaths: ['bin/greet.js'] })));
    // Progress only (active → done for both directives): binds freely, no authority needed.
    const done = contractDoc({ state: 'done', extraImplPaths: ['bin/greet.js'] }) as { directives: { state: string }[] };
    for (const dir of done.directives) dir.state = 'done';
    writeFileSync(join(deploy, 'contract-done.json'), JSON.stringify(done));
    for (const f of ['contract.json', 'contract-done.json']) chmodSync(join(deploy, f), 0o644);
    // The preservation contract (docs/preservation.md#the-contract): the CLI preserved, the library
    // extended (the change edits src/ and adds a test under test/); and the shipped adapter's bytes.
    const preservation = {
      kind: 'governed/preservation-contract',
      version: 1,
      baseline: w.baseline,
      intent: 'Keep the greet command and the library exports.',
      surfaces: [
        { id: 'SURF-cli', kind: 'cli_command', paths: ['bin', 'package.json'], disposition: 'preserve', probe: 'bin:greet', baseline_evidence_id: 'EVD-cli-b', current_evidence_id: 'EVD-cli-c' },
        { id: 'SURF-lib', kind: 'library_export', paths: ['src', 'test'], disposition: 'extend', probe: 'export:.', baseline_evidence_id: 'EVD-lib-b', current_evidence_id: 'EVD-lib-c' },
      ],
      vendor_sources: [],
    };
    writeFileSync(join(deploy, 'preservation.json'), JSON.stringify(preservation));
    copyFileSync(ADAPTER, join(deploy, 'node-adapter.mjs'));
    for (const f of ['preservation.json', 'node-adapter.mjs']) chmodSync(join(deploy, f), 0o644);
  }, 180_000);
  afterAll(async () => {
    await d?.stop();
    removeSepUsers(NAMES);
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });

  it('the strict unit: preservation set and baseline probe through --runner, planning ×2, bind (done), development ×2, commit, current probe, integration ×2, then gate --runner says RELEASE_ELIGIBLE (separated), relying on the baseline and current probe receipts', () => {
    const created = as1(['unit', 'create', '--contract', join(deploy, 'contract.json'), '--baseline', w.baseline]);
    expect(created.code, created.stdout + created.stderr).toBe(0);
    unit = jsonOut(created).unit as string;
    expect(as1(['writer', 'register', '--unit', unit, '--writer-session', 'agent-1']).code).toBe(0);

    // The preservation contract bound through the daemon, then the baseline probes: the daemon seals
    // the baseline commit, runs the allowlisted adapter, and its probe attestor signs.
    const set = as1(['preservation', 'set', '--unit', unit, '--contract', join(deploy, 'preservation.json')]);
    expect(set.code, set.stdout + set.stderr).toBe(0);
    expect(jsonOut(set)).toMatchObject({ ok: true, unit, version: 1 });
    const base = probe('baseline');
    expect(jsonOut(base)).toMatchObject({ ok: true, unit, phase: 'baseline', inventory: 2 });
    expect((jsonOut(base).probes as { surface: string; exit_code: number; capabilities: string[] }[]).map((p) => [p.surface, p.exit_code, p.capabilities])).toEqual([
      ['SURF-cli', 0, ['command:bye', 'command:hello']],
      ['SURF-lib', 0, ['export:VERSION', 'export:greet']],
    ]);

    // Planning reviews the bound preservation contract (the baseline_preservation slot among the four roles).
    for (let round = 0; round < 2; round++) for (const role of ROLES) expect(review('planning', role)).toBe('CLEAN');

    // unit bind --runner: the dry run names the plan and records nothing; the bind records it.
    const before = storeDigest(w.home);
    const dry = as1(['unit', 'bind', '--unit', unit, '--contract', join(deploy, 'contract-done.json'), '--dry-run']);
    expect(dry.code, dry.stdout + dry.stderr).toBe(0);
    expect(jsonOut(dry), dry.stdout).toMatchObject({ dry_run: true, progress: ['DIR-1', 'DIR-2'], narrowing: [], validation: { ok: true } });
    expect(storeDigest(w.home)).toBe(before);
    const bound = as1(['unit', 'bind', '--unit', unit, '--contract', join(deploy, 'contract-done.json')]);
    expect(bound.code, bound.stdout + bound.stderr).toBe(0);
    expect(jsonOut(bound)).toMatchObject({ dry_run: false, scope_version: 2, progress: ['DIR-1', 'DIR-2'] });

    for (let round = 0; round < 2; round++) expect(review('development', 'coverage')).toBe('CLEAN');
    git('add', '-A');
    git('commit', '-q', '-m', 'export');
    subject = git('rev-parse', 'HEAD');
    // The current probes of the commit (integration's preservation views need them, below).
    const cur = probe('current');
    expect((jsonOut(cur).probes as { surface: string; exit_code: number }[]).map((p) => [p.surface, p.exit_code])).toEqual([
      ['SURF-cli', 0],
      ['SURF-lib', 0],
    ]);
    for (let round = 0; round < 2; round++) for (const role of ROLES) expect(review('integration', role)).toBe('CLEAN');

    const status = as1(['status', '--unit', unit]);
    expect(status.code).toBe(0);
    const st = jsonOut(status) as { state: string; trustMode: string; policyDigest: string; preservation: unknown };
    expect({ state: st.state, trustMode: st.trustMode }, status.stdout).toEqual({ state: 'RELEASE_ELIGIBLE', trustMode: 'separated' });
    expect(st.preservation).toMatchObject({ required: true, waiver: null, contract: true, incidentHistory: true, unsatisfiedSurfaces: [] });
    policyDigest = st.policyDigest;

    const before2 = storeDigest(w.home);
    const g = gate(NAMES.writer1);
    expect(g.code, g.stdout + g.stderr).toBe(0);
    expect(jsonOut(g)).toMatchObject({ decision: 'ALLOW', state: 'RELEASE_ELIGIBLE', trustMode: 'separated', subject: { commit: subject }, policyDigest, preservationWaiver: null, error: null });
    // One probe receipt per run (each names every surface): the baseline's and the commit's.
    const receiptsOf = (r: CliResult): string[] => [...new Set((jsonOut(r).probes as { receipt: string }[]).map((p) => p.receipt))];
    expect((jsonOut(g).reliedOn as { probes: string[] }).probes).toEqual([...receiptsOf(base), ...receiptsOf(cur)].sort());
    expect(storeDigest(w.home)).toBe(before2);
    // The copy was private and is gone: nothing governed-store-copy-* left in the writer's TMPDIR.
    expect(leftCopies()).toBe('0');
  }, 600_000);

  it('the same unit with a co-located probe receipt (the probe key\'s holder probing in its own process, on a copy of the store): the gate says REVIEW_ONLY, trust_mode_not_accepted', () => {
    const dir = makeTempDir('gvd-sep2-colo-');
    const home = join(dir, 'home');
    cpSync(w.home, home, { recursive: true });
    const checkout = join(dir, 'checkout');
    cpSync(join(w.base, 'state', 'work', unit), checkout, { recursive: true });
    copyFileSync(join(deploy, 'trust.json'), join(dir, 'trust.json'));
    const holder = `${NAMES.daemon}-probe`;
    chownTree(dir, idsOf(holder));
    const asHolder = (args: string[]): CliResult => runAs(holder, [process.execPath, CLI, ...args, '--home', home, '--json'], { cwd: checkout });
    const holderGate = (): CliResult => asHolder(['gate', '--unit', unit, '--trust', join(dir, 'trust.json'), '--policy-digest', policyDigest, '--subject', subject, '--repo', checkout]);
    try {
      // Positive control: the untouched copy, judged co-located by the same gate, is eligible.
      const ok = holderGate();
      expect(ok.code, ok.stdout + ok.stderr).toBe(0);
      expect(jsonOut(ok)).toMatchObject({ decision: 'ALLOW', state: 'RELEASE_ELIGIBLE', trustMode: 'separated' });
      const colo = asHolder(['preservation', 'probe', '--unit', unit, '--phase', 'current', '--adapter', ADAPTER, '--attestors', join(w.base, 'attestors'), '--repo', checkout]);
      expect(colo.code, colo.stdout + colo.stderr).toBe(0);
      const g = holderGate();
      expect({ code: g.code, err: errCode(g) }, g.stdout + g.stderr).toEqual({ code: 3, err: undefined });
      expect(jsonOut(g)).toMatchObject({ decision: 'DENY', state: 'REVIEW_ONLY', trustMode: 'co-located', reasons: [{ code: 'trust_mode_not_accepted', ids: ['co-located'] }] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);

  it('the deploy side\'s anchors still judge the copy: another policy digest (4), a commit that is not the reviewed content (4)', () => {
    const before = storeDigest(w.home);
    const wrong = as(NAMES.writer1, ['gate', '--unit', unit, '--trust', join(deploy, 'trust.json'), '--policy-digest', `sha256:${'0'.repeat(64)}`, '--subject', subject]);
    expect({ code: wrong.code, err: errCode(wrong) }).toEqual({ code: 4, err: 'gate_policy_digest_mismatch' });
    const base = gate(NAMES.writer1, [], w.baseline);
    expect({ code: base.code, err: errCode(base), decision: jsonOut(base).decision }).toEqual({ code: 4, err: 'gate_subject_mismatch', decision: 'DENY' });
    expect(storeDigest(w.home)).toBe(before);
  });

  it('another writer gets no copy of the unit\'s store (runnerd_not_owner, 6), nor can it bind the unit; the owner can (positive control above)', () => {
    const before = storeDigest(w.home);
    const g = gate(NAMES.writer2);
    expect({ code: g.code, err: errCode(g), decision: jsonOut(g).decision }).toEqual({ code: 6, err: 'runnerd_not_owner', decision: 'DENY' });
    // From writer2's own repository (the client snapshots the working tree before it asks).
    const own = writerRepo(NAMES.writer2);
    const b = asUser(NAMES.writer2, ['unit', 'bind', '--unit', unit, '--contract', join(deploy, 'contract-done.json'), '--json'], { cwd: own.repo.root, env: env() });
    expect({ code: b.code, err: errCode(b) }).toEqual({ code: 6, err: 'runnerd_not_owner' });
    expect(storeDigest(w.home)).toBe(before);
  });

  it('an unknown unit gets no copy and no bind (unit_unknown, 7); --home with --runner is refused (runnerd_option_not_remote, 2)', () => {
    const before = storeDigest(w.home);
    const other = `UNIT-${'0'.repeat(32)}`;
    const u = as(NAMES.writer1, ['gate', '--unit', other, '--trust', join(deploy, 'trust.json'), '--policy-digest', policyDigest, '--subject', subject]);
    expect({ code: u.code, err: errCode(u) }).toEqual({ code: 7, err: 'unit_unknown' });
    const ub = as(NAMES.writer1, ['unit', 'bind', '--unit', other, '--contract', join(deploy, 'contract-done.json')]);
    expect({ code: ub.code, err: errCode(ub) }).toEqual({ code: 7, err: 'unit_unknown' });
    // The operations that import the writer's content refuse an id nobody owns before importing it
    // (each distinct id used to leave a checkout behind: the disk filled one request at a time).
    const st = as(NAMES.writer1, ['status', '--unit', other]);
    expect({ code: st.code, err: errCode(st) }).toEqual({ code: 7, err: 'unit_unknown' });
    const ch = as(NAMES.writer1, ['review-challenge', '--unit', other, '--writer-session', 'agent-1', '--stage', 'development', '--slot', 'coverage']);
    expect({ code: ch.code, err: errCode(ch) }).toEqual({ code: 7, err: 'unit_unknown' });
    // Nothing was imported for it: the daemon made no checkout for an id nobody owns.
    expect(existsSync(join(w.base, 'state', 'work', other))).toBe(false);
    const h = gate(NAMES.writer1, ['--home', '/tmp']);
    expect({ code: h.code, err: errCode(h) }).toEqual({ code: 2, err: 'runnerd_option_not_remote' });
    const ba = as(NAMES.writer1, ['unit', 'bind', '--unit', unit, '--contract', join(deploy, 'contract-done.json'), '--authority', '../etc/passwd']);
    expect({ code: ba.code, err: errCode(ba) }).toEqual({ code: 2, err: 'runnerd_request_invalid' });
    expect(storeDigest(w.home)).toBe(before);
  });

  it('the socket carries ids only: a unit-bind naming a contract path, or a store-copy with extra fields, is refused whole', () => {
    const before = storeDigest(w.home);
    const RAW = join(REPO_ROOT, 'test', 'fixtures', 'runnerd', 'raw-client.mjs');
    const send = (line: string): Record<string, unknown> => JSON.parse(runAs(NAMES.writer1, [process.execPath, RAW, w.socket, 'line', line]).stdout.trim().split('\n')[0] as string) as Record<string, unknown>;
    const bad = [
      JSON.stringify({ v: 1, op: 'unit-bind', unit, contract_path: '/etc/passwd', authority: [], dry_run: false }),
      JSON.stringify({ v: 1, op: 'store-copy', unit, home: '/var/lib/governed/state/home' }),
      JSON.stringify({ v: 1, op: 'store-copy', unit, receipt: `sha256:${'a'.repeat(64)}` }),
    ];
    for (const line of bad) expect((send(line).error as { code: string }).code).toBe('runnerd_request_invalid');
    // Positive control: the well-formed request is answered with a copy.
    const ok = send(JSON.stringify({ v: 1, op: 'store-copy', unit }));
    expect(ok.ok).toBe(true);
    expect(typeof (ok.store_copy as { db_gz_b64: string }).db_gz_b64).toBe('string');
    expect(storeDigest(w.home)).toBe(before);
  });

  it('governed doctor --runnerd judges the layout: clean (positive control), then a key file made readable and a missing account are named by code', () => {
    const args = ['doctor', '--runnerd', w.base, '--writers', NAMES.writers, '--runnerd-user', NAMES.daemon, '--socket', w.socket, '--json'];
    const clean = root(args);
    expect(clean.code, clean.stdout).toBe(0);
    expect((jsonOut(clean).checks as { id: string; ok: boolean }[]).map((c) => [c.id, c.ok])).toEqual([['runnerd_layout', true]]);
    const key = join(w.base, 'keys', 'reviewer', 'key.pem');
    chmodSync(key, 0o444);
    try {
      const bad = root(args);
      expect(bad.code).toBe(4);
      expect(jsonOut(bad).problems).toEqual([{ check: 'runnerd_layout', code: 'runnerd_state_unsafe', ids: [`${key}:wrong_mode`], exit: 4 }]);
    } finally {
      chmodSync(key, 0o400);
    }
    const missing = root(['doctor', '--runnerd', w.base, '--writers', NAMES.writers, '--runnerd-user', 'gvd-sep2-none', '--socket', w.socket, '--json']);
    expect(missing.code).toBe(2);
    expect((jsonOut(missing).problems as { code: string; ids: string[] }[])[0]).toMatchObject({ code: 'runnerd_user_missing', ids: ['gvd-sep2-none', 'gvd-sep2-none-reviewer', 'gvd-sep2-none-runner', 'gvd-sep2-none-probe', 'gvd-sep2-none-log'] });
    expect(root(['doctor', '--json']).code).toBe(2);
  });

  describe('a daemon that lies is trusted for availability, never for the decision', () => {
    let fake: ChildProcess;
    let dir: string;
    let socket: string;
    let replyFile: string;
    let reply = '';
    beforeAll(async () => {
      dir = makeTempDir('gvd-sep2-fake-');
      chmodSync(dir, 0o755);
      mkdirSync(join(dir, 's'), { mode: 0o755 });
      socket = join(dir, 's', 'fake.sock');
      replyFile = join(dir, 'reply.json');
      writeFileSync(replyFile, '{}');
      fake = spawn(process.execPath, [join(REPO_ROOT, 'test', 'fixtures', 'runnerd', 'lying-daemon.mjs'), socket, replyFile], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve) => fake.stdout?.once('data', () => resolve()));
    });
    afterAll(async () => {
      const exited = new Promise((r) => fake.once('close', r));
      fake.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    });
    /** The daemon's real database, read as root (the test is root), optionally edited before it is served. */
    const served = (edit?: (db: Database.Database) => void): string => {
      const src = new Database(join(w.home, 'governed.db'), { readonly: true, fileMustExist: true });
      let bytes: Buffer;
      try {
        bytes = src.serialize();
      } finally {
        src.close();
      }
      if (edit !== undefined) {
        // An in-memory image cannot be in WAL mode: header bytes 18–19 (1 = rollback journal) for the
        // edit, then back to 2 (WAL) as the daemon's copy has them.
        bytes[18] = 1;
        bytes[19] = 1;
        const db = new Database(bytes);
        edit(db);
        bytes = db.serialize();
        db.close();
        bytes[18] = 2;
        bytes[19] = 2;
      }
      reply = JSON.stringify({ ok: true, exit: 0, json: { ok: true }, human: '', store_copy: { db_gz_b64: gzipSync(bytes).toString('base64') } });
      writeFileSync(replyFile, reply);
      return reply;
    };
    const fakeGate = (): CliResult =>
      asUser(NAMES.writer1, ['gate', '--unit', unit, '--trust', join(deploy, 'trust.json'), '--policy-digest', policyDigest, '--subject', subject, '--json', '--runner', socket], { cwd: w.repo.root });

    it('the honest copy served by a stand-in passes (positive control)', () => {
      served();
      const g = fakeGate();
      expect(g.code, g.stdout + g.stderr).toBe(0);
    });

    it('a receipt edited in the copy is refused by the gate\'s own verification (4)', () => {
      served((db) => {
        const row = db.prepare('SELECT id, envelope FROM receipts ORDER BY log_seq DESC LIMIT 1').get() as { id: string; envelope: Buffer };
        const env = JSON.parse(row.envelope.toString('utf8')) as { payload: string };
        env.payload = Buffer.from(Buffer.from(env.payload, 'base64').toString('utf8').replace('"verdict":"CLEAN"', '"verdict":"CLEAN" ')).toString('base64');
        db.prepare('UPDATE receipts SET envelope = ? WHERE id = ?').run(Buffer.from(JSON.stringify(env)), row.id);
      });
      const g = fakeGate();
      expect(g.code, g.stdout + g.stderr).toBe(4);
      expect(jsonOut(g).decision).toBe('DENY');
      expect(leftCopies()).toBe('0');
    });

    it('a receipt withheld from the copy (its row deleted, its log entry kept) is refused (decision_table_log_mismatch, 4)', () => {
      served((db) => {
        db.pragma('foreign_keys = OFF');
        const row = db.prepare("SELECT id, log_seq FROM receipts WHERE stage = 'integration' ORDER BY log_seq DESC LIMIT 1").get() as { id: string; log_seq: number };
        db.prepare('DELETE FROM receipts WHERE id = ?').run(row.id);
      });
      const g = fakeGate();
      expect({ code: g.code, err: errCode(g), decision: jsonOut(g).decision }).toEqual({ code: 4, err: 'decision_table_log_mismatch', decision: 'DENY' });
      expect(leftCopies()).toBe('0');
    });

    it('a copy that is not gzip is runnerd_store_copy_invalid (4); the client left no copy behind', () => {
      reply = JSON.stringify({ ok: true, exit: 0, json: { ok: true }, human: '', store_copy: { db_gz_b64: Buffer.from('not a gzip stream at all').toString('base64') } });
      writeFileSync(replyFile, reply);
      const g = fakeGate();
      expect({ code: g.code, err: errCode(g) }).toEqual({ code: 4, err: 'runnerd_store_copy_invalid' });
      expect(leftCopies()).toBe('0');
    });
  });

  it('a later commit that breaks the CLI entry (its file kept): without its current probe the gate says preservation_probe_missing; probed and reviewed anew, preservation_capability_lost — never RELEASE_ELIGIBLE', () => {
    writeFileSync(join(w.repo.root, 'bin', 'greet.js'), GREET_BROKEN);
    chownTree(join(w.repo.root, 'bin', 'greet.js'), idsOf(NAMES.writer1));
    for (let round = 0; round < 2; round++) expect(review('development', 'coverage')).toBe('CLEAN');
    git('add', '-A');
    git('commit', '-q', '-m', 'break greet');
    const broken = git('rev-parse', 'HEAD');
    // The current probes ran on the previous commit: for this one they are missing.
    const before = storeDigest(w.home);
    const missing = gate(NAMES.writer1, [], broken);
    expect({ code: missing.code, err: errCode(missing), decision: jsonOut(missing).decision, state: jsonOut(missing).state }, missing.stdout + missing.stderr).toEqual({ code: 3, err: undefined, decision: 'DENY', state: 'REVIEW_ONLY' });
    expect(jsonOut(missing).reasons).toEqual([
      { code: 'streak_incomplete', ids: ['integration'] },
      { code: 'preservation_unsatisfied', ids: ['SURF-cli', 'SURF-lib'] },
      { code: 'preservation_probe_missing', ids: ['SURF-cli', 'current'] },
      { code: 'preservation_probe_missing', ids: ['SURF-lib', 'current'] },
    ]);
    expect(storeDigest(w.home)).toBe(before);
    // Probed (the daemon's own run of the adapter: --help exits 1) and every review CLEAN again:
    // the one reason left is the broken surface.
    const cur = probe('current');
    expect((jsonOut(cur).probes as { surface: string; exit_code: number }[]).map((p) => [p.surface, p.exit_code])).toEqual([
      ['SURF-cli', 1],
      ['SURF-lib', 0],
    ]);
    for (let round = 0; round < 2; round++) for (const role of ROLES) expect(review('integration', role)).toBe('CLEAN');
    const before2 = storeDigest(w.home);
    const lost = gate(NAMES.writer1, [], broken);
    expect({ code: lost.code, decision: jsonOut(lost).decision, state: jsonOut(lost).state, trustMode: jsonOut(lost).trustMode }, lost.stdout + lost.stderr).toEqual({ code: 3, decision: 'DENY', state: 'REVIEW_ONLY', trustMode: 'separated' });
    expect(jsonOut(lost).reasons).toEqual([
      { code: 'preservation_unsatisfied', ids: ['SURF-cli'] },
      { code: 'preservation_capability_lost', ids: ['SURF-cli', 'reachability', 'capability:command:bye', 'capability:command:hello'] },
    ]);
    expect(storeDigest(w.home)).toBe(before2);
    expect(leftCopies()).toBe('0');
  }, 600_000);

  it('the writer\'s repository is the writer\'s: nothing of the gate was written into it', () => {
    const st = runAs(NAMES.writer1, ['/usr/bin/git', '-C', w.repo.root, 'status', '--porcelain'], { env: { HOME: '/nonexistent' } });
    expect(st.code).toBe(0);
    expect(st.stdout.trim()).toBe('');
  });
});
