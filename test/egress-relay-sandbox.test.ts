// The in-sandbox relay (docs/egress.md#the-in-sandbox-relay), in real bubblewrap under the relay
// profile, as the policy's sandbox uid: the pinned relay (runner/egress/relay.mjs) is PID 1 of the
// sandbox, listens on 127.0.0.1:3128 in the sandbox's own network namespace and copies bytes to the
// real broker's socket; the broker forwards allowed requests over TLS (a test CA, pinned) to a real
// HTTPS model server on loopback. The reviewers are ordinary TCP clients: Node's http module
// (test/fixtures/egress/tcp-probe.cjs) and Debian's curl (test/fixtures/egress/curl-reviewer.sh).
// Every test asserts that a second loopback server outside the sandbox saw ZERO connections; the
// positive control shows the same probe reaching it from a bwrap sandbox that shares the host's
// network namespace.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EGRESS_ENV_NAMES, relayEnv } from '../src/core/egress-rules.js';
import { startBroker, type StartedBroker } from '../runner/egress/host.js';
import { runInRepoSandbox } from '../runner/repo-sandbox.js';
import { staticProfileSha256 } from '../runner/sandbox/profile.js';
import { runSandboxed, type SandboxRequest } from '../runner/sandbox/run.js';
import { seccompBlob } from '../runner/seccomp/index.js';
import { REPO_ROOT } from './helpers/cli.js';
import { makeTestPki, startForbidden, startModelServer, type ModelServer, type TestPki } from './helpers/model-server.js';
import { makeTempDir } from './helpers/temp.js';
import { assertToolchain, IS_ROOT, NODE, realAllow, sha256, testLimits } from './sandbox-helpers.js';

const PROBE = readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'egress', 'tcp-probe.cjs'));
const CURL_REVIEWER = readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'egress', 'curl-reviewer.sh'));
const BROKER = readFileSync(join(REPO_ROOT, 'runner', 'egress', 'broker.mjs'));
const RELAY = readFileSync(join(REPO_ROOT, 'runner', 'egress', 'relay.mjs'));
const KEY = 'sk-ant-REAL-gvd-relay-sandbox-93c1d7';
const PHANTOM = 'sk-ant-api03-gvdPHANTOMrelay0000000000000';
const SANDBOX_UID = 64562;

let pki: TestPki;
let upstream: ModelServer;
let forbidden: ModelServer;
beforeAll(async () => {
  assertToolchain();
  pki = makeTestPki();
  forbidden = await startForbidden();
  upstream = await startModelServer({ script: () => ({ text: 'relayed answer' }), tls: pki.leaf });
});
afterAll(async () => {
  await upstream.close();
  await forbidden.close();
  pki.cleanup();
});

function broker(): Promise<StartedBroker> {
  return startBroker(BROKER, {
    provider: 'anthropic',
    model: 'claude-test',
    host: 'localhost',
    port: upstream.port,
    transport: 'tls',
    allow_loopback: true,
    ca_pem: pki.caPem,
    routes: [{ method: 'POST', path: '/v1/messages' }],
    key: KEY,
    phantom: PHANTOM,
    socket_uid: IS_ROOT ? SANDBOX_UID : null,
    caps: { requests: 8, request_bytes: 65536, response_bytes: 65536, total_up: 1 << 20, total_down: 1 << 20, request_timeout_ms: 5000, connections: 4, deadline_ms: 60_000 },
  });
}

const wiringEnv = { GOVERNED_EGRESS_SOCKET: '/run/governed/egress.sock', GOVERNED_EGRESS_TOKEN: PHANTOM, GOVERNED_MODEL_PROVIDER: 'anthropic', GOVERNED_MODEL: 'claude-test', GOVERNED_EGRESS_PATH: '/v1/messages', ...relayEnv('anthropic', PHANTOM) };

async function relayRequest(socket: string, reviewer: Buffer, bundle: unknown, over: Partial<SandboxRequest> = {}): Promise<SandboxRequest> {
  const base = await realAllow(sha256(reviewer));
  return {
    allow: { ...base, profileSha256: [staticProfileSha256('relay')], seccompSha256: [sha256(seccompBlob('loopback-tcp'))] },
    interpreter: NODE,
    reviewer: { bytes: reviewer },
    bundleBytes: Buffer.from(typeof bundle === 'string' ? bundle : JSON.stringify(bundle)),
    env: {},
    uid: SANDBOX_UID,
    gid: SANDBOX_UID,
    limits: testLimits(),
    egress: { socket, env: wiringEnv, relay: true },
    relay: { bytes: RELAY, sha256: [sha256(RELAY)] },
    ...over,
  };
}

