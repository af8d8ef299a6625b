// Demo section: separated mode (docs/runnerd.md). As root it makes the keys, the trust root and the
// strict policy with `governed setup`, creates the system users (all named gvd-demo-…, removed at
// the end), installs the keys, attestors and the store under them with `governed runnerd setup`, starts `governed runnerd serve`, and then runs the writer as an
// unprivileged uid in the writers' group: the demo unit under policies/strict.yaml (this machine's
// digests, `preservation: required` as shipped) goes from nothing to RELEASE_ELIGIBLE through the
// socket only — the preservation contract and the baseline and current probes
// (docs/runnerd.md#probes-through-the-daemon), reviews, `unit bind --runner`, `gate --runner` on the
// commit — while the writer cannot read a key or the store. Not root, or no bubblewrap: the step says so and is skipped.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseDocument } from 'yaml';
import { contractYaml, git, makeRepo, writeChange } from './world.mjs';

const ROLES = ['source_fidelity', 'baseline_preservation', 'implementation_test', 'authority_release'];
const DAEMON = 'gvd-demo-d';
const WRITERS = 'gvd-demo-w';
const WRITER = 'gvd-demo-w1';
const SYS = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', NO_COLOR: '1' };

function chownTree(p, uid, gid) {
  chownSync(p, uid, gid);
  if (lstatSync(p).isDirectory()) for (const n of readdirSync(p)) chownTree(join(p, n), uid, gid);
}

