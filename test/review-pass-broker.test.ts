// `network: broker` for review-pass tool entries (docs/review-pass.md "Network"): the built CLI runs a
// stand-in hosted CLI (test/fixtures/egress/fake-cli.cjs: prompt on stdin, ANTHROPIC_BASE_URL and
// ANTHROPIC_API_KEY, plain TCP) in the repository sandbox with its own network namespace, behind the
// pinned relay and the real broker, which forwards over TLS (a pinned test CA) to a loopback HTTPS
// model server. A second loopback server must see zero connections; the positive control is the
// same tool with `network: true`, which reaches it.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, jsonOut, REPO_ROOT, type CliResult } from './helpers/cli.js';
import type { TempRepo } from './helpers/git-repo.js';
import { makeTestPki, startForbidden, startModelServer, type ModelServer, type TestPki } from './helpers/model-server.js';
import { scriptedRepo } from './review-pass-helpers.js';
import { sha256 } from './sandbox-helpers.js';

const FAKE_CLI = readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'egress', 'fake-cli.cjs'), 'utf8');
const KEY_ENV = 'GVD_RP_BROKER_KEY';
const REAL_KEY = 'sk-ant-REAL-gvd-review-pass-broker-61b2';
const ANSWER = '### Files Read\n- `src/app.js`\n### Findings\nNONE\n### Verdict\nCLEAN\n';

