// From nothing to a passing gate with only `governed setup` and `governed contract init`: a real git
// repository with a two-line request, every key, the trust root, the attestor configs and the policy
// made by setup, the contract skeleton made by contract init and filled in by code (no other
// hand-written governed file), real sandboxed reviews, RELEASE_ELIGIBLE, and `gate` exit 0 on the
// commit. On the way: the unfilled skeleton is refused with its code and every field path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { jsonOut, runCli } from './helpers/cli.js';
import { makeTempRepo, type TempRepo } from './helpers/git-repo.js';
import { runGateScript } from './helpers/ci-gate.js';

const REQUEST = 'Add an `export` command that writes every record as one CSV line.\nDocument the export command in the README.\n';
const ROLES = ['source_fidelity', 'baseline_preservation', 'implementation_test', 'authority_release'];

let work: string;
let repo: TempRepo;
let home: string;
let setup: Record<string, unknown>;
let unit: string;

const gov = (args: string[]) => runCli(args, { cwd: repo.root });
const govJson = (args: string[]) => {
  const r = gov([...args, '--home', home, '--json']);
  return { code: r.code, out: jsonOut(r), stderr: r.stderr };
};

function review(stage: string, slot: string): void {
  const c = govJson(['review-challenge', '--unit', unit, '--writer-session', 'w1', '--stage', stage, '--slot', slot]);
  expect(c.code, `${stage}/${slot} challenge ${c.stderr}`).toBe(0);
  const r = govJson(['review-run', '--challenge', String(c.out.challenge_id), '--attestors', String(setup.attestors)]);
  expect(r.code, `${stage}/${slot} run ${r.stderr}`).toBe(0);
  expect(r.out.verdict).toBe('CLEAN');
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'gvd-eco-story-'));
  home = join(work, 'state');
  repo = makeTempRepo({ prefix: 'gvd-eco-repo-' });
  repo.write('requests/export.md', REQUEST);
  repo.write('src/records.js', "export const records = [{ id: 1, name: 'a' }];\n");
  repo.write('README.md', '# product\n');
  repo.commitAll('baseline');
});
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  repo.cleanup();
});

