// `governed setup` makes what preservation needs (docs/setup.md, docs/preservation.md#probes): a probe
// key in the trust root in role `probe`, its attestor configuration (kind probe), `credentials.probe`
// in the policy and the check profile beside the reviewer profile in `sandbox.profile_sha256`. Shown
// end to end with no hand edit: on a setup made by the command alone, a preservation contract is bound
// and the shipped Node adapter probes the baseline and the current tree in the real check sandbox,
// signed by setup's probe key, and `preservation check` is satisfied. Doctor names each of the three
// things a probe needs when it is broken (the probe key file, the policy's probe credential, the check
// profile), and nothing on the healthy setup (positive control).
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { jsonOut, REPO_ROOT, runCli } from './helpers/cli.js';

const IS_ROOT = process.geteuid?.() === 0;
const ADAPTER = join(REPO_ROOT, 'runner', 'preservation', 'node-adapter.mjs');
const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t', HOME: '/nonexistent', PATH: '/usr/bin:/bin' };
const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();
const HELP = 'usage: greet <command>\n\nCommands:\n  hello   say hello\n';
const GREET = `#!/usr/bin/env node\nif (process.argv.includes('--help')) { process.stdout.write(${JSON.stringify(HELP)}); process.exit(0); }\n`;

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'gvd-pres2-setup-'));
  chmodSync(d, 0o755);
  dirs.push(d);
  return d;
}
const gov = (args: string[], cwd?: string) => {
  const r = runCli([...args, '--json'], cwd === undefined ? {} : { cwd });
  expect(r.stdout).not.toContain('PRIVATE KEY');
  return { code: r.code, out: jsonOut(r) };
};
/** Doctor's problems but the store's (this setup is not initialised: `store_missing` every time). */
const problemsOf = (out: Record<string, unknown>): string[][] =>
  (out.problems as { check: string; code: string; ids: string[] }[]).filter((p) => p.check !== 'store' || p.code !== 'store_missing').map((p) => [p.check, p.code, ...p.ids]);

describe.skipIf(!IS_ROOT)('governed setup makes what preservation needs', () => {
  it('probes run and are satisfied on a setup made by the command alone', () => {
    const t = tmp();
    const out = join(t, 'setup');
    const home = join(t, 'home');
    const s = gov(['setup', '--out', out, '--home', home]);
    expect(s.code).toBe(0);
    expect((s.out.files as { path: string; action: string }[]).filter((f) => f.path.includes('probe'))).toEqual([
      { path: 'keys/probe.key', action: 'created' },
      { path: 'keys/probe.pub', action: 'created' },
      { path: 'attestors/probe.json', action: 'created' },
    ]);
    const trust = JSON.parse(readFileSync(join(out, 'trust.json'), 'utf8')) as { keys: { key_id: string; roles: string[] }[] };
    expect(trust.keys.find((k) => k.key_id === (s.out.key_ids as Record<string, string>).probe)?.roles).toEqual(['probe']);

    // A product: a CLI command and a library export.
    const repo = join(t, 'repo');
    mkdirSync(join(repo, 'bin'), { recursive: true });
    mkdirSync(join(repo, 'lib'));
    writeFileSync(join(repo, 'package.json'), JSON.stringify({ name: 'greeter', version: '1.0.0', type: 'module', bin: { greet: 'bin/greet.js' }, exports: { '.': './lib/index.js' } }));
    writeFileSync(join(repo, 'bin', 'greet.js'), GREET);
    writeFileSync(join(repo, 'lib', 'index.js'), 'export const greet = 1;\n');
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'baseline');
    const baseline = git(repo, 'rev-parse', 'HEAD');
    const rc = join(t, 'request.json');
    writeFileSync(rc, JSON.stringify({ kind: 'governed/request-contract', version: 1, title: 'greeter', sources: [], directives: [], implementations: [], evidence: [], authorities: [], tombstones: [] }));
    const unit = gov(['unit', 'create', '--contract', rc, '--baseline', 'HEAD', '--home', home], repo).out.unit as string;
    const pc = join(t, 'preservation.json');
    writeFileSync(
      pc,
      JSON.stringify({
        kind: 'governed/preservation-contract',
        version: 1,
        baseline,
        intent: 'Keep the greet command and the library export.',
        surfaces: [
          { id: 'SURF-cli', kind: 'cli_command', paths: ['bin', 'package.json'], disposition: 'preserve', probe: 'bin:greet', baseline_evidence_id: 'EVD-cli-b', current_evidence_id: 'EVD-cli-c' },
          { id: 'SURF-lib', kind: 'library_export', paths: ['lib'], disposition: 'extend', probe: 'export:.', baseline_evidence_id: 'EVD-lib-b', current_evidence_id: 'EVD-lib-c' },
        ],
        vendor_sources: [],
      }),
    );
    expect(gov(['preservation', 'set', '--unit', unit, '--contract', pc, '--home', home], repo).code).toBe(0);
    // setup's attestors directory, as setup printed it for review-run: probe.json there, the shipped attestor program.
    for (const phase of ['baseline', 'current']) {
      const p = gov(['preservation', 'probe', '--unit', unit, '--phase', phase, '--adapter', ADAPTER, '--attestors', join(out, 'attestors'), '--home', home], repo);
      expect({ phase, code: p.code, error: p.out.error ?? null }).toEqual({ phase, code: 0, error: null });
    }
    const check = gov(['preservation', 'check', '--unit', unit, '--home', home], repo);
    expect(check.code).toBe(0);
  }, 180_000);

  it('doctor names a missing probe key, a policy without the probe credential and a profile list without the check profile', () => {
    const t = tmp();
    const out = join(t, 'setup');
    const home = join(t, 'home');
    expect(gov(['setup', '--out', out, '--home', home, '--no-init']).code).toBe(0);
    const doctor = () => gov(['doctor', '--dir', out, '--home', home]);
    // Positive control: the healthy setup (uninitialised: only the store check speaks).
    expect(problemsOf(doctor().out)).toEqual([]);

    const policyFile = join(out, 'policy.yaml');
    const original = readFileSync(policyFile, 'utf8');
    const edit = (f: (d: ReturnType<typeof parseDocument>) => void): void => {
      const d = parseDocument(original);
      f(d);
      writeFileSync(policyFile, d.toString());
    };
    edit((d) => d.deleteIn(['credentials', 'probe']));
    expect(problemsOf(doctor().out)).toEqual([
      ['keys_agree', 'setup_key_mismatch', 'probe', 'policy.yaml:credentials.probe.key_id'],
    ]);
    edit((d) => d.setIn(['sandbox', 'profile_sha256'], d.createNode([(d.getIn(['sandbox', 'profile_sha256']) as { items: { value: string }[] }).items[0]?.value])));
    expect(problemsOf(doctor().out)).toEqual([
      ['sandbox', 'setup_digest_changed', 'sandbox.profile_sha256'],
    ]);
    writeFileSync(policyFile, original);
    rmSync(join(out, 'keys', 'probe.key'));
    expect(problemsOf(doctor().out)).toEqual([
      ['files', 'setup_file_missing', 'keys/probe.key'],
    ]);
    // A re-run of setup on a directory missing only the probe key's private half refuses (never guesses).
    expect((gov(['setup', '--out', out, '--home', home, '--no-init']).out.error as { code: string; ids: string[] }).code).toBe('setup_file_conflict');
  }, 120_000);
});
