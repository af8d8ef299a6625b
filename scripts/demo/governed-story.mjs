// Demo section: one unit of work from nothing to RELEASE_ELIGIBLE, with real keys, the real
// sandbox, the real coverage reviewer and real receipts — and the refusals on the way.
//   `governed setup` (keys, trust root, attestor configs, pinned policy, store: the path a new user
//   takes, docs/setup.md) and `governed doctor` →
//   planning rounds for the four roles on the baseline → a lease while the change is written →
//   a DIRTY development review (the test is missing) → the test is written → development and
//   integration rounds → `status` / `gate` at each step → `gate --subject` on the commit →
//   a tampered receipt makes the gate refuse.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { contractYaml, git, governedSetup, makeRepo, writeChange } from './world.mjs';

const ROLES = ['source_fidelity', 'baseline_preservation', 'implementation_test', 'authority_release'];

export function governedStory({ root, cli, work, out = process.stdout }) {
  let failures = 0;
  const step = (title) => out.write(`\n\u2501\u2501 ${title}\n`);
  const say = (text) => out.write(`   ${text}\n`);
  const home = join(work, 'state');
  const repo = makeRepo(work);
  const scrub = (s) => s.replaceAll(work, '$DEMO').replaceAll(root, '.');

  /** Run governed; print a short transcript; check the exit code. `quiet` prints only the first lines. */
  function governed(args, expectExit, { quiet = 0, cwd = repo, shown: display, store = true } = {}) {
    out.write(`   $ governed ${scrub(display ?? args.join(' '))}\n`);
    const r = spawnSync(process.execPath, [cli, ...args, ...(store ? ['--home', home] : [])], {
      cwd,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' },
    });
    const lines = `${r.stdout}${r.stderr}`.trimEnd().split('\n').filter(Boolean);
    const shown = quiet > 0 ? lines.slice(0, quiet) : lines;
    for (const line of shown) out.write(`     ${scrub(line)}\n`);
    if (shown.length < lines.length) out.write(`     … (${lines.length - shown.length} more lines)\n`);
    const ok = r.status === expectExit;
    if (!ok) failures++;
    say(`${ok ? '\u2713' : '\u2717 UNEXPECTED'} exit ${r.status} (expected ${expectExit})`);
    return r;
  }
  const json = (r) => {
    try {
      return JSON.parse(r.stdout.trim().split('\n').pop() ?? '');
    } catch {
      failures++;
      return {};
    }
  };

  step('6. A real world: a git repository with a human request; `governed setup` makes everything else');
  say('one command makes every Ed25519 key (0600), the trust root, the attestor configurations and a policy');
  say('(policies/default.yaml) pinned to THIS machine: bwrap, sandbox profile, seccomp blob, the shipped');
  say('reviewer and attestor, each configuration and key id; then it initialises the store (docs/setup.md).');
  say('Preservation is waived here, with its reason; it is walked in its own step.');
  const setupDir = join(work, 'setup');
  governed(['setup', '--out', setupDir, '--waive-preservation', 'this demo unit changes no product surface; preservation is shown in its own step'], 0, { quiet: 4 });
  say('running it again on the finished directory changes nothing, and says so:');
  const setup = governedSetup({ cli, work });
  say(`changed: ${setup.changed}, init: ${setup.init}, ${setup.files?.filter((f) => f.action === 'kept').length ?? 0} files kept, policy digest ${String(setup.policy_digest).slice(0, 19)}…`);
  if (setup.changed !== false) failures++;
  say('what setup printed last: the two lines to copy (the unit and the commit are filled in later, step 13):');
  for (const line of [setup.review_line, setup.gate_line]) say(`  ${scrub(String(line))}`);
  say('`governed doctor` checks a finished setup: modes, key agreement, pinned digests, bwrap and user namespaces, the store:');
  governed(['doctor', '--dir', setupDir], 0, { quiet: 12 });
  const attestorsDir = setup.attestors;
  const trustFile = setup.trust;
  const policyFile = setup.policy;
  const cfg = { gate: { path: setup.gate_attestor_config } };
  writeFileSync(join(work, 'contract.yaml'), contractYaml('active'));
  say('the store pins one policy and one trust root; init does not run twice:');
  governed(['init', '--policy', policyFile, '--trust', trustFile], 8);

  step('7. A unit of work: the request contract, bound to the baseline commit');
  const unit = json(governed(['unit', 'create', '--contract', join(work, 'contract.yaml'), '--baseline', 'HEAD', '--json'], 0)).unit ?? '';
  governed(['writer', 'register', '--unit', unit, '--writer-session', 'demo-writer'], 0);

  /** One review: a fresh one-time challenge, then the trusted runner. Printed as one line. */
  const review = (stage, slot, expectExit = 0) => {
    const run = (args) =>
      spawnSync(process.execPath, [cli, ...args, '--home', home, '--json'], { cwd: repo, encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    const c = run(['review-challenge', '--unit', unit, '--writer-session', 'demo-writer', '--stage', stage, '--slot', slot]);
    const challenge = c.status === 0 ? JSON.parse(c.stdout).challenge_id : 'CHL-refused';
    const r = run(['review-run', '--challenge', challenge, '--attestors', attestorsDir]);
    let o = {};
    try {
      o = JSON.parse(r.stdout.trim().split('\n').pop() ?? '');
    } catch {
      /* reported below */
    }
    const ok = c.status === 0 && r.status === expectExit;
    if (!ok) failures++;
    say(
      `${ok ? '\u2713' : '\u2717 UNEXPECTED'} ${`${stage}/${slot}`.padEnd(34)} ${challenge} \u2192 ${String(o.verdict ?? o.error?.code ?? '?').padEnd(6)} ` +
        `exit ${r.status} receipt ${String(o.receipt_id ?? '-').slice(0, 19)}…`,
    );
    return o;
  };
  const lastChallenge = () => {
    const db = new Database(join(home, 'governed.db'), { readonly: true });
    try {
      return db.prepare('SELECT challenge_id FROM runs ORDER BY claim_seq LIMIT 1').pluck().get();
    } finally {
      db.close();
    }
  };
  const gateArgs = (subject) => ['gate', '--unit', unit, '--trust', trustFile, '--policy-digest', setup.policy_digest, '--subject', subject];

  step('8. Planning: two CLEAN rounds, one challenge + sandboxed review per role (bundles from the baseline tree)');
  say('each line: `governed review-challenge` (one-time, expiring, bundle 0600) then `governed review-run`');
  say('(allowlisted reviewer in bubblewrap, output parsed strictly, drift re-checked, two attestor signatures)');
  let firstReceipt = null;
  for (let round = 1; round <= 2; round++) {
    for (const role of ROLES) {
      const o = review('planning', role);
      firstReceipt ??= o.receipt_id ?? null;
    }
  }
  say('a challenge is one-time: running the first one again is refused as a replay:');
  governed(['review-run', '--challenge', lastChallenge(), '--attestors', attestorsDir], 5, { quiet: 1 });
  say('any receipt can be exported and verified offline, by governed and by openssl:');
  const receiptFile = join(work, 'receipt.json');
  governed(['receipt', 'show', '--receipt', firstReceipt ?? 'sha256:missing', '--out', receiptFile], 0, { quiet: 1 });
  governed(['verify', receiptFile, '--trust', trustFile], 0);
  {
    const env = JSON.parse(readFileSync(receiptFile, 'utf8'));
    const payload = Buffer.from(env.payload, 'base64');
    writeFileSync(join(work, 'pae.bin'), Buffer.concat([Buffer.from(`DSSEv1 ${Buffer.byteLength(env.payloadType)} ${env.payloadType} ${payload.length} `), payload]));
    for (const [i, sig] of env.signatures.entries()) {
      const k = JSON.parse(readFileSync(trustFile, 'utf8')).keys.find((x) => x.key_id === sig.keyid);
      writeFileSync(join(work, `k${i}.pub`), k.public_key);
      writeFileSync(join(work, `s${i}.bin`), Buffer.from(sig.sig, 'base64'));
      const r = spawnSync('openssl', ['pkeyutl', '-verify', '-pubin', '-inkey', join(work, `k${i}.pub`), '-rawin', '-in', join(work, 'pae.bin'), '-sigfile', join(work, `s${i}.bin`)], { encoding: 'utf8' });
      if (r.status !== 0) failures++;
      say(`openssl (${k.roles[0]} key): ${(r.stdout || r.stderr).trim()}`);
    }
  }
  governed(['status', '--unit', unit], 0, { quiet: 14 });

  step('9. The writer takes the mutation lease and writes the implementation (no test yet)');
  const lease = json(governed(['lease', 'acquire', '--unit', unit, '--writer-session', 'demo-writer', '--json'], 0)).lease ?? '';
  say('while the lease is active, no challenge is issued:');
  governed(['review-challenge', '--unit', unit, '--writer-session', 'demo-writer', '--stage', 'development', '--slot', 'coverage'], 8);
  writeChange(repo);
  const testFile = join(repo, 'test', 'export.test.js');
  const testBytes = readFileSync(testFile);
  spawnSync('rm', ['-f', testFile]);
  governed(['lease', 'release', '--lease', lease, '--writer-session', 'demo-writer'], 0);
  writeFileSync(join(work, 'contract.yaml'), contractYaml('done'));
  governed(['unit', 'bind', '--unit', unit, '--contract', join(work, 'contract.yaml')], 0);

  step('10. Development review: the reviewer finds the gap (DIRTY, exit 9); the slot is now blocked');
  review('development', 'coverage', 9);

  step('11. The writer adds the test under a lease; development is reviewed again on the new content');
  const lease2 = json(governed(['lease', 'acquire', '--unit', unit, '--writer-session', 'demo-writer', '--json'], 0)).lease ?? '';
  writeFileSync(testFile, testBytes);
  governed(['lease', 'release', '--lease', lease2, '--writer-session', 'demo-writer'], 0);
  for (let round = 1; round <= 2; round++) review('development', 'coverage');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'Add export command');
  const head = git(repo, 'rev-parse', 'HEAD');
  say('the change is committed; the gate says REVIEW_ONLY (exit 3) and why:');
  governed(gateArgs(head), 3, { quiet: 14 });

  step('12. Integration: two CLEAN rounds for the four roles');
  for (let round = 1; round <= 2; round++) for (const role of ROLES) review('integration', role);
  governed(['status', '--unit', unit], 0, { quiet: 22 });

  step('13. The deploy gate: anchors from the deploy side; the commit must be exactly the reviewed content');
  const attest = join(work, 'decision.vsa.json');
  const record = join(work, 'deploy-record');
  governed([...gateArgs(head), '--attest', attest, '--attestor-config', cfg.gate.path, '--export', record], 0);
  const recorded = readdirSync(join(record, 'receipts')).map((f) => join(record, 'receipts', f));
  say(`the deploy record keeps what the decision relied on; its ${recorded.length} receipts verify anywhere with the deploy trust root:`);
  governed(['verify', ...recorded, '--trust', join(record, 'trust.json')], 0, { quiet: 2, store: false, shown: `verify ${record}/receipts/*.json --trust ${record}/trust.json` });
  say('a commit that is not the reviewed content is refused:');
  const base = git(repo, 'rev-parse', 'HEAD~1');
  governed(gateArgs(base), 4, { quiet: 3 });

  step('14. Anyone re-checks the whole store offline: chain, replay, every receipt and its binding');
  governed(['audit', 'verify'], 0);
  say('a signed checkpoint of the log head (the log key, through its pinned attestor), meant to leave the machine:');
  const checkpointFile = join(work, 'checkpoint.json');
  governed(['audit', 'checkpoint', '--out', checkpointFile, '--attestors', attestorsDir], 0);
  say('later, the log must still extend it (a rewrite of anything it covers would fail here):');
  governed(['audit', 'verify', '--checkpoint', checkpointFile], 0, { quiet: 7 });
  say('an export for auditors elsewhere: the log, the signed receipts, the pins and the public keys:');
  const exportDir = join(work, 'audit-export');
  governed(['audit', 'export', '--out', exportDir], 0);
  const exported = readdirSync(join(exportDir, 'receipts')).map((f) => join(exportDir, 'receipts', f));
  const exportedTrust = join(exportDir, readdirSync(exportDir).find((f) => f.startsWith('trust.pinned.')));
  say(`every exported receipt verifies with the exported trust root alone (${exported.length} receipts):`);
  governed(['verify', ...exported, '--trust', exportedTrust], 0, { quiet: 2, shown: `verify ${exportDir}/receipts/*.json --trust ${exportedTrust}` });
  say('the whole audit again from the export alone, as an auditor without the store would run it (the log rebuilt');
  say('through the same reducers, every file checked against it, and the checkpoint that left the machine):');
  governed(['audit', 'verify', '--export', exportDir, '--checkpoint', checkpointFile], 0, { quiet: 9, store: false });

  step('15. Someone edits a stored receipt behind governed\'s back: the gate and the audit fail closed');
  const db = new Database(join(home, 'governed.db'));
  const row = db.prepare('SELECT id, envelope FROM receipts ORDER BY log_seq DESC LIMIT 1').get();
  const env = JSON.parse(row.envelope.toString('utf8'));
  const payload = Buffer.from(env.payload, 'base64').toString('utf8').replace('"verdict":"CLEAN"', '"verdict":"CLEAN" ');
  env.payload = Buffer.from(payload).toString('base64');
  db.prepare('UPDATE receipts SET envelope = ? WHERE id = ?').run(Buffer.from(JSON.stringify(env)), row.id);
  db.close();
  governed(gateArgs(head), 4, { quiet: 3 });
  say('the audit finds it too (the stored state is no longer the replay of the log):');
  governed(['audit', 'verify'], 4, { quiet: 8 });
  return failures;
}
