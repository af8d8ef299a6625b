// Demo section: preservation on a real small Node product (docs/preservation.md), from the baseline to
// RELEASE_ELIGIBLE under a policy that REQUIRES preservation. A CLI command and a library export that
// imports a dependency under node_modules; the preservation contract bound on the baseline; the
// allowlisted Node adapter probes every surface in the check sandbox on sealed snapshots, the results
// signed by the probe credential; a change that keeps everything is reviewed (real sandbox, real
// coverage reviewer) and the deploy gate says RELEASE_ELIGIBLE — and refuses it under a deploy trust
// root without the probe key; a later change that silently breaks the CLI entry (the file is kept) is
// reviewed CLEAN, yet the gate says REVIEW_ONLY with `preservation_capability_lost`.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { git } from './world.mjs';

const HELP = 'usage: greet <command>\n\nCommands:\n  hello   say hello\n  bye     say goodbye\n';
const GREET = `#!/usr/bin/env node\nif (process.argv.includes('--help')) { process.stdout.write(${JSON.stringify(HELP)}); process.exit(0); }\nprocess.stdout.write('hello\\n');\n`;
const LIB = "import pad from 'leftpad';\nexport const greet = (n) => pad('hello ' + n);\n";
const REQUEST = 'Add a `shout` export to the library, with a test.';
const CONTEXT = '\nThe greet command must keep working.\n';

/** The request contract (docs/contract.md#the-request-contract): one directive over the request's bytes. */
function requestContract(state) {
  const a = Buffer.byteLength(REQUEST);
  const b = a + Buffer.byteLength(CONTEXT);
  return {
    kind: 'governed/request-contract',
    version: 1,
    title: 'shout export',
    sources: [
      {
        id: 'SRC-1',
        path: 'requests/shout.md',
        class: 'directive',
        atoms: [
          { id: 'ATOM-1', span: [0, a], kind: 'obligation', directives: ['DIR-1'] },
          { id: 'ATOM-2', span: [a, b], kind: 'context', directives: [] },
        ],
      },
    ],
    directives: [
      {
        id: 'DIR-1',
        statement: REQUEST,
        state,
        sources: ['SRC-1'],
        targets: [{ id: 'TGT-1', paths: ['lib/index.js'] }],
        criteria: [{ id: 'AC-1', statement: REQUEST, atoms: ['ATOM-1'] }],
        implementations: ['IMP-1'],
        evidence: ['EVD-1'],
      },
    ],
    // The writer may touch the CLI entry while implementing (and, below, breaks it).
    implementations: [{ id: 'IMP-1', paths: ['lib/index.js', 'bin/greet.js'] }],
    evidence: [{ id: 'EVD-1', kind: 'test', paths: ['test/shout.test.js'] }],
    authorities: [],
    tombstones: [],
  };
}

