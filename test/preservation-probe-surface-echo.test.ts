// `preservation probe --surface S` with an S that is no surface of the bound contract
// (docs/preservation.md#probes): refused `preservation_surface_unknown` before anything runs, the
// store untouched, and the error names the surface only when S is an identifier of the contract id
// format. A value that is not one (escape sequences, newlines, long text) is a rejected value and
// never printed: the error names the option instead.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGovernedError } from '../src/core/errors.js';
import { closeStore, initStore, openStore, tablesDigest } from '../src/store/index.js';
import { createUnitFlow } from '../src/flows/unit-create.js';
import { setPreservationFlow } from '../src/flows/preservation/set.js';
import { probePreservationFlow } from '../src/flows/preservation/probe.js';
import { makeKey, trustRootDoc } from './helpers/receipts.js';
import { makeTempDir } from './helpers/temp.js';

const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t', HOME: '/nonexistent', PATH: '/usr/bin:/bin' };
const H = (c: string): string => c.repeat(64);
const cred = (c: string) => ({ key_id: H(c), attestor_sha256: [H('e')], attestor_config_sha256: [H('f')] });

let dir: string;
let home: string;
let repo: string;
let unit: string;

const digest = (): string => {
  const s = openStore(home);
  try {
    return tablesDigest(s);
  } finally {
    closeStore(s);
  }
};

async function refusal(surface: string): Promise<{ code: string; ids: readonly string[]; message: string }> {
  try {
    await probePreservationFlow({ home, unit, repo, phase: 'current', surface, adapter: join(dir, 'adapter.mjs'), now: Math.floor(Date.now() / 1000) });
  } catch (e) {
    if (isGovernedError(e)) return { code: e.code, ids: e.ids, message: e.message };
    throw e;
  }
  throw new Error('not refused');
}

beforeAll(async () => {
  dir = makeTempDir('gvd-rv7-probe-');
  repo = join(dir, 'repo');
  mkdirSync(join(repo, 'bin'), { recursive: true });
  writeFileSync(join(repo, 'bin', 'greet.js'), 'process.stdout.write("hi\\n");\n');
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo, env: GIT_ENV });
  execFileSync('git', ['add', '-A'], { cwd: repo, env: GIT_ENV });
  execFileSync('git', ['commit', '-q', '-m', 'baseline'], { cwd: repo, env: GIT_ENV });
  const baseline = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, env: GIT_ENV, encoding: 'utf8' }).trim();
  const probeKey = makeKey(join(dir, 'k'), 'probe');
  const policy = {
    kind: 'governed/policy',
    version: 1,
    trust_mode: 'co-located',
    accept_co_located: true,
    challenge_ttl: '10m',
    max_runs_per_content: 12,
    product_roots: ['.'],
    exclude: ['.governed'],
    preservation: 'required',
    stages: { development: { required: true, streak: 2, slots: { coverage: 'coverage' } } },
    reviewers: { coverage: { sha256: H('1'), interpreter: '/usr/bin/node', env: {} } },
    sandbox: { bwrap_sha256: [H('2')], profile_sha256: [H('3')], seccomp_sha256: [H('4')], uid: 64500, timeout: '60s', memory: '2GiB', max_output: '1MiB', max_bundle: '64MiB' },
    credentials: { reviewer: cred('5'), runner: cred('6'), gate: cred('7'), log: cred('8'), probe: { ...cred('9'), key_id: probeKey.keyId } },
    controls: ['deploy_gate'],
    preservation_adapters: { sha256: [H('a')], interpreter: '/usr/bin/node' },
  };
  home = join(dir, 'state');
  const now = Math.floor(Date.now() / 1000) - 20;
  closeStore(initStore(home, { policyBytes: Buffer.from(JSON.stringify(policy)), trustBytes: Buffer.from(JSON.stringify(trustRootDoc([{ key: probeKey, roles: ['probe'] }]))), now }));
  const rc = join(dir, 'rc.json');
  writeFileSync(rc, JSON.stringify({ kind: 'governed/request-contract', version: 1, title: 'greeter', sources: [], directives: [], implementations: [], evidence: [], authorities: [], tombstones: [] }));
  unit = (await createUnitFlow({ home, contractFile: rc, baseline, repo, now: now + 1 })).unitId;
  const pc = join(dir, 'p.json');
  writeFileSync(
    pc,
    JSON.stringify({
      kind: 'governed/preservation-contract',
      version: 1,
      baseline,
      intent: 'Keep the greet command.',
      surfaces: [{ id: 'SURF-cli', kind: 'cli_command', paths: ['bin'], disposition: 'preserve', probe: 'bin:greet', baseline_evidence_id: 'EVD-cli-b', current_evidence_id: 'EVD-cli-c' }],
      vendor_sources: [],
    }),
  );
  setPreservationFlow({ home, unit, contractFile: pc, authorities: [], noIncidentHistory: false, now: now + 2 });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('preservation probe --surface never echoes a rejected value', () => {
  it('positive control: an unknown surface of the id format is named', async () => {
    const before = digest();
    const r = await refusal('SURF-nope');
    expect(r.code).toBe('preservation_surface_unknown');
    expect(r.ids).toEqual(['SURF-nope']);
    expect(digest()).toBe(before);
  });

  it('a value that is not an identifier (escape sequence, newline, text) is refused without being printed', async () => {
    const before = digest();
    const evil = '\u001b]0;owned\u0007SURF-x\nPASS: all surfaces preserved';
    const r = await refusal(evil);
    expect(r.code).toBe('preservation_surface_unknown');
    expect(JSON.stringify(r)).not.toContain('owned');
    expect(JSON.stringify(r)).not.toContain('PASS');
    expect(r.ids).toEqual(['--surface']);
    expect(digest()).toBe(before);
  });
});