describe('a TCP client behind the in-sandbox relay', () => {
  it('reaches the one endpoint through relay → broker → TLS; no DNS, no UDP, no direct TCP out of the sandbox, the real key nowhere inside', async () => {
    const b = await broker();
    const before = upstream.requests.length;
    let stopped: Awaited<ReturnType<StartedBroker['stop']>> | null = null;
    try {
      const r = await runSandboxed(await relayRequest(b.socket, PROBE, { key: KEY, forbiddenPort: forbidden.port, upstreamPort: upstream.port, calls: [{}] }));
      expect(r.exitCode, `stderr bytes ${r.stderrBytes}`).toBe(0);
      expect(r.cleanupVerified).toBe(true);
      // The relay is PID 1 of the sandbox and the seccomp digest is the relay filter's.
      expect(r.facts.seccompDigest).toBe(`sha256:${sha256(seccompBlob('loopback-tcp'))}`);
      expect(r.facts.profileDigest).toBe(`sha256:${staticProfileSha256('relay')}`);
      const out = JSON.parse(r.stdout.toString('utf8'));
      expect(out.pid).not.toBe(1);
      expect(out.env_names).toEqual([...['GOVERNED_BUNDLE', 'HOME', 'LANG', 'PATH', 'TMPDIR'], ...EGRESS_ENV_NAMES, ...Object.keys(relayEnv('anthropic', ''))].sort());
      expect(out.phantom_in_proc.hits.length).toBeGreaterThan(0);
      expect(out.key_in_proc.scanned).toBeGreaterThan(0);
      expect(out.key_in_proc.hits).toEqual([]);
      expect(out.dns_external.ok).toBe(false);
      expect(out.dns_localhost.ok).toBe(false);
      // TCP sockets exist now (the relay filter), but the network namespace is the sandbox's own:
      // nothing listens on the host's loopback ports there, and no route leaves it.
      expect(out.tcp_forbidden).toEqual({ ok: false, code: 'ECONNREFUSED' });
      expect(out.tcp_forbidden_v6.ok).toBe(false);
      expect(out.tcp_upstream).toEqual({ ok: false, code: 'ECONNREFUSED' });
      expect(out.tcp_external).toEqual({ ok: false, code: 'ENETUNREACH' });
      // Datagram sockets stay refused by the filter.
      expect(out.udp_forbidden).toEqual({ ok: false, code: 'EAFNOSUPPORT' });
      // The one way out: the answer came back through relay and broker from the TLS server.
      expect(out.calls).toHaveLength(1);
      expect(out.calls[0].status).toBe(200);
      expect(JSON.parse(out.calls[0].body).content[0].text).toBe('relayed answer');
      expect(upstream.requests.length).toBe(before + 1);
      const seen = upstream.requests[before]!;
      expect(seen.headers['x-api-key']).toBe(KEY);
      expect(seen.headers.authorization).toBeUndefined();
    } finally {
      stopped = await b.stop();
    }
    expect(stopped.crashed).toBe(false);
    expect(stopped.records.map((x) => x.outcome)).toEqual(['forwarded']);
    // TLS to the pinned CA's leaf: the broker recorded the upstream certificate.
    expect(stopped.records[0]!.upstream_cert_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(forbidden.connections()).toBe(0);
  });

  it("the broker's allowlist holds behind the relay: other routes, bodies, targets, CONNECT and a missing phantom are refused and recorded, nothing reaches the endpoint", async () => {
    const b = await broker();
    const before = upstream.requests.length;
    let stopped: Awaited<ReturnType<StartedBroker['stop']>> | null = null;
    const calls = [
      { path: '/v1/files' },
      { body: { model: 'claude-test', max_tokens: 8, messages: [{ role: 'user', content: 'x' }], mcp_servers: [{ type: 'url', url: 'https://evil.test' }] } },
      { body: { model: 'another-model', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] } },
      { raw: `POST http://127.0.0.1:${forbidden.port}/v1/messages HTTP/1.1\r\nHost: 127.0.0.1:${forbidden.port}\r\nx-api-key: PHANTOM\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}` },
      { raw: `CONNECT 127.0.0.1:${forbidden.port} HTTP/1.1\r\nHost: 127.0.0.1:${forbidden.port}\r\n\r\n` },
      { raw: 'POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:3128\r\nx-api-key: sk-ant-api03-not-the-phantom\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}' },
    ];
    try {
      const r = await runSandboxed(await relayRequest(b.socket, PROBE, { key: KEY, forbiddenPort: forbidden.port, upstreamPort: upstream.port, calls }));
      expect(r.exitCode).toBe(0);
      const out = JSON.parse(r.stdout.toString('utf8'));
      expect(out.calls.map((c: { status?: number }) => c.status)).toEqual([404, 400, 400, 403, 405, 401]);
    } finally {
      stopped = await b.stop();
    }
    expect(stopped.crashed).toBe(false);
    expect(stopped.records.map((x) => x.outcome)).toEqual(['refused_route', 'refused_body', 'refused_body', 'refused_target', 'refused_connect', 'refused_phantom']);
    expect(upstream.requests.length).toBe(before);
    expect(forbidden.connections()).toBe(0);
  });

  it('curl, an unmodified client, works behind the relay with the variables a hosted CLI reads; using the relay as a forward proxy to another port is refused', async () => {
    const b = await broker();
    const before = upstream.requests.length;
    let stopped: Awaited<ReturnType<StartedBroker['stop']>> | null = null;
    try {
      const r = await runSandboxed({ ...(await relayRequest(b.socket, CURL_REVIEWER, String(forbidden.port))), interpreter: '/usr/bin/sh' });
      expect(r.exitCode, `stderr bytes ${r.stderrBytes}`).toBe(0);
      expect(JSON.parse(r.stdout.toString('utf8'))).toEqual({ allowed: 200, proxied: 403 });
    } finally {
      stopped = await b.stop();
    }
    expect(stopped.records.map((x) => x.outcome)).toEqual(['forwarded', 'refused_target']);
    expect(upstream.requests.length).toBe(before + 1);
    expect(JSON.parse(upstream.requests[before]!.body).messages[0].content).toBe('curl probe');
    expect(forbidden.connections()).toBe(0);
  });

  it('positive control: the same probe in a bwrap sandbox that shares the host network reaches the loopback server the relay sandbox cannot', async () => {
    const dir = makeTempDir('gvd-relay-control-');
    // Its own target, so the zero-connection assertions on `forbidden` stay exact.
    const target = await startForbidden();
    try {
      mkdirSync(join(dir, 'repo'), { mode: 0o755 });
      writeFileSync(join(dir, 'repo', 'probe.cjs'), PROBE);
      writeFileSync(join(dir, 'repo', 'bundle.json'), JSON.stringify({ key: KEY, forbiddenPort: target.port, upstreamPort: upstream.port, calls: [] }));
      const spec = { repoDir: join(dir, 'repo'), toolsDir: null, argv: [NODE, '/repo/probe.cjs'], env: { GOVERNED_BUNDLE: '/repo/bundle.json' }, stdin: null, promptFile: null, timeoutMs: 20_000, maxOutputBytes: 1 << 20 };
      const shared = await runInRepoSandbox({ ...spec, network: true });
      expect(shared.status).toBe('exited');
      expect(JSON.parse(shared.stdout.toString('utf8')).tcp_forbidden).toEqual({ ok: true });
      expect(target.connections()).toBe(1);
      // And with its own network namespace (bwrap's default there too), it cannot.
      const own = await runInRepoSandbox({ ...spec, network: false });
      expect(JSON.parse(own.stdout.toString('utf8')).tcp_forbidden).toEqual({ ok: false, code: 'ECONNREFUSED' });
      expect(target.connections()).toBe(1);
    } finally {
      await target.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the relay is not a trust boundary: without it the sandbox ends', () => {
  it('SIGKILL to the relay (PID 1) ends the whole sandbox: the reviewer never gets to make its request', async () => {
    const b = await broker();
    const before = upstream.requests.length;
    let stopped: Awaited<ReturnType<StartedBroker['stop']>> | null = null;
    try {
      const r = await runSandboxed({
        ...(await relayRequest(b.socket, PROBE, { key: KEY, forbiddenPort: forbidden.port, upstreamPort: upstream.port, calls: [{}], sleepMs: 3000 })),
        onStarted: (identity) => {
          // The recorded identity is the sandbox's PID 1: the relay. Kill it once the reviewer runs.
          setTimeout(() => process.kill(identity.pid, 'SIGKILL'), 1000);
        },
      });
      expect(r.exitCode === 0).toBe(false);
      expect(r.stdout.length).toBe(0);
      expect(r.cleanupVerified).toBe(true);
    } finally {
      stopped = await b.stop();
    }
    expect(stopped.records).toEqual([]);
    expect(upstream.requests.length).toBe(before);
    expect(forbidden.connections()).toBe(0);
  });
});

describe('the relay profile is pinned like every profile: refused before bwrap runs', () => {
  const cases: [string, (r: SandboxRequest) => SandboxRequest, string][] = [
    ['the relay profile not on profile_sha256', (r) => ({ ...r, allow: { ...r.allow, profileSha256: [staticProfileSha256('egress')] } }), 'sandbox_profile_not_allowlisted'],
    ['only the AF_UNIX filter on seccomp_sha256', (r) => ({ ...r, allow: { ...r.allow, seccompSha256: [sha256(seccompBlob())] } }), 'seccomp_not_allowlisted'],
    ['relay bytes not on the relay allowlist', (r) => ({ ...r, relay: { bytes: Buffer.concat([RELAY, Buffer.from('\n')]), sha256: [sha256(RELAY)] } }), 'egress_relay_not_allowlisted'],
    ['relay wiring without relay bytes', (r) => ({ ...r, relay: undefined }), 'sandbox_argument_invalid'],
    ['relay bytes without relay wiring', (r) => ({ ...r, egress: { socket: (r.egress as { socket: string }).socket, env: wiringEnv } }), 'sandbox_argument_invalid'],
  ];
  for (const [name, mutate, code] of cases) {
    it(`${name} → ${code}, and nothing connected`, async () => {
      const b = await broker();
      const before = upstream.requests.length;
      try {
        await expect(runSandboxed(mutate(await relayRequest(b.socket, PROBE, { key: KEY, forbiddenPort: forbidden.port, upstreamPort: upstream.port, calls: [{}] })))).rejects.toMatchObject({ code });
      } finally {
        const stopped = await b.stop();
        expect(stopped.records).toEqual([]);
      }
      expect(upstream.requests.length).toBe(before);
      expect(forbidden.connections()).toBe(0);
    });
  }
});
