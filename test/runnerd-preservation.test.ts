// Preservation through the daemon (docs/runnerd.md#probes-through-the-daemon): real users (gvd-sep5-…,
// removed after the file), a real daemon, real bwrap, the shipped Node adapter and real keys.
//   - YAML contracts cross the socket as bytes and round-trip: `unit create`, `unit bind` and
//     `preservation set` --runner with YAML store exactly the bytes sent, with the digest co-located
//     mode computes from the same text.
//   - `preservation probe --runner`: the daemon seals its copy of the writer's commit, runs the
//     allowlisted adapter, signs through its warm probe attestor (the probe key's own uid) and
//     records; the receipt says trust_mode separated with the daemon's identity, the probe
//     attestor's uid and the client uid the kernel reported, and `verify` accepts it.
//   - Attacks, each with its exact code and the daemon's store unchanged: a forged probe result in the
//     request, an adapter not on the allowlist, another writer's unit, --attestors/--home; neither the
//     writer nor the daemon uid can read the probe key (EACCES; the probe uid can: positive control). A store edited behind
//     the daemon (a probe receipt re-labelled) fails `audit verify` (the untouched copy passes).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, cpSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decisionTrustMode } from '../src/core/decision/delivery.js';
import { contractDigest } from '../src/core/contract/digests.js';
import { parseContractText } from '../src/core/contract/text.js';
import { parseEnvelopeBytes } from '../src/core/dsse.js';
import { parsePreservationBytes, preservationDigest } from '../src/core/preservation/text.js';
import { tablesDigest } from '../src/store/index.js';
import { CLI, REPO_ROOT, jsonOut, runCli, type CliResult } from './helpers/cli.js';
import { makeKey } from './helpers/receipts.js';
import { makeTempDir } from './helpers/temp.js';
import { contractDoc, SOURCE_TEXT } from './state-helpers.js';
import { IS_ROOT, asUser, chownTree, common, idsOf, makeSepWorld, namesFor, removeSepUsers, root, runAs, startDaemon, type Daemon, type SepWorld } from './runnerd-helpers.js';

const NAMES = namesFor('gvd-sep5');
const ADAPTER = join(REPO_ROOT, 'runner', 'preservation', 'node-adapter.mjs');
const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
const HELP = 'usage: greet <command>\n\nCommands:\n  hello   say hello\n  bye     say goodbye\n';
const GREET = `#!/usr/bin/env node\nif (process.argv.includes('--help')) { process.stdout.write(${JSON.stringify(HELP)}); process.exit(0); }\nprocess.stdout.write('hello\\n');\n`;
const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t', HOME: '/nonexistent', PATH: '/usr/bin:/bin' };
const git = (cwd: string, ...args: string[]): string => spawnSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).stdout.trim();

function storeDigest(home: string): string {
  const db = new Database(join(home, 'governed.db'), { readonly: true, fileMustExist: true });
  try {
    return tablesDigest(db);
  } finally {
    db.close();
  }
}

const errCode = (r: CliResult): string | undefined => ((jsonOut(r) as { error?: { code?: string } | null }).error ?? {}).code;

/** One raw request line to the socket as `user` (a client that writes its own JSON), and the reply line. */
function rawRequest(user: string, socket: string, line: string): { ok: boolean; error?: { code: string } } {
  const script = `const s=require('net').connect(process.argv[1]);let b='';s.on('connect',()=>s.write(process.argv[2]+'\\n'));s.on('data',c=>b+=c);s.on('end',()=>process.stdout.write(b));`;
  const r = runAs(user, [process.execPath, '-e', script, socket, line]);
  return JSON.parse(r.stdout.split('\n')[0] ?? '{}') as { ok: boolean; error?: { code: string } };
}

