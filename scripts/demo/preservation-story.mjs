// Demo section: preservation on a real small Node product (docs/preservation.md). A CLI command and a
// library export that imports a dependency under node_modules; the preservation contract bound on
// the baseline; the allowlisted Node adapter probes every surface in the check sandbox on sealed
// snapshots, the results signed by the probe credential; a change that keeps everything is
// satisfied; a change that silently breaks the CLI entry (the file is kept) is refused with
// `preservation_capability_lost`; a hand-written "probe" is never run.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git, keyIdOfPem, sha256File } from './world.mjs';

const HELP = 'usage: greet <command>\n\nCommands:\n  hello   say hello\n  bye     say goodbye\n';
const GREET = `#!/usr/bin/env node\nif (process.argv.includes('--help')) { process.stdout.write(${JSON.stringify(HELP)}); process.exit(0); }\nprocess.stdout.write('hello\\n');\n`;

export function preservationStory({ root, cli, work, firstStep, out = process.stdout }) {
  let failures = 0;
  let n = firstStep;
  const step = (title) => out.write(`\n\u2501\u2501 ${n++}. ${title}\n`);
  const say = (text) => out.write(`   ${text}\n`);
  const home = join(work, 'state');
  const keys = join(work, 'keys');
  const scrub = (s) => s.replaceAll(work, '$DEMO').replaceAll(root, '.');
  const repo = join(work, 'greeter');
  function governed(args, expectExit, { quiet = 0 } = {}) {
    out.write(`   $ governed ${scrub(args.join(' '))}\n`);
    const r = spawnSync(process.execPath, [cli, ...args, '--home', home], { cwd: repo, encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' } });
    const lines = `${r.stdout}${r.stderr}`.trimEnd().split('\n').filter(Boolean);
    const shown = quiet > 0 ? lines.slice(0, quiet) : lines;
    for (const line of shown) out.write(`     ${scrub(line)}\n`);
    if (shown.length < lines.length) out.write(`     … (${lines.length - shown.length} more lines)\n`);
    const ok = r.status === expectExit;
    if (!ok) failures++;
    say(`${ok ? '\u2713' : '\u2717 UNEXPECTED'} exit ${r.status} (expected ${expectExit})`);
    return r;
  }

  step('A real product: a CLI command, a library export, a dependency under node_modules');
  for (const d of ['bin', 'lib', join('node_modules', 'leftpad')]) mkdirSync(join(repo, d), { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'package.json'), JSON.stringify({ name: 'greeter', version: '1.0.0', type: 'module', bin: { greet: 'bin/greet.js' }, exports: { '.': './lib/index.js' } }, null, 2));
  writeFileSync(join(repo, 'bin', 'greet.js'), GREET);
  writeFileSync(join(repo, 'lib', 'index.js'), "import pad from 'leftpad';\nexport const greet = (n) => pad('hello ' + n);\n");
  writeFileSync(join(repo, '.gitignore'), 'node_modules\n');
  writeFileSync(join(repo, 'node_modules', 'leftpad', 'package.json'), JSON.stringify({ name: 'leftpad', type: 'module', exports: './index.js' }));
  writeFileSync(join(repo, 'node_modules', 'leftpad', 'index.js'), "export default (s) => '  ' + s;\n");
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'baseline');
  const baseline = git(repo, 'rev-parse', 'HEAD');
  for (const c of ['reviewer', 'runner', 'gate', 'log', 'authority', 'probe']) spawnSync(process.execPath, [cli, 'keygen', '--credential', c, '--out', keys], { encoding: 'utf8' });
  const pub = (c) => readFileSync(join(keys, `${c}.pub`), 'utf8');
  const trust = {
    version: 1,
    expires: '2030-01-01T00:00:00Z',
    keys: ['reviewer', 'runner', 'gate', 'log', 'authority', 'probe'].map((c) => ({ key_id: keyIdOfPem(pub(c)), public_key: pub(c), roles: [c], not_before: '2026-01-01T00:00:00Z', not_after: '2030-01-01T00:00:00Z' })),
  };
  writeFileSync(join(work, 'trust.json'), JSON.stringify(trust, null, 2));
  const attestors = join(work, 'attestors');
  mkdirSync(attestors, { recursive: true });
  writeFileSync(join(attestors, 'probe.json'), JSON.stringify({ credential: 'probe', kind: 'probe', key_id: keyIdOfPem(pub('probe')), key_ref: join(keys, 'probe.key') }));
  copyFileSync(join(root, 'attestors', 'ed25519-file.mjs'), join(attestors, 'probe.mjs'));
  const profile = JSON.parse(spawnSync(process.execPath, [cli, 'sandbox', 'profile', '--json'], { encoding: 'utf8' }).stdout);
  const adapter = join(root, 'runner', 'preservation', 'node-adapter.mjs');
  const cred = (c) => ({ key_id: keyIdOfPem(pub(c)), attestor_sha256: ['4'.repeat(64)], attestor_config_sha256: ['5'.repeat(64)] });
  const policy = {
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
    reviewers: { coverage: { sha256: sha256File(join(root, 'runner', 'reviewers', 'coverage.mjs')), interpreter: '/usr/bin/node', env: {} } },
    sandbox: {
      bwrap_sha256: profile.policy.bwrap_sha256,
      profile_sha256: [profile.check_profile_digest.slice(7)],
      seccomp_sha256: profile.policy.seccomp_sha256,
      uid: 64500,
      timeout: '60s',
      memory: '2GiB',
      max_output: '1MiB',
      max_bundle: '64MiB',
    },
    credentials: {
      reviewer: cred('reviewer'),
      runner: cred('runner'),
      gate: cred('gate'),
      log: cred('log'),
      probe: { key_id: keyIdOfPem(pub('probe')), attestor_sha256: [sha256File(join(attestors, 'probe.mjs'))], attestor_config_sha256: [sha256File(join(attestors, 'probe.json'))] },
    },
    controls: ['deploy_gate', 'real_entry_probes', 'vendor_origin_attestation', 'incident_history'],
    preservation_adapters: { sha256: [sha256File(adapter)], interpreter: '/usr/bin/node', dependency_root: 'node_modules' },
  };
  writeFileSync(join(work, 'policy.json'), JSON.stringify(policy, null, 2));
  say('policy: preservation required; the Node adapter allowlisted by its sha256; a probe credential and its attestor (kind probe)');
  governed(['init', '--policy', join(work, 'policy.json'), '--trust', join(work, 'trust.json')], 0);
  writeFileSync(join(work, 'request.md'), 'Keep greet working.\n');
  writeFileSync(
    join(work, 'contract.json'),
    JSON.stringify({ kind: 'governed/request-contract', version: 1, title: 'greeter', sources: [], directives: [], implementations: [], evidence: [], authorities: [], tombstones: [] }),
  );
  const unit = JSON.parse(governed(['unit', 'create', '--contract', join(work, 'contract.json'), '--baseline', 'HEAD', '--json'], 0).stdout).unit ?? '';

  step('The preservation contract, bound on the baseline commit (a logged planning-state change)');
  const contract = {
    kind: 'governed/preservation-contract',
    version: 1,
    baseline,
    intent: 'Keep the greet command and the library export.',
    surfaces: [
      { id: 'SURF-cli', kind: 'cli_command', paths: ['bin', 'package.json'], disposition: 'preserve', probe: 'bin:greet', baseline_evidence_id: 'EVD-cli-b', current_evidence_id: 'EVD-cli-c' },
      { id: 'SURF-lib', kind: 'library_export', paths: ['lib'], disposition: 'extend', probe: 'export:.', baseline_evidence_id: 'EVD-lib-b', current_evidence_id: 'EVD-lib-c' },
    ],
    vendor_sources: [],
  };
  writeFileSync(join(work, 'preservation.json'), JSON.stringify(contract, null, 2));
  governed(['preservation', 'set', '--unit', unit, '--contract', join(work, 'preservation.json')], 0);

  step('Baseline probes: inventory + each real entry in the sandbox on the sealed baseline, signed');
  const probe = (phase) => governed(['preservation', 'probe', '--unit', unit, '--phase', phase, '--adapter', adapter, '--attestors', attestors], 0);
  probe('baseline');
  say('a hand-written "probe" (JSON claiming the CLI still works) is not an allowlisted adapter: it never runs');
  writeFileSync(join(work, 'probe.json'), JSON.stringify({ kind: 'governed/probe-result', version: 1, entry: 'bin:greet', exit_code: 0, capabilities: ['command:hello'] }));
  governed(['preservation', 'probe', '--unit', unit, '--phase', 'current', '--adapter', join(work, 'probe.json'), '--attestors', attestors], 6);

  step('A change that keeps everything (and extends the library): satisfied');
  writeFileSync(join(repo, 'lib', 'index.js'), "import pad from 'leftpad';\nexport const greet = (n) => pad('hello ' + n);\nexport const shout = (n) => n.toUpperCase();\n");
  probe('current');
  governed(['preservation', 'check', '--unit', unit], 0);

  step('A silent removal: bin/greet.js is kept but its entry no longer starts → refused');
  writeFileSync(join(repo, 'bin', 'greet.js'), "#!/usr/bin/env node\nthrow new Error('moved elsewhere');\n");
  say('the current probes ran on the previous workspace: they no longer count (stale snapshot)');
  governed(['preservation', 'check', '--unit', unit], 3);
  probe('current');
  governed(['preservation', 'check', '--unit', unit], 3);
  say('preservation_capability_lost [SURF-cli, reachability, …]: removing a surface needs a signed `remove` record over its real diff digest');
  return failures;
}