let pki: TestPki;
let server: ModelServer;
let forbidden: ModelServer;
const repos: TempRepo[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  pki = makeTestPki();
  forbidden = await startForbidden();
  server = await startModelServer({ script: () => ({ text: ANSWER }), tls: pki.leaf });
});
afterAll(async () => {
  await server.close();
  await forbidden.close();
  pki.cleanup();
  for (const r of repos) r.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function egressEntry(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    provider: 'anthropic',
    model: 'claude-test',
    host: 'localhost',
    port: server.port,
    transport: 'tls',
    allow_loopback: true,
    ca: { file: pki.caFile, sha256: sha256(pki.caPem) },
    routes: [{ method: 'POST', path: '/v1/messages' }],
    credential: { env: KEY_ENV },
    broker_sha256: [sha256(readFileSync(join(REPO_ROOT, 'runner', 'egress', 'broker.mjs')))],
    relay: { sha256: [sha256(readFileSync(join(REPO_ROOT, 'runner', 'egress', 'relay.mjs')))] },
    caps: { requests: 4, request_bytes: '4MiB', response_bytes: '1MiB', total_up: '16MiB', total_down: '4MiB', request_timeout: '30s', connections: 2 },
    ...over,
  };
}

function tool(args: string[], network: string, egress: Record<string, unknown> | null): string {
  const fields = [`command: ${JSON.stringify(['/usr/bin/node', '{repo}/.reviewers/fake-cli.cjs', ...args])}`, 'parse: text_fallback', 'timeout: 30s', 'retries: 0', `network: ${network}`];
  if (egress !== null) fields.push(`egress: ${JSON.stringify(egress)}`);
  return `{ ${fields.join(', ')} }`;
}

function repoWith(tools: Record<string, string>): TempRepo {
  const config = `tools:\n${Object.entries(tools).map(([n, t]) => `  ${n}: ${t}`).join('\n')}\nstages:\n  development: { reviewers: [${Object.keys(tools).join(', ')}], arbiter: null }\n`;
  const repo = scriptedRepo({ 'review-pass.yaml': config, '.reviewers/fake-cli.cjs': FAKE_CLI });
  repos.push(repo);
  return repo;
}

/** The built CLI as its own process (the model server in this process keeps answering meanwhile). */
function review(repo: TempRepo, env: Record<string, string> = { [KEY_ENV]: REAL_KEY }): Promise<{ r: CliResult; out: string }> {
  const d = mkdtempSync(join(tmpdir(), 'governed-rp-broker-'));
  dirs.push(d);
  const out = join(d, 'out');
  const child = spawn(process.execPath, [CLI, 'review-pass', '--stage', 'development', '--out', out, '--json'], { cwd: repo.root, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  return new Promise((resolve) => child.on('close', (code) => resolve({ r: { code, stdout, stderr }, out })));
}

type Row = { reviewer: string; status: string; failure: string | null; exit_class: string; network: boolean | string };
const rows = (r: CliResult): Row[] => jsonOut(r).reviewers as Row[];

describe('review-pass network: broker', () => {
  it('a TCP-only CLI reaches the one endpoint through relay → broker → TLS with the real key; it never saw the key; a direct TCP connection out fails; report says broker', async () => {
    const before = server.requests.length;
    const repo = repoWith({ ask: tool(['ask'], 'broker', egressEntry()), direct: tool(['direct', String(forbidden.port)], 'broker', egressEntry()) });
    const { r, out } = await review(repo);
    expect([0, 9], r.stderr).toContain(r.code);
    // One call per reviewer per round (the stage converges over rounds): every one ok, through the broker.
    const x = rows(r);
    expect(x.length).toBeGreaterThanOrEqual(2);
    expect(new Set(x.map((row) => row.reviewer))).toEqual(new Set(['ask', 'direct']));
    for (const row of x) expect([row.status, row.failure, row.network]).toEqual(['ok', null, 'broker']);
    // Every call answered through the broker (the direct attempt fell back to it: it never
    // printed CONNECTED); the server saw the real key, and the prompt the CLI sent.
    const seen = server.requests.slice(before);
    expect(seen.length).toBe(x.length);
    for (const s of seen) {
      expect(s.headers['x-api-key']).toBe(REAL_KEY);
      expect(JSON.parse(s.body).messages[0].content).toContain('src/app.js');
    }
    // The advisory results keep each call's egress transcript head and totals: one request each,
    // and together exactly the bytes the server received.
    const executions = (JSON.parse(readFileSync(join(out, 'executions.json'), 'utf8')) as { executions: { egress_transcript: { head: string; requests: number; bytes_up: number; bytes_down: number; terminate_ca_sha256: string | null } }[] }).executions;
    expect(executions.length).toBe(x.length);
    for (const e of executions) {
      expect(e.egress_transcript.head).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(e.egress_transcript.requests).toBe(1);
      expect(e.egress_transcript.bytes_down).toBeGreaterThan(0);
      expect(e.egress_transcript.terminate_ca_sha256).toBeNull();
    }
    expect(new Set(executions.map((e) => e.egress_transcript.head)).size).toBe(executions.length);
    expect(executions.reduce((n, e) => n + e.egress_transcript.bytes_up, 0)).toBe(seen.reduce((n, s) => n + Buffer.byteLength(s.body), 0));
    const report = readFileSync(join(out, 'report.md'), 'utf8');
    expect(report).toContain('broker (one endpoint)');
    for (const f of ['result.json', 'report.md', 'executions.json']) expect(readFileSync(join(out, f), 'utf8')).not.toContain(REAL_KEY);
    expect(r.stdout + r.stderr).not.toContain(REAL_KEY);
    expect(forbidden.connections()).toBe(0);
  }, 120_000);

  it("a body outside the broker's allowlist (a server-side web search tool) makes the call unusable: egress_refused, nothing forwarded", async () => {
    const before = server.requests.length;
    const repo = repoWith({ tooly: tool(['server-tool'], 'broker', egressEntry()) });
    const { r, out } = await review(repo);
    expect(r.code).toBe(9);
    expect(rows(r).map((row) => [row.reviewer, row.status, row.failure])).toContainEqual(['tooly', 'failed', 'egress_refused']);
    // A refused call keeps no transcript digest (its records decided the status and were dropped).
    const executions = (JSON.parse(readFileSync(join(out, 'executions.json'), 'utf8')) as { executions: { reviewer: string; egress_transcript: unknown }[] }).executions;
    const tooly = executions.filter((row) => row.reviewer === 'tooly');
    expect(tooly.length).toBeGreaterThan(0);
    for (const e of tooly) expect(e.egress_transcript).toBeNull();
    expect(server.requests.length).toBe(before);
    expect(forbidden.connections()).toBe(0);
  }, 120_000);

  it('refusals before any reviewer starts: no credential → egress_credential_unavailable; relay off its allowlist → egress_relay_not_allowlisted; network: broker without an entry (or without relay), or naming the egress variables or the key variable → orchestrator_config_invalid', async () => {
    const cases: [Record<string, string>, Record<string, string>, string][] = [
      [{ a: tool(['ask'], 'broker', egressEntry()) }, {}, 'egress_credential_unavailable'],
      [{ a: tool(['ask'], 'broker', egressEntry({ relay: { sha256: ['0'.repeat(64)] } })) }, { [KEY_ENV]: REAL_KEY }, 'egress_relay_not_allowlisted'],
      [{ a: tool(['ask'], 'broker', null) }, { [KEY_ENV]: REAL_KEY }, 'orchestrator_config_invalid'],
      [{ a: tool(['ask'], 'broker', { ...egressEntry(), relay: undefined }) }, { [KEY_ENV]: REAL_KEY }, 'orchestrator_config_invalid'],
      [{ a: tool(['ask'], 'true', egressEntry()) }, { [KEY_ENV]: REAL_KEY }, 'orchestrator_config_invalid'],
      [{ a: `${tool(['ask'], 'broker', egressEntry()).slice(0, -2)}, env: { ANTHROPIC_BASE_URL: "http://x.test" } }` }, { [KEY_ENV]: REAL_KEY }, 'orchestrator_config_invalid'],
      // The real key's own variable passed into the sandbox.
      [{ a: `${tool(['ask'], 'broker', egressEntry()).slice(0, -2)}, env_passthrough: [${KEY_ENV}] }` }, { [KEY_ENV]: REAL_KEY }, 'orchestrator_config_invalid'],
    ];
    const before = server.requests.length;
    for (const [tools, env, code] of cases) {
      const { r } = await review(repoWith(tools), env);
      expect(r.code, code).toBe(2);
      expect((jsonOut(r).error as { code: string }).code).toBe(code);
    }
    expect(server.requests.length).toBe(before);
    expect(forbidden.connections()).toBe(0);
  }, 120_000);

  it('TLS-terminating mode: a CLI that honours only HTTPS_PROXY reaches the endpoint through CONNECT and the run CA; the same CLI without terminate has no proxy and gets nowhere', async () => {
    const before = server.requests.length;
    const relay = { sha256: [sha256(readFileSync(join(REPO_ROOT, 'runner', 'egress', 'relay.mjs')))], terminate: true };
    const { r, out } = await review(repoWith({ proxied: tool(['proxy'], 'broker', egressEntry({ relay })) }));
    expect([0, 9], r.stderr).toContain(r.code);
    const x = rows(r);
    expect(x.length).toBeGreaterThanOrEqual(1);
    expect(x.map((row) => [row.status, row.failure, row.network, (row as unknown as { exit_code: number }).exit_code]), JSON.stringify(x)).toEqual(x.map(() => ['ok', null, 'broker', 0]));
    const seen = server.requests.slice(before);
    expect(seen.length).toBe(x.length);
    for (const s of seen) expect(s.headers['x-api-key']).toBe(REAL_KEY);
    const executions = (JSON.parse(readFileSync(join(out, 'executions.json'), 'utf8')) as { executions: { egress_transcript: { terminate_ca_sha256: string | null } }[] }).executions;
    for (const e of executions) expect(e.egress_transcript.terminate_ca_sha256).toMatch(/^[0-9a-f]{64}$/);
    // Without terminate the runner sets no HTTPS_PROXY: the same CLI has no way to its default URL
    // (and the broker would refuse its CONNECT: test/egress-terminate.test.ts).
    const mid = server.requests.length;
    const plain = await review(repoWith({ proxied: tool(['proxy'], 'broker', egressEntry()) }));
    expect(plain.r.code).toBe(9);
    expect(rows(plain.r).map((row) => [row.status, row.failure])).toContainEqual(['failed', 'exit_code']);
    expect(server.requests.length).toBe(mid);
    expect(forbidden.connections()).toBe(0);
  }, 120_000);

  it('positive control: the same CLI with network: true (the host network) connects to the server the broker path cannot reach', async () => {
    const target = await startForbidden();
    try {
      const repo = repoWith({ host: tool(['direct', String(target.port)], 'true', null) });
      const { r } = await review(repo);
      expect(rows(r).map((row) => [row.reviewer, row.network])).toContainEqual(['host', true]);
      expect(target.connections()).toBe(1);
    } finally {
      await target.close();
    }
  }, 120_000);
});