describe.skipIf(!IS_ROOT)('separated mode: preservation contracts and probes through the daemon', () => {
  let w: SepWorld;
  let d: Daemon;
  let repo: string;
  let baseline: string;
  let unit: string;
  let dir1: string;
  let dir2: string;
  let scratch: string;
  const env = (): Record<string, string> => ({ GOVERNED_RUNNER: w.socket });
  const as1 = (args: string[]): CliResult => asUser(NAMES.writer1, [...args, '--json'], { cwd: repo, env: env() });
  const as2 = (args: string[]): CliResult => asUser(NAMES.writer2, [...args, '--json'], { cwd: dir2, env: env() });
  const writerFile = (dir: string, owner: string, name: string, bytes: string | Buffer): string => {
    const f = join(dir, name);
    writeFileSync(f, bytes);
    chownTree(f, idsOf(owner));
    return f;
  };
  const refused = (r: () => CliResult, code: string): void => {
    const before = storeDigest(w.home);
    const res = r();
    expect(errCode(res), res.stdout + res.stderr).toBe(code);
    expect(res.code).not.toBe(0);
    expect(storeDigest(w.home)).toBe(before);
  };
  const preservationYaml = (): string =>
    stringify({
      kind: 'governed/preservation-contract',
      version: 1,
      baseline,
      intent: 'Keep the greet command.',
      surfaces: [{ id: 'SURF-cli', kind: 'cli_command', paths: ['bin', 'package.json'], disposition: 'preserve', probe: 'bin:greet', baseline_evidence_id: 'EVD-cli-b', current_evidence_id: 'EVD-cli-c' }],
      vendor_sources: [],
    });
  const probeRows = (): { id: string; envelope: Buffer }[] => {
    const db = new Database(join(w.home, 'governed.db'), { readonly: true, fileMustExist: true });
    try {
      return db.prepare('SELECT id, envelope FROM probe_receipts ORDER BY log_seq').all() as { id: string; envelope: Buffer }[];
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    scratch = makeTempDir('gvd-sep5-keys-');
    const probeKey = makeKey(join(scratch, 'k'), 'probe');
    w = await makeSepWorld({ names: NAMES, probe: { key: probeKey, adapterSha256: sha(readFileSync(ADAPTER)) } });
    d = await startDaemon(w);
    // The writer's product: a CLI with a --help listing, and the request the unit contract cites.
    repo = makeTempDir('gvd-sep5-repo-');
    mkdirSync(join(repo, 'bin'));
    mkdirSync(join(repo, 'requests'));
    mkdirSync(join(repo, 'src'));
    writeFileSync(join(repo, 'requests', 'export.md'), SOURCE_TEXT);
    writeFileSync(join(repo, 'src', 'export.ts'), 'export const csv = "baseline";\n');
    writeFileSync(join(repo, 'src', 'util.ts'), 'export const util = 1;\n');
    writeFileSync(join(repo, 'package.json'), JSON.stringify({ name: 'greeter', version: '1.0.0', type: 'module', bin: { greet: 'bin/greet.js' } }, null, 2));
    writeFileSync(join(repo, 'bin', 'greet.js'), GREET);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'baseline');
    baseline = git(repo, 'rev-parse', 'HEAD');
    chownTree(repo, idsOf(NAMES.writer1));
    chmodSync(repo, 0o700);
    dir1 = makeTempDir('gvd-sep5-w1-');
    dir2 = makeTempDir('gvd-sep5-w2-');
    // Writer 2's own repository (its probes snapshot it).
    writeFileSync(join(dir2, 'README'), 'w2\n');
    git(dir2, 'init', '-q', '-b', 'main');
    git(dir2, 'add', '-A');
    git(dir2, 'commit', '-q', '-m', 'w2');
    chownTree(dir1, idsOf(NAMES.writer1));
    chownTree(dir2, idsOf(NAMES.writer2));
    chmodSync(dir1, 0o700);
    chmodSync(dir2, 0o700);
  }, 240_000);
  afterAll(async () => {
    await d?.stop();
    removeSepUsers(NAMES);
    for (const x of [scratch, dir1, dir2, repo]) if (x !== undefined) rmSync(x, { recursive: true, force: true });
  });

  it('YAML contracts round-trip through the daemon: unit create and unit bind store exactly the bytes sent, with the digest of the same text parsed co-located', () => {
    const yaml1 = stringify(contractDoc());
    const created = as1(['unit', 'create', '--contract', writerFile(dir1, NAMES.writer1, 'contract.yaml', yaml1), '--baseline', baseline]);
    expect(created.code, created.stdout + created.stderr).toBe(0);
    unit = jsonOut(created).unit as string;
    expect(jsonOut(created).contract_digest).toBe(contractDigest(parseContractText(yaml1, 'contract.yaml')));
    // The same YAML under a .json-looking name is still YAML by its content (the daemon's scratch
    // name claims no format), and a bind of the next version (progress: active → done) round-trips.
    const next = contractDoc({ state: 'done' });
    const yaml2 = stringify(next);
    const bound = as1(['unit', 'bind', '--unit', unit, '--contract', writerFile(dir1, NAMES.writer1, 'contract-next.yaml', yaml2)]);
    expect(bound.code, bound.stdout + bound.stderr).toBe(0);
    expect(jsonOut(bound).contract_digest).toBe(contractDigest(parseContractText(yaml2, 'x.yaml')));
    const db = new Database(join(w.home, 'governed.db'), { readonly: true, fileMustExist: true });
    try {
      const stored = db.prepare('SELECT contract_bytes FROM scope_versions WHERE unit = ? ORDER BY version').pluck().all(unit) as Buffer[];
      expect(stored.map((b) => b.toString('utf8'))).toEqual([yaml1, yaml2]);
    } finally {
      db.close();
    }
  });

  it('preservation set --runner binds a YAML preservation contract byte for byte; another writer and --home are refused, nothing recorded', () => {
    const text = preservationYaml();
    const file = writerFile(dir1, NAMES.writer1, 'preservation.yaml', text);
    refused(() => as2(['preservation', 'set', '--unit', unit, '--contract', writerFile(dir2, NAMES.writer2, 'p.yaml', text)]), 'runnerd_not_owner');
    refused(() => as1(['preservation', 'set', '--unit', unit, '--contract', file, '--home', dir1]), 'runnerd_option_not_remote');
    const set = as1(['preservation', 'set', '--unit', unit, '--contract', file]);
    expect(set.code, set.stdout + set.stderr).toBe(0);
    expect(jsonOut(set)).toMatchObject({ ok: true, unit, version: 1, contract_digest: preservationDigest(parsePreservationBytes(Buffer.from(text))) });
    const db = new Database(join(w.home, 'governed.db'), { readonly: true, fileMustExist: true });
    try {
      expect((db.prepare('SELECT contract_bytes FROM preservation_versions WHERE unit = ?').pluck().get(unit) as Buffer).toString('utf8')).toBe(text);
    } finally {
      db.close();
    }
  });

  it('preservation probe --runner: the daemon runs the allowlisted adapter on its copy and signs with its probe key; the receipt says separated, with the kernel-reported client uid', () => {
    const adapter = writerFile(dir1, NAMES.writer1, 'node-adapter.mjs', readFileSync(ADAPTER));
    const base = as1(['preservation', 'probe', '--unit', unit, '--phase', 'baseline', '--adapter', adapter]);
    expect(base.code, base.stdout + base.stderr).toBe(0);
    expect(jsonOut(base)).toMatchObject({ ok: true, unit, phase: 'baseline', inventory: 1 });
    const probes = jsonOut(base).probes as { surface: string; exit_code: number; capabilities: string[]; receipt: string }[];
    expect(probes).toMatchObject([{ surface: 'SURF-cli', exit_code: 0, capabilities: ['command:bye', 'command:hello'] }]);
    const row = probeRows().find((r) => r.id === probes[0]?.receipt);
    expect(row).toBeDefined();
    const env = parseEnvelopeBytes(row!.envelope);
    const predicate = (JSON.parse(env.payload.toString('utf8')) as { predicate: Record<string, unknown> }).predicate;
    expect(predicate.trust_mode).toBe('separated');
    expect(predicate.separation).toMatchObject({ client_uid: idsOf(NAMES.writer1).uid, daemon_uid: idsOf(NAMES.daemon).uid, boot_id: d.ready.boot_id });
    const probeUid = idsOf(`${NAMES.daemon}-probe`).uid;
    expect((predicate.separation as { attestor_uids: Record<string, number> }).attestor_uids).toEqual({ reviewer: idsOf(`${NAMES.daemon}-reviewer`).uid, runner: idsOf(`${NAMES.daemon}-runner`).uid, probe: probeUid, log: idsOf(`${NAMES.daemon}-log`).uid });
    expect(new Set([probeUid, idsOf(NAMES.daemon).uid, idsOf(NAMES.writer1).uid]).size).toBe(3);
    expect(env.signatures.map((s) => s.keyid)).toEqual([(w.setupOut.credentials as Record<string, { key_id: string }>).probe!.key_id]);
    // The receipt verifies under the trust root the deploy side holds.
    const file = join(scratch, 'probe-receipt.json');
    writeFileSync(file, row!.envelope);
    const v = runCli(['verify', file, '--trust', w.trustFile, '--json']);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    expect(jsonOut(v)).toMatchObject({ ok: true, receipts: [{ valid: true, kind: 'probe', phase: 'baseline', receipt_id: row!.id, signed_by: [{ role: 'probe' }] }] });
    // A current probe of the writer's workspace (an uncommitted change is part of the snapshot).
    const cur = as1(['preservation', 'probe', '--unit', unit, '--phase', 'current', '--adapter', adapter]);
    expect(cur.code, cur.stdout + cur.stderr).toBe(0);
    expect(probeRows()).toHaveLength(2);
    // A separated review receipt: the decision, which counts both probes, is separated.
    expect(as1(['writer', 'register', '--unit', unit, '--writer-session', 'agent-1']).code).toBe(0);
    const ch = as1(['review-challenge', '--unit', unit, '--writer-session', 'agent-1', '--stage', 'development', '--slot', 'clean']);
    expect(ch.code, ch.stdout + ch.stderr).toBe(0);
    const run = as1(['review-run', '--challenge', jsonOut(ch).challenge_id as string]);
    expect(jsonOut(run).verdict, run.stdout + run.stderr).toBe('CLEAN');
    const st = as1(['status', '--unit', unit]);
    expect(jsonOut(st), st.stdout + st.stderr).toMatchObject({ trust_mode: 'separated' });
  });

  it('attacks: a forged probe result, an adapter off the allowlist, another writer, --attestors — each refused with its code, the store unchanged', () => {
    const adapter = writerFile(dir1, NAMES.writer1, 'adapter-ok.mjs', readFileSync(ADAPTER));
    // A hand-written "adapter" that prints a probe result claiming every capability.
    const fake = writerFile(dir1, NAMES.writer1, 'fake.mjs', `process.stdout.write(${JSON.stringify(JSON.stringify({ kind: 'governed/probe-results', version: 1, results: [{ kind: 'governed/probe-result', version: 1, entry: 'bin:greet', exit_code: 0, capabilities: ['command:bye', 'command:hello'], output_digest: `sha256:${'0'.repeat(64)}` }] }))});\n`);
    refused(() => as1(['preservation', 'probe', '--unit', unit, '--phase', 'current', '--adapter', fake]), 'preservation_adapter_not_allowlisted');
    const edited = writerFile(dir1, NAMES.writer1, 'edited.mjs', Buffer.concat([readFileSync(ADAPTER), Buffer.from('\n// edited\n')]));
    refused(() => as1(['preservation', 'probe', '--unit', unit, '--phase', 'current', '--adapter', edited]), 'preservation_adapter_not_allowlisted');
    refused(() => as2(['preservation', 'probe', '--unit', unit, '--phase', 'current', '--adapter', writerFile(dir2, NAMES.writer2, 'a.mjs', readFileSync(ADAPTER))]), 'runnerd_not_owner');
    refused(() => as1(['preservation', 'probe', '--unit', unit, '--phase', 'current', '--adapter', adapter, '--attestors', dir1]), 'runnerd_option_not_remote');
    // A client that writes its own request with the result in it: the closed schema refuses it.
    const before = storeDigest(w.home);
    const forged = rawRequest(NAMES.writer1, w.socket, JSON.stringify({ v: 1, op: 'preservation-probe', unit, phase: 'current', adapter_b64: readFileSync(ADAPTER).toString('base64'), content: { commit: baseline, bundle_b64: 'AAAA' }, results: [{ exit_code: 0 }] }));
    expect(forged).toMatchObject({ ok: false, error: { code: 'runnerd_request_invalid' } });
    expect(storeDigest(w.home)).toBe(before);
    // Positive control: the allowlisted adapter's bytes record.
    const ok = as1(['preservation', 'probe', '--unit', unit, '--phase', 'current', '--adapter', adapter]);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(storeDigest(w.home)).not.toBe(before);
  });

  it('neither the writer nor the daemon uid can read the probe key (EACCES) while the probe attestor uid can (positive control)', () => {
    const key = join(w.base, 'keys', 'probe', 'key.pem');
    const as = (user: string): CliResult => runAs(user, ['/bin/cat', key]);
    for (const user of [NAMES.writer1, NAMES.daemon]) {
      const r = as(user);
      expect(r.code, user).not.toBe(0);
      expect(r.stderr, user).toMatch(/Permission denied/);
      expect(r.stdout, user).toBe('');
    }
    const probe = as(`${NAMES.daemon}-probe`);
    expect(probe.code, probe.stderr).toBe(0);
    expect(probe.stdout).toMatch(/BEGIN PRIVATE KEY/);
  });

  it('doctor names the probe key left as the daemon\'s own (owner and mode), and a second setup hands it back to the probe uid, printing what it changed', () => {
    const dirPath = join(w.base, 'keys', 'probe');
    const key = join(dirPath, 'key.pem');
    const probe = idsOf(`${NAMES.daemon}-probe`);
    const st = statSync(key);
    expect({ uid: st.uid, mode: st.mode & 0o7777, dirUid: statSync(dirPath).uid, dir: statSync(dirPath).mode & 0o7777 }).toEqual({ uid: probe.uid, mode: 0o400, dirUid: probe.uid, dir: 0o700 });
    // The layout before the probe attestor had a uid of its own: the key the daemon's, 0600.
    const daemon = idsOf(NAMES.daemon);
    chownSync(key, daemon.uid, daemon.gid);
    chmodSync(key, 0o600);
    const doctor = root(['runnerd', 'doctor', ...common(w), '--json']);
    expect(doctor.code).toBe(4);
    const failed = jsonOut(doctor) as { ok: boolean; error: { code: string; ids: string[] } };
    expect([failed.ok, failed.error.code]).toEqual([false, 'runnerd_state_unsafe']);
    expect([...failed.error.ids].sort()).toEqual([`${key}:wrong_mode`, `${key}:wrong_owner`]);
    const fixed = root(['runnerd', 'setup', ...common(w), '--json']);
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
    expect(jsonOut(fixed).actions).toEqual([`owner of ${key} set to ${probe.uid}:${probe.gid}`, `mode of ${key} set to 0400`]);
    expect(jsonOut(root(['runnerd', 'doctor', ...common(w), '--json']))).toEqual({ ok: true, findings: [], schema_version: 1, exit: 0 });
    // Idempotent: a third setup changes nothing.
    expect(jsonOut(root(['runnerd', 'setup', ...common(w), '--json'])).actions).toEqual([]);
  });

  it('a probe run in the key holder\'s own process (co-located) makes the decision co-located: status on a copy of the store says so', () => {
    const dir = makeTempDir('gvd-sep5-colo-');
    const home = join(dir, 'home');
    cpSync(w.home, home, { recursive: true });
    const checkout = join(dir, 'checkout');
    cpSync(join(w.base, 'state', 'work', unit), checkout, { recursive: true });
    // The probe key's holder is the probe attestor's uid: it runs the copy, co-located.
    const holder = `${NAMES.daemon}-probe`;
    chownTree(dir, idsOf(holder));
    const asHolder = (args: string[]): CliResult => runAs(holder, [process.execPath, CLI, ...args, '--home', home, '--repo', checkout, '--json'], { cwd: checkout });
    try {
      const before = asHolder(['status', '--unit', unit]);
      expect(jsonOut(before), before.stdout + before.stderr).toMatchObject({ trust_mode: 'separated' });
      // The holder of the probe key probes in its own process (the daemon's attestors dir, co-located).
      const colo = asHolder(['preservation', 'probe', '--unit', unit, '--phase', 'current', '--adapter', ADAPTER, '--attestors', join(w.base, 'attestors')]);
      expect(colo.code, colo.stdout + colo.stderr).toBe(0);
      const after = asHolder(['status', '--unit', unit]);
      expect(jsonOut(after), after.stdout + after.stderr).toMatchObject({ trust_mode: 'co-located' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a store edited behind the daemon — a probe receipt re-labelled co-located — fails audit verify; the untouched copy passes', () => {
    const copy = (name: string): string => {
      const dir = makeTempDir(`gvd-sep5-${name}-`);
      cpSync(w.home, join(dir, 'home'), { recursive: true });
      chownTree(dir, idsOf(NAMES.daemon));
      return join(dir, 'home');
    };
    const audit = (home: string): CliResult => runAs(NAMES.daemon, [process.execPath, CLI, 'audit', 'verify', '--home', home, '--json']);
    const clean = copy('clean');
    const edited = copy('edited');
    try {
      const good = audit(clean);
      expect(good.code, good.stdout + good.stderr).toBe(0);
      const db = new Database(join(edited, 'governed.db'), { fileMustExist: true });
      try {
        const row = db.prepare('SELECT id, envelope FROM probe_receipts ORDER BY log_seq DESC LIMIT 1').get() as { id: string; envelope: Buffer };
        const env = JSON.parse(row.envelope.toString('utf8')) as { payload: string };
        env.payload = Buffer.from(Buffer.from(env.payload, 'base64').toString('utf8').replace('"trust_mode":"separated"', '"trust_mode":"co-located"')).toString('base64');
        db.prepare('UPDATE probe_receipts SET envelope = ? WHERE id = ?').run(Buffer.from(JSON.stringify(env)), row.id);
      } finally {
        db.close();
      }
      const bad = audit(edited);
      expect(bad.code, bad.stdout).not.toBe(0);
      expect(jsonOut(bad).ok).toBe(false);
    } finally {
      rmSync(join(clean, '..'), { recursive: true, force: true });
      rmSync(join(edited, '..'), { recursive: true, force: true });
    }
  });
});

describe('the decision trust mode counts probe receipts (docs/runnerd.md#probes-through-the-daemon)', () => {
  it('separated only when every review receipt is separated and no counted probe receipt is co-located', () => {
    const sep = [{ trustMode: 'separated' as const }];
    expect(decisionTrustMode(sep, [])).toBe('separated');
    expect(decisionTrustMode(sep, [`sha256:${'1'.repeat(64)}`])).toBe('co-located');
    expect(decisionTrustMode([{ trustMode: 'co-located' as const }], [])).toBe('co-located');
    expect(decisionTrustMode([], [])).toBe('co-located');
  });
});