export async function separatedStory({ root, cli, work, firstStep, out = process.stdout }) {
  let failures = 0;
  const step = (title) => out.write(`\n\u2501\u2501 ${title}\n`);
  const say = (text) => out.write(`   ${text}\n`);
  step(`${firstStep}. Separated mode: the writer reaches RELEASE_ELIGIBLE under policies/strict.yaml (preservation required) only through governed runnerd`);
  if (process.geteuid?.() !== 0) {
    say('SKIPPED: this step creates system users and starts the daemon as root; run `sudo npm run demo` to see it.');
    return 0;
  }
  if (!existsSync('/usr/bin/bwrap')) {
    say('SKIPPED: no /usr/bin/bwrap on this machine (the daemon runs every reviewer in bubblewrap).');
    return 0;
  }
  const scrub = (s) => s.replaceAll(work, '$DEMO').replaceAll(root, '.');
  const show = (r, quiet) => {
    const lines = `${r.stdout}${r.stderr}`.trimEnd().split('\n').filter(Boolean);
    const shown = quiet > 0 ? lines.slice(0, quiet) : lines;
    for (const line of shown) out.write(`     ${scrub(line)}\n`);
    if (shown.length < lines.length) out.write(`     … (${lines.length - shown.length} more lines)\n`);
  };
  const check = (r, expectExit) => {
    const ok = r.status === expectExit;
    if (!ok) failures++;
    say(`${ok ? '\u2713' : '\u2717 UNEXPECTED'} exit ${r.status} (expected ${expectExit})`);
    return r;
  };
  /** governed as root (setup). */
  const asRoot = (args, expectExit, quiet = 0) => {
    out.write(`   # governed ${scrub(args.join(' '))}\n`);
    const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: SYS });
    show(r, quiet);
    return check(r, expectExit);
  };
  const base = join(work, 'srv');
  const socket = join(base, 'run', 'runnerd.sock');
  const repo = join(work, 'repo');
  /** A command of the writer uid, through its own shell (its parent process is the writer's). */
  const asWriter = (argv, { cwd = repo, env = {} } = {}) =>
    spawnSync('setpriv', ['--reuid', WRITER, '--regid', WRITER, '--init-groups', '--', '/bin/sh', '-c', '"$@"; exit $?', 'sh', ...argv], {
      cwd,
      encoding: 'utf8',
      env: { PATH: '/usr/bin:/bin', NO_COLOR: '1', HOME: '/nonexistent', GOVERNED_RUNNER: socket, ...env },
    });
  const writer = (args, expectExit, quiet = 0) => {
    out.write(`   $ governed ${scrub(args.join(' '))}            (uid ${WRITER}, GOVERNED_RUNNER=${scrub(socket)})\n`);
    const r = asWriter([process.execPath, cli, ...args]);
    show(r, quiet);
    return check(r, expectExit);
  };
  const json = (r) => {
    try {
      return JSON.parse(r.stdout.trim().split('\n').pop() ?? '');
    } catch {
      failures++;
      return {};
    }
  };
  let daemon = null;
  try {
    mkdirSync(work, { recursive: true });
    // The writer uid must reach its repository and the socket: the demo's private directory is
    // made traversable (0711: no listing), this step's own readable.
    chmodSync(dirname(work), 0o711);
    chmodSync(work, 0o755);
    mkdirSync(base, { mode: 0o755 });
    // The writers' group and one writer (the daemon's users are made by runnerd setup).
    if (spawnSync('getent', ['group', WRITERS]).status !== 0) spawnSync('groupadd', ['--system', WRITERS], { env: SYS });
    if (spawnSync('id', [WRITER]).status !== 0) {
      spawnSync('useradd', ['--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', '--user-group', '-G', WRITERS, WRITER], { env: SYS });
    }
    // `governed setup` (docs/setup.md) makes every key, the trust root and the strict policy with this
    // machine's digests (bwrap, profiles, seccomp, the coverage reviewer); no store here (--no-init):
    // the daemon keeps the store, made below by `runnerd setup`.
    const setupDir = join(work, 'setup');
    say('root makes the keys, the trust root and policies/strict.yaml filled with this machine\'s digests:');
    asRoot(['setup', '--out', setupDir, '--home', join(base, 'state', 'home'), '--policy-template', 'strict', '--no-init'], 0, 1);
    const keys = join(setupDir, 'keys');
    const common = ['--dir', base, '--socket', socket, '--user', DAEMON, '--writers', WRITERS];
    say('root installs the daemon: its users, key files (0400, each readable by its attestor uid only), attestors, reviewer:');
    // The log and probe keys too: the trust root below holds them, so the checkpoints the
    // daemon signs verify on the deploy side (docs/runnerd.md#checkpoints).
    const setupArgs = ['runnerd', 'setup', ...common, ...['reviewer', 'runner', 'log', 'probe'].flatMap((c) => ['--key', `${c}=${join(keys, `${c}.key`)}`]), '--reviewer', join(root, 'runner', 'reviewers', 'coverage.mjs'), '--json'];
    out.write(`   # governed ${scrub(setupArgs.join(' '))}\n`);
    const setupRun = spawnSync(process.execPath, [cli, ...setupArgs], { encoding: 'utf8', env: SYS });
    const setup = json(setupRun);
    for (const a of (setup.actions ?? []).filter((x) => /^created user|^installed key|^wrote .*reviewers/.test(x))) out.write(`     ${scrub(a)}\n`);
    check(setupRun, 0);
    // The reviewer, runner, log and probe credentials sign through the daemon's attestors: the policy
    // pins the attestors and the configurations `runnerd setup` installed (its output names their
    // digests). The trust root holds the log key (its attestor uid's, not the daemon's), so the checkpoints verify on the
    // deploy side (docs/runnerd.md#checkpoints).
    const cred = setup.credentials ?? {};
    const policy = parseDocument(readFileSync(join(setupDir, 'policy.yaml'), 'utf8'));
    for (const c of ['reviewer', 'runner', 'log', 'probe']) {
      policy.setIn(['credentials', c, 'attestor_sha256'], policy.createNode([cred[c]?.attestor_sha256], { flow: true }));
      policy.setIn(['credentials', c, 'attestor_config_sha256'], policy.createNode([cred[c]?.attestor_config_sha256], { flow: true }));
    }
    // A checkpoint every 20 entries (strict.yaml: 1000), so this short story shows the daemon signing some.
    policy.set('tlog_checkpoints', policy.createNode({ every_entries: 20 }, { flow: true }));
    writeFileSync(join(work, 'policy.yaml'), policy.toString());
    // The deploy side's copy of the trust root (the writer uid runs the gate below).
    writeFileSync(join(work, 'trust.json'), readFileSync(join(setupDir, 'trust.json')));
    chmodSync(join(work, 'trust.json'), 0o644);
    say('policy.yaml = setup\'s strict policy (trust_mode: separated, accept_co_located: false), its reviewer, runner, log and');
    say('probe credentials pinned to the daemon\'s attestors, a checkpoint every 20 entries; preservation required, the shipped');
    say('Node adapter allowlisted and the check profile pinned (both by setup).');
    say('The store is made and handed to the daemon\'s user:');
    asRoot(['runnerd', 'setup', ...common, '--policy', join(work, 'policy.yaml'), '--trust', join(work, 'trust.json')], 0, 2);

    say('the daemon starts as root, starts one warm attestor per key under its own uid, binds the socket, drops to its user:');
    out.write(`   # governed runnerd serve ${scrub(common.join(' '))}\n`);
    daemon = spawn(process.execPath, [cli, 'runnerd', 'serve', ...common], { env: SYS, stdio: ['ignore', 'pipe', 'pipe'] });
    const ready = await new Promise((resolve) => {
      let buf = '';
      const t = setTimeout(() => resolve(null), 30_000);
      daemon.stderr.on('data', (c) => {
        buf += c.toString();
        const line = buf.split('\n').find((l) => l.includes('"ready":true'));
        if (line) {
          clearTimeout(t);
          resolve(JSON.parse(line));
        }
      });
      daemon.on('close', () => resolve(null));
    });
    if (ready === null) {
      failures++;
      say('\u2717 UNEXPECTED the daemon did not become ready');
      return failures;
    }
    say(`\u2713 ready: daemon pid ${ready.daemon_pid} uid ${ready.daemon_uid}, attestor uids ${JSON.stringify(ready.attestor_uids)}, sandbox host uid ${ready.sandbox_uid}`);

    // The writer's repository, owned by the writer: the baseline (the product's package.json makes
    // its records a library export, the surface the preservation contract names), then the change written.
    makeRepo(work);
    writeFileSync(join(repo, 'package.json'), `${JSON.stringify({ name: 'demo-product', version: '1.0.0', type: 'module', exports: { '.': './src/records.js' } }, null, 2)}\n`);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'package');
    writeFileSync(join(work, 'contract.yaml'), contractYaml('active'));
    writeFileSync(join(work, 'contract-done.yaml'), contractYaml('done'));
    // The preservation contract (docs/preservation.md#the-contract): the library export is extended
    // (the change adds src/export.js and its test), and the shipped adapter the writer hands the daemon.
    const baselineCommit = git(repo, 'rev-parse', 'HEAD');
    const preservation = {
      kind: 'governed/preservation-contract',
      version: 1,
      baseline: baselineCommit,
      intent: 'Keep every export of the records library.',
      surfaces: [{ id: 'SURF-lib', kind: 'library_export', paths: ['package.json', 'src', 'test'], disposition: 'extend', probe: 'export:.', baseline_evidence_id: 'EVD-lib-b', current_evidence_id: 'EVD-lib-c' }],
      vendor_sources: [],
    };
    writeFileSync(join(work, 'preservation.json'), `${JSON.stringify(preservation, null, 2)}\n`);
    writeFileSync(join(work, 'node-adapter.mjs'), readFileSync(join(root, 'runner', 'preservation', 'node-adapter.mjs')));
    for (const f of ['contract.yaml', 'contract-done.yaml', 'preservation.json', 'node-adapter.mjs']) chmodSync(join(work, f), 0o644);
    writeChange(repo);
    const ids = spawnSync('id', ['-u', WRITER], { encoding: 'utf8' }).stdout.trim();
    chownTree(repo, Number(ids), Number(spawnSync('id', ['-g', WRITER], { encoding: 'utf8' }).stdout.trim()));
    // The deploy side's own directory (here the writer's uid plays it): where the gate keeps the newest checkpoint.
    const deploy = join(work, 'deploy');
    mkdirSync(deploy, { mode: 0o700 });
    chownTree(deploy, Number(ids), Number(spawnSync('id', ['-g', WRITER], { encoding: 'utf8' }).stdout.trim()));

    say('the writer cannot read a key or open the store (the kernel says no, not governed):');
    const probe = asWriter(['/bin/cat', join(base, 'keys', 'reviewer', 'key.pem'), join(base, 'state', 'home', 'governed.db')]);
    say(`${probe.status !== 0 && probe.stdout === '' ? '\u2713' : '\u2717 UNEXPECTED'} ${scrub(probe.stderr.trim().split('\n')[0] ?? '')}`);
    if (!(probe.status !== 0 && probe.stdout === '')) failures++;

    const baseline = asWriter(['git', 'rev-parse', 'HEAD']).stdout.trim();
    const unit = json(writer(['unit', 'create', '--contract', join(work, 'contract.yaml'), '--baseline', baseline, '--json'], 0)).unit ?? '';
    writer(['writer', 'register', '--unit', unit, '--writer-session', 'agent-1'], 0);
    say('the preservation contract, bound through the daemon (policies/strict.yaml: preservation required):');
    writer(['preservation', 'set', '--unit', unit, '--contract', join(work, 'preservation.json')], 0, 2);
    const probeThroughDaemon = (phase) => {
      const args = ['preservation', 'probe', '--unit', unit, '--phase', phase, '--adapter', join(work, 'node-adapter.mjs'), '--json'];
      out.write(`   $ governed ${scrub(args.join(' '))}            (uid ${WRITER}, GOVERNED_RUNNER=${scrub(socket)})\n`);
      const r = check(asWriter([process.execPath, cli, ...args]), 0);
      const o = json(r);
      const row = (o.probes ?? [])[0] ?? {};
      const ok = o.ok === true && row.exit_code === 0 && (row.capabilities ?? []).includes('export:records');
      if (!ok) failures++;
      say(`${ok ? '\u2713' : '\u2717 UNEXPECTED'} ${phase} probe: ${row.surface} exit ${row.exit_code}, capabilities ${JSON.stringify(row.capabilities ?? [])}, receipt ${row.receipt}`);
    };
    say('the baseline probe: the daemon seals the baseline commit, runs the allowlisted adapter in the check sandbox');
    say('and has the result signed by its probe attestor (its own uid); the writer sends the adapter\'s bytes, never a result:');
    probeThroughDaemon('baseline');
    let lastReceipt = null;
    const review = (stage, slot) => {
      const c = asWriter([process.execPath, cli, 'review-challenge', '--unit', unit, '--writer-session', 'agent-1', '--stage', stage, '--slot', slot, '--json']);
      const challenge = c.status === 0 ? JSON.parse(c.stdout).challenge_id : 'CHL-refused';
      const r = asWriter([process.execPath, cli, 'review-run', '--challenge', challenge, '--json']);
      let o = {};
      try {
        o = JSON.parse(r.stdout.trim().split('\n').pop() ?? '');
      } catch {
        /* reported below */
      }
      const ok = c.status === 0 && r.status === 0;
      if (!ok) failures++;
      if (o.receipt_id) lastReceipt = o.receipt_id;
      say(`${ok ? '\u2713' : '\u2717 UNEXPECTED'} ${`${stage}/${slot}`.padEnd(34)} ${challenge} \u2192 ${String(o.verdict ?? o.error?.code ?? '?').padEnd(6)} exit ${r.status}`);
    };
    say('planning, two CLEAN rounds (each line: review-challenge then review-run, both through the socket):');
    for (let round = 0; round < 2; round++) for (const role of ROLES) review('planning', role);
    // The reviewer ran under the policy's sandbox uid, not the daemon's (docs/runnerd.md#the-sandbox-host).
    out.write(`   $ governed receipt show --receipt ${lastReceipt} --json            (uid ${WRITER}; its sandbox facts:)\n`);
    const shown = json(asWriter([process.execPath, cli, 'receipt', 'show', '--receipt', lastReceipt ?? 'sha256:missing', '--json']));
    let sandboxFacts = {};
    try {
      const envelope = JSON.parse(Buffer.from(shown.envelope_b64 ?? '', 'base64').toString('utf8'));
      sandboxFacts = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')).predicate.sandbox ?? {};
    } catch {
      /* reported below */
    }
    const separatedUid = sandboxFacts.uid_separated === true && sandboxFacts.uid === ready.sandbox_uid && sandboxFacts.uid !== ready.daemon_uid;
    if (!separatedUid) failures++;
    say(`${separatedUid ? '\u2713' : '\u2717 UNEXPECTED'} the last receipt: sandbox uid ${sandboxFacts.uid}, uid_separated ${sandboxFacts.uid_separated} (the daemon is uid ${ready.daemon_uid})`);
    say('the directive is done: the next scope version, bound through the daemon (its own copy of the content):');
    writer(['unit', 'bind', '--unit', unit, '--contract', join(work, 'contract-done.yaml')], 0, 2);
    for (let round = 0; round < 2; round++) review('development', 'coverage');
    const gitEnv = { GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'Demo Writer', GIT_AUTHOR_EMAIL: 'writer@example.invalid', GIT_COMMITTER_NAME: 'Demo Writer', GIT_COMMITTER_EMAIL: 'writer@example.invalid' };
    asWriter(['git', 'add', '-A'], { env: gitEnv });
    asWriter(['git', 'commit', '-q', '-m', 'Add export command'], { env: gitEnv });
    const head = asWriter(['git', 'rev-parse', 'HEAD']).stdout.trim();
    say('the current probe, of the commit (integration\'s challenges that show preservation are issued only with both probes):');
    probeThroughDaemon('current');
    for (let round = 0; round < 2; round++) for (const role of ROLES) review('integration', role);
    out.write(`   $ governed status --unit ${unit} --json            (uid ${WRITER})\n`);
    const statusRun = asWriter([process.execPath, cli, 'status', '--unit', unit, '--json']);
    const status = json(statusRun);
    say(`state ${status.state}, trustMode ${status.trustMode}, reasons ${JSON.stringify(status.reasons ?? null)}, preservation required ${status.preservation?.required}, probes relied on ${(status.reliedOn?.probes ?? []).length}`);
    check(statusRun, 0);
    const notes = (() => {
      try {
        return readdirSync(join(base, 'state', 'home', 'checkpoints')).filter((n) => n.endsWith('.note'));
      } catch {
        return [];
      }
    })();
    if (notes.length === 0) failures++;
    say(`${notes.length > 0 ? '\u2713' : '\u2717 UNEXPECTED'} the daemon signed ${notes.length} checkpoint(s) of its log with its log key (newest: tree size ${Number((notes.sort().pop() ?? '0').replace('.note', ''))})`);
    say('the deploy gate asks the daemon for a copy of its store and judges it under its OWN trust root, policy digest and commit:');
    const gateArgs = ['gate', '--unit', unit, '--trust', join(work, 'trust.json'), '--policy-digest', status.policyDigest ?? 'sha256:missing', '--subject', head, '--runner-checkpoint-out', join(deploy, 'kept-checkpoint.note')];
    writer(gateArgs, 0, 10);
    say('the store copy extended the daemon-signed checkpoint, verified under the deploy side\'s trust root; the newest is kept:');
    say(`${existsSync(join(deploy, 'kept-checkpoint.note')) ? '\u2713' : '\u2717 UNEXPECTED'} kept-checkpoint.note written by the gate`);
    if (!existsSync(join(deploy, 'kept-checkpoint.note'))) failures++;
    say('another policy digest on the deploy side: the copy does not decide for it:');
    writer(['gate', '--unit', unit, '--trust', join(work, 'trust.json'), '--policy-digest', `sha256:${'0'.repeat(64)}`, '--subject', head], 4, 2);
  } finally {
    if (daemon !== null && daemon.exitCode === null) {
      const closed = new Promise((r) => daemon.once('close', r));
      daemon.kill('SIGTERM');
      await closed;
    }
    for (const u of [WRITER, DAEMON, `${DAEMON}-reviewer`, `${DAEMON}-runner`, `${DAEMON}-probe`, `${DAEMON}-log`]) {
      if (spawnSync('id', [u]).status === 0) spawnSync('userdel', [u], { env: SYS });
      if (spawnSync('getent', ['group', u]).status === 0) spawnSync('groupdel', [u], { env: SYS });
    }
    if (spawnSync('getent', ['group', WRITERS]).status === 0) spawnSync('groupdel', [WRITERS], { env: SYS });
    say('the demo\'s users and group are removed again.');
  }
  return failures;
}