export function preservationStory({ root, cli, work, firstStep, out = process.stdout }) {
  let failures = 0;
  let n = firstStep;
  const step = (title) => out.write(`\n\u2501\u2501 ${n++}. ${title}\n`);
  const say = (text) => out.write(`   ${text}\n`);
  const home = join(work, 'state');
  const scrub = (s) => s.replaceAll(work, '$DEMO').replaceAll(root, '.');
  const repo = join(work, 'greeter');
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' };
  const run = (args) => spawnSync(process.execPath, [cli, ...args, '--home', home], { cwd: repo, encoding: 'utf8', env });
  function governed(args, expectExit, { quiet = 0 } = {}) {
    out.write(`   $ governed ${scrub(args.join(' '))}\n`);
    const r = run(args);
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
      return {};
    }
  };

  step('A real product (a CLI command, a library export, a dependency under node_modules) under a policy that requires preservation');
  for (const d of ['bin', 'lib', 'requests', join('node_modules', 'leftpad')]) mkdirSync(join(repo, d), { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'package.json'), JSON.stringify({ name: 'greeter', version: '1.0.0', type: 'module', bin: { greet: 'bin/greet.js' }, exports: { '.': './lib/index.js' } }, null, 2));
  writeFileSync(join(repo, 'bin', 'greet.js'), GREET);
  writeFileSync(join(repo, 'lib', 'index.js'), LIB);
  writeFileSync(join(repo, 'requests', 'shout.md'), REQUEST + CONTEXT);
  writeFileSync(join(repo, '.gitignore'), 'node_modules\n');
  writeFileSync(join(repo, 'node_modules', 'leftpad', 'package.json'), JSON.stringify({ name: 'leftpad', type: 'module', exports: './index.js' }));
  writeFileSync(join(repo, 'node_modules', 'leftpad', 'index.js'), "export default (s) => '  ' + s;\n");
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'baseline');
  const baseline = git(repo, 'rev-parse', 'HEAD');
  // `governed setup --no-init` (docs/setup.md) makes every key (the probe credential's too), the
  // trust root, the attestor configurations (probe.json: kind probe) and a policy from the default
  // template whose digests are this machine's (bwrap, both sandbox profiles, seccomp, the coverage
  // reviewer, the attestor, the Node adapter). The story then narrows that policy to its one gating
  // stage and initialises the store with it.
  const setupDir = join(work, 'setup');
  governed(['setup', '--out', setupDir, '--no-init'], 0, { quiet: 1 });
  const trustFile = join(setupDir, 'trust.json');
  const attestors = join(setupDir, 'attestors');
  const policyFile = join(setupDir, 'policy.yaml');
  // The deploy side's trust root of a deployment that never added the probe key (used in step 25).
  const trust = JSON.parse(readFileSync(trustFile, 'utf8'));
  writeFileSync(join(work, 'trust-without-probe.json'), JSON.stringify({ ...trust, keys: trust.keys.filter((k) => !k.roles.includes('probe')) }, null, 2));
  const adapter = join(root, 'runner', 'preservation', 'node-adapter.mjs');
  const policy = parseDocument(readFileSync(policyFile, 'utf8'));
  policy.set('exclude', policy.createNode(['.governed', 'node_modules'], { flow: true }));
  policy.set('stages', policy.createNode({ development: { required: true, streak: 2, slots: { coverage: 'coverage' } } }));
  policy.set('controls', policy.createNode(['deploy_gate', 'real_entry_probes', 'vendor_origin_attestation', 'incident_history'], { flow: true }));
  writeFileSync(policyFile, policy.toString());
  say('policy (setup\'s, narrowed): preservation REQUIRED; one gating development stage (two CLEAN coverage reviews);');
  say('the Node adapter allowlisted by its sha256; a probe credential whose attestor signs only probe statements (kind probe)');
  governed(['init', '--policy', policyFile, '--trust', trustFile], 0);
  writeFileSync(join(work, 'contract.json'), JSON.stringify(requestContract('active'), null, 2));
  const unit = json(governed(['unit', 'create', '--contract', join(work, 'contract.json'), '--baseline', 'HEAD', '--json'], 0)).unit ?? '';
  governed(['writer', 'register', '--unit', unit, '--writer-session', 'demo-writer'], 0);
  const policyDigest = json(run(['status', '--unit', unit, '--json'])).policyDigest ?? '';

  step('The preservation contract, bound on the baseline commit (a logged planning-state change)');
  const contract = {
    kind: 'governed/preservation-contract',
    version: 1,
    baseline,
    intent: 'Keep the greet command and the library export.',
    surfaces: [
      { id: 'SURF-cli', kind: 'cli_command', paths: ['bin', 'package.json'], disposition: 'preserve', probe: 'bin:greet', baseline_evidence_id: 'EVD-cli-b', current_evidence_id: 'EVD-cli-c' },
      { id: 'SURF-lib', kind: 'library_export', paths: ['lib', 'test'], disposition: 'extend', probe: 'export:.', baseline_evidence_id: 'EVD-lib-b', current_evidence_id: 'EVD-lib-c' },
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

  /** The writer's change under the mutation lease, committed. */
  const change = (files, message) => {
    const lease = json(run(['lease', 'acquire', '--unit', unit, '--writer-session', 'demo-writer', '--json'])).lease ?? 'LSE-refused';
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(repo, path, '..'), { recursive: true });
      writeFileSync(join(repo, path), text);
    }
    const released = run(['lease', 'release', '--lease', lease, '--writer-session', 'demo-writer']);
    if (released.status !== 0) failures++;
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', message);
    const head = git(repo, 'rev-parse', 'HEAD');
    say(`${released.status === 0 ? '\u2713' : '\u2717 UNEXPECTED'} under the writer's lease: ${Object.keys(files).join(', ')} written; committed ${head.slice(0, 12)}`);
    return head;
  };
  /** Two development reviews: a one-time challenge, then the sandboxed coverage reviewer, each. */
  const reviews = () => {
    for (let round = 1; round <= 2; round++) {
      const c = run(['review-challenge', '--unit', unit, '--writer-session', 'demo-writer', '--stage', 'development', '--slot', 'coverage', '--json']);
      const challenge = c.status === 0 ? json(c).challenge_id : 'CHL-refused';
      const r = run(['review-run', '--challenge', challenge, '--attestors', attestors, '--json']);
      const o = json(r);
      const ok = c.status === 0 && r.status === 0;
      if (!ok) failures++;
      say(`${ok ? '\u2713' : '\u2717 UNEXPECTED'} development/coverage round ${round} ${challenge} \u2192 ${String(o.verdict ?? o.error?.code ?? '?')} exit ${r.status}`);
    }
  };
  const gate = (subject, trustFile, expectExit) =>
    governed(['gate', '--unit', unit, '--trust', trustFile, '--policy-digest', policyDigest, '--subject', subject], expectExit, { quiet: 12 });

  step('A change that keeps everything (it extends the library): probed, checked, reviewed → RELEASE_ELIGIBLE');
  const kept = change(
    {
      'lib/index.js': `${LIB}export const shout = (n) => n.toUpperCase();\n`,
      'test/shout.test.js': "import { shout } from '../lib/index.js';\nif (shout('a') !== 'A') throw new Error('shout');\n",
    },
    'Add shout',
  );
  writeFileSync(join(work, 'contract.json'), JSON.stringify(requestContract('done'), null, 2));
  governed(['unit', 'bind', '--unit', unit, '--contract', join(work, 'contract.json')], 0);
  probe('current');
  governed(['preservation', 'check', '--unit', unit], 0);
  reviews();
  say('the deploy gate judges preservation on the commit, with the probe receipts under the deploy trust root:');
  gate(kept, trustFile, 0);
  say('the deploy record keeps the probe receipts the release relied on; an auditor verifies them offline,');
  say('signed by the policy\'s probe key and bound to the contract\'s surfaces, entries and evidence ids:');
  const record = join(work, 'record');
  governed(['gate', '--unit', unit, '--trust', trustFile, '--policy-digest', policyDigest, '--subject', kept, '--export', record], 0, { quiet: 1 });
  const probeFiles = readdirSync(join(record, 'probes')).sort().map((f) => join(record, 'probes', f));
  const auditor = ['--trust', join(record, 'trust.json'), '--policy', policyFile, '--contract', join(work, 'preservation.json')];
  governed(['verify', ...probeFiles, ...auditor], 0);
  say('one result of a probe receipt edited (its exit code flipped) under its original signature: refused');
  const envelope = JSON.parse(readFileSync(probeFiles[0], 'utf8'));
  const statement = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8'));
  statement.predicate.results[0].exit_code = statement.predicate.results[0].exit_code === 0 ? 1 : 0;
  envelope.payload = Buffer.from(JSON.stringify(statement)).toString('base64');
  writeFileSync(join(work, 'probe-edited.json'), JSON.stringify(envelope));
  governed(['verify', join(work, 'probe-edited.json'), ...auditor], 4);
  say('a deploy trust root without the probe key: the probe receipts do not verify there, the gate refuses');
  gate(kept, join(work, 'trust-without-probe.json'), 6);

  step('A silent removal: bin/greet.js is kept but its entry no longer starts; the reviews stay CLEAN, the gate does not');
  const broken = change({ 'bin/greet.js': "#!/usr/bin/env node\nthrow new Error('moved elsewhere');\n" }, 'Move greet');
  say('the current probes ran on the previous commit: they no longer count (stale snapshot)');
  governed(['preservation', 'check', '--unit', unit], 3, { quiet: 4 });
  probe('current');
  governed(['preservation', 'check', '--unit', unit], 3);
  reviews();
  gate(broken, trustFile, 3);
  say('preservation_capability_lost [SURF-cli, reachability, …]: removing a surface needs a signed `remove` record over its real diff digest');
  return failures;
}
