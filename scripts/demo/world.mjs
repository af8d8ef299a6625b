// Demo world: a real git repository with a human request, and `governed setup` for real Ed25519
// keys, the trust root, the attestor configs and a policy whose every digest is the real one of this
// machine's programs (bwrap, profiles, the bundled reviewer and attestor). Nothing here is a fixture.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const sha256File = (p) => createHash('sha256').update(readFileSync(p)).digest('hex');

export function git(repo, ...args) {
  const r = spawnSync('git', args, {
    cwd: repo,
    encoding: 'utf8',
    env: {
      PATH: '/usr/bin:/bin',
      HOME: repo,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Demo Writer',
      GIT_AUTHOR_EMAIL: 'writer@example.invalid',
      GIT_COMMITTER_NAME: 'Demo Writer',
      GIT_COMMITTER_EMAIL: 'writer@example.invalid',
    },
  });
  if (r.status !== 0) throw new Error(`git ${args[0]} failed`);
  return r.stdout.trim();
}

export const REQUEST_OBLIGATION = 'Add an `export` command that writes every record as one CSV line.';
export const REQUEST_CONTEXT = '\nThanks — the reporting team.\n';

/** The repository at its baseline: the human request and the existing product. */
export function makeRepo(dir) {
  const repo = join(dir, 'repo');
  mkdirSync(join(repo, 'requests'), { recursive: true });
  mkdirSync(join(repo, 'src'), { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'requests', 'export.md'), REQUEST_OBLIGATION + REQUEST_CONTEXT);
  writeFileSync(join(repo, 'src', 'records.js'), "export const records = [{ id: 1, name: 'a' }, { id: 2, name: 'b' }];\n");
  writeFileSync(join(repo, 'README.md'), '# demo product\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'baseline');
  return repo;
}

/** The request contract (docs/contract.md#the-request-contract) with byte-exact atom spans over the request file. */
export function contractYaml(state) {
  const a = Buffer.byteLength(REQUEST_OBLIGATION);
  const b = a + Buffer.byteLength(REQUEST_CONTEXT);
  const stmt = JSON.stringify(REQUEST_OBLIGATION);
  return `kind: governed/request-contract
version: 1
title: Add export command
sources:
  - id: SRC-1
    path: requests/export.md
    class: directive
    atoms:
      - { id: ATOM-1, span: [0, ${a}], kind: obligation, directives: [DIR-1] }
      - { id: ATOM-2, span: [${a}, ${b}], kind: context, directives: [] }
directives:
  - id: DIR-1
    statement: ${stmt}
    state: ${state}
    sources: [SRC-1]
    targets: [{ id: TGT-1, paths: [src/export.js] }]
    criteria: [{ id: AC-1, statement: ${stmt}, atoms: [ATOM-1] }]
    implementations: [IMP-1]
    evidence: [EVD-1]
implementations: [{ id: IMP-1, paths: [src/export.js] }]
evidence: [{ id: EVD-1, kind: test, paths: [test/export.test.js] }]
authorities: []
tombstones: []
`;
}

/** The writer's change: the implementation and a test that exercises it. */
export function writeChange(repo) {
  mkdirSync(join(repo, 'test'), { recursive: true });
  writeFileSync(
    join(repo, 'src', 'export.js'),
    "import { records } from './records.js';\n\nexport function exportCsv() {\n  return records.map((r) => `${r.id},${r.name}`).join('\\n');\n}\n",
  );
  writeFileSync(
    join(repo, 'test', 'export.test.js'),
    "import { exportCsv } from '../src/export.js';\n\nif (exportCsv() !== '1,a\\n2,b') throw new Error('export is wrong');\n",
  );
}

/**
 * The path a new user takes (docs/setup.md): `governed setup --out <work>/setup --home <work>/state`
 * makes every key, the trust root, the attestor configurations and a policy pinned to this machine.
 * With `init: false` (`--no-init`) a story edits `setup.policy` for its own stages first and runs
 * `init` itself. Returns setup's `--json` object (dir, home, policy, trust, attestors,
 * gate_attestor_config, policy_digest, key_ids, gate_line, …) or throws with setup's error code.
 */
export function governedSetup({ cli, work, init = true, waive = 'this demo unit changes no product surface; preservation is shown in its own step' }) {
  const args = ['setup', '--out', join(work, 'setup'), '--home', join(work, 'state'), ...(init ? [] : ['--no-init']), ...(waive ? ['--waive-preservation', waive] : []), '--json'];
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1' } });
  let out = {};
  try {
    out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '');
  } catch {
    /* reported below */
  }
  if (r.status !== 0 || out.ok !== true) throw new Error(`governed setup failed: exit ${r.status} ${out.error?.code ?? ''}`);
  return out;
}