describe('setup → contract init → RELEASE_ELIGIBLE → gate ALLOW', () => {
  it('setup makes every file and initialises the store in one command', () => {
    const r = govJson(['setup', '--out', join(work, 'setup'), '--waive-preservation', 'a two-line demo library: no shipped surface to preserve']);
    expect(r.code, r.stderr).toBe(0);
    setup = r.out;
    expect(setup.changed).toBe(true);
    expect(setup.init).toBe('created');
    expect(String(setup.gate_line)).toContain(`--policy-digest ${String(setup.policy_digest)}`);
  });

  it('contract init writes a skeleton that unit create refuses until every placeholder is filled', () => {
    const out = join(work, 'contract.yaml');
    const r = gov(['contract', 'init', '--source', 'requests/export.md', '--atoms', 'line', '--out', out, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const summary = jsonOut(r);
    expect(summary).toMatchObject({ ok: true, sources: 1, atoms: 4, directives: 2 });
    const refused = govJson(['unit', 'create', '--contract', out, '--baseline', 'HEAD']);
    expect(refused.code).toBe(2);
    expect(refused.out.error).toMatchObject({ code: 'contract_fill_in_left' });
    expect((refused.out.error as { ids: string[] }).ids).toEqual(summary.placeholders);
    expect((refused.out.error as { ids: string[] }).ids).toContain('$.directives[0].targets[0].paths[0]');
  });

  it('the filled contract binds, and the reviews reach RELEASE_ELIGIBLE; the gate line passes on the commit', () => {
    // Fill the placeholders by code: what each directive changes, is met by, and is shown by.
    const c = parse(readFileSync(join(work, 'contract.yaml'), 'utf8')) as Record<string, any>;
    const files = [
      { impl: 'src/export.js', evidence: 'test/export.test.js', kind: 'test' },
      { impl: 'README.md', evidence: 'manual/export.md', kind: 'doc' },
    ];
    c.title = 'Export command';
    c.directives.forEach((d: any, i: number) => {
      d.targets[0].paths = [files[i]!.impl];
      d.criteria[0].statement = d.statement;
    });
    c.implementations.forEach((x: any, i: number) => (x.paths = [files[i]!.impl]));
    c.evidence.forEach((x: any, i: number) => Object.assign(x, { kind: files[i]!.kind, paths: [files[i]!.evidence] }));
    const write = (state: string): string => {
      c.directives.forEach((d: any) => (d.state = state));
      const p = join(work, `contract-${state}.json`);
      writeFileSync(p, JSON.stringify(c));
      return p;
    };
    const created = govJson(['unit', 'create', '--contract', write('active'), '--baseline', 'HEAD']);
    expect(created.code, created.stderr).toBe(0);
    unit = String(created.out.unit);
    expect(govJson(['writer', 'register', '--unit', unit, '--writer-session', 'w1']).code).toBe(0);
    for (let round = 0; round < 2; round++) for (const role of ROLES) review('planning', role);

    const lease = govJson(['lease', 'acquire', '--unit', unit, '--writer-session', 'w1']);
    expect(lease.code).toBe(0);
    repo.write('src/export.js', "import { records } from './records.js';\nexport const exportCsv = () => records.map((r) => `${r.id},${r.name}`).join('\\n');\n");
    repo.write('test/export.test.js', "import { exportCsv } from '../src/export.js';\nif (exportCsv() !== '1,a') throw new Error('wrong');\n");
    repo.write('README.md', '# product\n\n`export` writes every record as one CSV line (manual/export.md).\n');
    repo.write('manual/export.md', '# export\n\nOne CSV line per record: `id,name`.\n');
    expect(govJson(['lease', 'release', '--lease', String(lease.out.lease), '--writer-session', 'w1']).code).toBe(0);
    expect(govJson(['unit', 'bind', '--unit', unit, '--contract', write('done')]).code).toBe(0);
    for (let round = 0; round < 2; round++) for (const role of ROLES) review('integration', role);

    const st = govJson(['status', '--unit', unit]);
    expect(st.out.state).toBe('RELEASE_ELIGIBLE');
    const head = repo.commitAll('Add export command');
    // The exact gate line setup printed, with the unit and the commit filled in.
    const line = String(setup.gate_line).replace('<UNIT>', unit).replace('<COMMIT>', head).replace('decision.vsa.json', join(work, 'decision.vsa.json'));
    const args = line.split(' ').slice(1);
    const g = gov([...args, '--export', join(work, 'record'), '--json']);
    expect(g.code, g.stderr).toBe(0);
    expect(jsonOut(g)).toMatchObject({ decision: 'ALLOW', state: 'RELEASE_ELIGIBLE', exit: 0 });
    // The signed decision verifies offline for exactly this commit, and not for another.
    const trust = String(setup.trust);
    const v = gov(['verify', '--vsa', join(work, 'decision.vsa.json'), '--trust', trust, '--subject', head, '--json']);
    expect(v.code, v.stderr).toBe(0);
    expect(jsonOut(v)).toMatchObject({ valid: true, verification_result: 'PASSED', subject: { commit: head } });
    const other = gov(['verify', '--vsa', join(work, 'decision.vsa.json'), '--trust', trust, '--subject', 'f'.repeat(40), '--json']);
    expect(other.code).toBe(4);
    // The deploy record carries the standard containers beside the envelopes.
    expect(existsSync(join(work, 'record', 'intoto', 'vsa.intoto.jsonl'))).toBe(true);
    expect(existsSync(join(work, 'record', 'sigstore', 'vsa.0.sigstore.json'))).toBe(true);
    // The CI recipe (action.yml's one step, run as a plain script) says ALLOW for this commit.
    const ci = runGateScript({ INPUT_UNIT: unit, INPUT_TRUST: trust, INPUT_POLICY_DIGEST: String(setup.policy_digest), INPUT_SUBJECT: head, INPUT_HOME: home }, repo.root);
    expect(ci.code).toBe(0);
    expect(ci.outputs).toEqual({ decision: 'ALLOW', exit: '0' });
  }, 900_000);
});
