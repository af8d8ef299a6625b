// TLS-terminating mode (docs/egress.md#tls-terminating-mode), in real bubblewrap under the relay
// profile as the policy's sandbox uid: a client that honours only HTTPS_PROXY opens a CONNECT tunnel
// through the pinned relay; the real broker ends its TLS with the leaf of a per-run CA (made here by
// runner/egress/run-ca.ts with node:crypto and openssl) that only this sandbox trusts, applies every
// rule to each request inside, and re-originates TLS to a real HTTPS model server on loopback whose
// certificate it verifies against a pinned test CA. Each attack runs with its own broker and asserts
// the exact outcome, the run's error code (EGRESS_OUTCOME_CODES), that the endpoint received nothing
// from it and that a second loopback server saw zero connections; positive controls show the same
// client getting through when the request is the allowed one.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EGRESS_OUTCOME_CODES, relayEnv, terminateEnv, type EgressOutcome } from '../src/core/egress-rules.js';
import { startBroker, type BrokerOutcome, type StartedBroker } from '../runner/egress/host.js';
import { makeRunCa, type RunCa } from '../runner/egress/run-ca.js';
import { staticProfileSha256 } from '../runner/sandbox/profile.js';
import { runSandboxed, type SandboxRequest } from '../runner/sandbox/run.js';
import { seccompBlob } from '../runner/seccomp/index.js';
import { REPO_ROOT } from './helpers/cli.js';
import { makeTestPki, startForbidden, startModelServer, type ModelServer, type TestPki } from './helpers/model-server.js';
import { assertToolchain, IS_ROOT, NODE, realAllow, sha256, testLimits } from './sandbox-helpers.js';

const CONNECT_PROBE = readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'egress', 'connect-probe.cjs'));
const CURL_PROXY = readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'egress', 'curl-proxy-reviewer.sh'));
const BROKER = readFileSync(join(REPO_ROOT, 'runner', 'egress', 'broker.mjs'));
const RELAY = readFileSync(join(REPO_ROOT, 'runner', 'egress', 'relay.mjs'));
const KEY = 'sk-ant-REAL-gvd-terminate-5be0a1';
const PHANTOM = 'sk-ant-api03-gvdPHANTOMterminate000000000';
const SANDBOX_UID = 64563;

let pki: TestPki;
let upstream: ModelServer;
/** Serves a valid certificate of the pinned CA, but for another name (other.test). */
let wrongCert: ModelServer;
let forbidden: ModelServer;
beforeAll(async () => {
  assertToolchain();
  pki = makeTestPki();
  forbidden = await startForbidden();
  upstream = await startModelServer({ script: () => ({ text: 'terminated answer' }), tls: pki.leaf });
  wrongCert = await startModelServer({ script: () => ({ text: 'must never answer' }), tls: pki.otherLeaf });
});
afterAll(async () => {
  await upstream.close();
  await wrongCert.close();
  await forbidden.close();
  pki.cleanup();
});

function broker(port: number, runCa: RunCa | null): Promise<StartedBroker> {
  return startBroker(BROKER, {
    provider: 'anthropic',
    model: 'claude-test',
    host: 'localhost',
    port,
    transport: 'tls',
    allow_loopback: true,
    ca_pem: pki.caPem,
    terminate: runCa === null ? null : { cert_pem: runCa.leafPem, key_pem: runCa.leafKeyPem },
    routes: [{ method: 'POST', path: '/v1/messages' }],
    key: KEY,
    phantom: PHANTOM,
    socket_uid: IS_ROOT ? SANDBOX_UID : null,
    caps: { requests: 8, request_bytes: 65536, response_bytes: 65536, total_up: 1 << 20, total_down: 1 << 20, request_timeout_ms: 5000, connections: 4, deadline_ms: 60_000 },
  });
}

async function terminateRequest(socket: string, runCa: RunCa, reviewer: Buffer, bundle: unknown, interpreter = NODE): Promise<SandboxRequest> {
  const base = await realAllow(sha256(reviewer));
  const env = {
    GOVERNED_EGRESS_SOCKET: '/run/governed/egress.sock',
    GOVERNED_EGRESS_TOKEN: PHANTOM,
    GOVERNED_MODEL_PROVIDER: 'anthropic',
    GOVERNED_MODEL: 'claude-test',
    GOVERNED_EGRESS_PATH: '/v1/messages',
    ...relayEnv('anthropic', PHANTOM),
    ...terminateEnv(runCa.caPem, 'localhost', upstream.port),
  };
  return {
    allow: { ...base, profileSha256: [staticProfileSha256('relay')], seccompSha256: [sha256(seccompBlob('loopback-tcp'))] },
    interpreter,
    reviewer: { bytes: reviewer },
    bundleBytes: Buffer.from(typeof bundle === 'string' ? bundle : JSON.stringify(bundle)),
    env: {},
    uid: SANDBOX_UID,
    gid: SANDBOX_UID,
    limits: testLimits(),
    egress: { socket, env, relay: true, terminate: true },
    relay: { bytes: RELAY, sha256: [sha256(RELAY)] },
  };
}

const body = JSON.stringify({ model: 'claude-test', max_tokens: 8, messages: [{ role: 'user', content: 'inside the tunnel' }] });
const post = (o: { path?: string; host?: string; close?: boolean } = {}): string =>
  `POST ${o.path ?? '/v1/messages'} HTTP/1.1\r\nHost: ${o.host ?? `localhost:${upstream.port}`}\r\nx-api-key: PHANTOM\r\nanthropic-version: 2023-06-01\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${o.close === false ? '' : 'connection: close\r\n'}\r\n${body}`;

interface ProbeCase {
  readonly target: string;
  readonly servername: string;
  readonly raw: string;
  readonly insecure?: boolean;
}
interface ProbeResult {
  readonly connect?: number;
  readonly statuses?: number[];
  readonly cert?: string | null;
  readonly tls_error?: string;
  readonly error?: string;
}

/** One sandbox run of the CONNECT probe with its own broker and run CA. */
async function probe(c: (port: number) => ProbeCase, o: { port?: number; terminate?: boolean } = {}): Promise<{ out: { ca_file: number; direct_upstream: { ok: boolean; code?: string }; cases: ProbeResult[] }; stopped: BrokerOutcome; runCa: RunCa }> {
  const runCa = makeRunCa('localhost');
  const port = o.port ?? upstream.port;
  const b = await broker(port, o.terminate === false ? null : runCa);
  let stopped: BrokerOutcome | null = null;
  try {
    const r = await runSandboxed(await terminateRequest(b.socket, runCa, CONNECT_PROBE, { upstreamPort: port, cases: [c(port)] }));
    expect(r.exitCode, `stderr bytes ${r.stderrBytes}`).toBe(0);
    expect(r.facts.profileDigest).toBe(`sha256:${staticProfileSha256('relay')}`);
    return { out: JSON.parse(r.stdout.toString('utf8')), stopped: (stopped = await b.stop()), runCa };
  } finally {
    if (stopped === null) await b.stop();
  }
}

const codeOf = (o: EgressOutcome): string => (o === 'forwarded' ? 'none' : EGRESS_OUTCOME_CODES[o]);

describe('the per-run CA (runner/egress/run-ca.ts)', () => {
  it('is a one-day CA constrained to the policy host with pathlen 0, and its one leaf names exactly that host', () => {
    const r = makeRunCa('api.example.test');
    const ca = new X509Certificate(r.caPem);
    const leaf = new X509Certificate(r.leafPem);
    expect(ca.ca).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkHost('api.example.test')).toBe('api.example.test');
    expect(leaf.checkHost('evil.test')).toBeUndefined();
    expect(r.caSha256).toBe(sha256(ca.raw));
    expect(Date.parse(ca.validTo) - Date.parse(ca.validFrom)).toBeLessThanOrEqual(86_400_000 + 1000);
    // Two runs never share a CA.
    expect(makeRunCa('api.example.test').caSha256).not.toBe(r.caSha256);
    // A host that is not a DNS name never reaches openssl's configuration.
    expect(() => makeRunCa('a.test\nnameConstraints=critical,permitted;DNS:evil.test')).toThrow(RangeError);
  });
});

describe('a client that honours only HTTPS_PROXY, through relay → broker (TLS ended with the run CA) → TLS to the endpoint', () => {
  it('curl with HTTPS_PROXY reaches the allowlisted host; the endpoint sees the real key; the same curl ignoring the proxy has no route', async () => {
    const runCa = makeRunCa('localhost');
    const b = await broker(upstream.port, runCa);
    const before = upstream.requests.length;
    let stopped: BrokerOutcome | null = null;
    try {
      const r = await runSandboxed(await terminateRequest(b.socket, runCa, CURL_PROXY, String(upstream.port), '/usr/bin/sh'));
      expect(r.exitCode, `stderr bytes ${r.stderrBytes}`).toBe(0);
      const out = JSON.parse(r.stdout.toString('utf8'));
      expect(out.proxied).toBe(200);
      expect(out.proxied_exit).toBe(0);
      // --noproxy: curl finds no listener on that port in the sandbox's own network namespace (7).
      expect(out.direct_exit).toBe(7);
    } finally {
      stopped = await b.stop();
    }
    expect(stopped.crashed).toBe(false);
    expect(stopped.records.map((x) => x.outcome)).toEqual(['forwarded']);
    expect(stopped.records[0]!.tunnel).toBe(true);
    // Re-originated TLS: the recorded certificate is the endpoint's (pinned test CA), not the run CA's leaf.
    expect(stopped.records[0]!.upstream_cert_sha256).toBe(sha256(new X509Certificate(pki.leaf.cert).raw));
    expect(upstream.requests.length).toBe(before + 1);
    const seen = upstream.requests[before]!;
    expect(seen.path).toBe('/v1/messages');
    expect(seen.headers['x-api-key']).toBe(KEY);
    expect(JSON.parse(seen.body).messages[0].content).toBe('curl via HTTPS_PROXY');
    expect(forbidden.connections()).toBe(0);
  });

  it("positive control: a hand-written CONNECT client gets the answer; it was shown the run CA's leaf, the CA file is read-only, direct TCP to the endpoint is refused", async () => {
    const before = upstream.requests.length;
    const { out, stopped, runCa } = await probe((port) => ({ target: `localhost:${port}`, servername: 'localhost', raw: post() }));
    expect(out.ca_file).toBe(0o444);
    expect(out.direct_upstream).toEqual({ ok: false, code: 'ECONNREFUSED' });
    expect(out.cases[0]).toMatchObject({ connect: 200, statuses: [200], cert: sha256(new X509Certificate(runCa.leafPem).raw) });
    expect(stopped.records.map((x) => x.outcome)).toEqual(['forwarded']);
    expect(stopped.records[0]!.tunnel).toBe(true);
    expect(upstream.requests.length).toBe(before + 1);
    expect(forbidden.connections()).toBe(0);
  });
});

describe('attacks on the terminating mode: each a coded refusal, nothing reaches the endpoint, zero connections to the forbidden server', () => {
  const attacks: [string, (port: number) => ProbeCase, ProbeResult, EgressOutcome[]][] = [
    ['CONNECT to a non-allowlisted host (an IP literal of the forbidden server)', () => ({ target: `127.0.0.1:${forbidden.port}`, servername: 'localhost', raw: post() }), { connect: 405 }, ['refused_connect']],
    ['CONNECT to the policy host on another port', () => ({ target: `localhost:${forbidden.port}`, servername: 'localhost', raw: post() }), { connect: 405 }, ['refused_connect']],
    ['CONNECT to another name on the policy port', (port) => ({ target: `other.test:${port}`, servername: 'other.test', raw: post() }), { connect: 405 }, ['refused_connect']],
    ['a TLS server name (SNI) other than the CONNECT host', (port) => ({ target: `localhost:${port}`, servername: 'other.test', raw: post(), insecure: true }), { connect: 200, statuses: [] }, ['refused_sni']],
    ['a Host header inside the tunnel other than the policy host', (port) => ({ target: `localhost:${port}`, servername: 'localhost', raw: post({ host: '127.0.0.1:3128' }) }), { connect: 200, statuses: [421] }, ['refused_host']],
    ['request smuggling: a second request in the same tunnel to a forbidden path', (port) => ({ target: `localhost:${port}`, servername: 'localhost', raw: post({ close: false }) + post({ path: '/v1/files' }) }), { connect: 200, statuses: [200, 404] }, ['forwarded', 'refused_route']],
    [
      'request smuggling: Content-Length and Transfer-Encoding together',
      (port) => ({
        target: `localhost:${port}`,
        servername: 'localhost',
        raw: `POST /v1/messages HTTP/1.1\r\nHost: localhost:${port}\r\nx-api-key: PHANTOM\r\ncontent-length: 5\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\nPOST /v1/files HTTP/1.1\r\nHost: localhost:${port}\r\nx-api-key: PHANTOM\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}`,
      }),
      { connect: 200, statuses: [400] },
      ['refused_malformed'],
    ],
  ];
  for (const [name, make, expected, outcomes] of attacks) {
    const refusal = outcomes[outcomes.length - 1] as EgressOutcome;
    it(`${name} → ${refusal} (${codeOf(refusal)})`, async () => {
      const before = upstream.requests.length;
      const { out, stopped } = await probe(make);
      expect(out.cases[0]).toMatchObject(expected);
      expect(stopped.crashed).toBe(false);
      // (Pipelined requests are parsed ahead and each is judged on its own, so the refusal of the
      // second may be recorded before the first was forwarded: the order is not asserted.)
      expect(stopped.records.map((x) => x.outcome).sort()).toEqual([...outcomes].sort());
      // Only an allowed request preceding the attack in the same stream ever reached the endpoint.
      const allowed = outcomes.filter((x) => x === 'forwarded').length;
      expect(upstream.requests.length).toBe(before + allowed);
      for (const seen of upstream.requests.slice(before)) expect(seen.path).toBe('/v1/messages');
      expect(forbidden.connections()).toBe(0);
    });
  }

  it('an upstream whose certificate is not for the policy host → upstream_tls_failed (egress_upstream_failed); it receives no request', async () => {
    const { out, stopped } = await probe((port) => ({ target: `localhost:${port}`, servername: 'localhost', raw: post({ host: `localhost:${port}` }) }), { port: wrongCert.port });
    expect(out.cases[0]).toMatchObject({ connect: 200, statuses: [502] });
    expect(stopped.records.map((x) => x.outcome)).toEqual(['upstream_tls_failed']);
    expect(codeOf('upstream_tls_failed')).toBe('egress_upstream_failed');
    expect(wrongCert.requests).toHaveLength(0);
    expect(forbidden.connections()).toBe(0);
  });

  it('without terminate mode the broker refuses even the exact host:port (CONNECT stays 405)', async () => {
    const before = upstream.requests.length;
    const { out, stopped } = await probe((port) => ({ target: `localhost:${port}`, servername: 'localhost', raw: post() }), { terminate: false });
    expect(out.cases[0]).toEqual({ connect: 405 });
    expect(stopped.records.map((x) => x.outcome)).toEqual(['refused_connect']);
    expect(upstream.requests.length).toBe(before);
    expect(forbidden.connections()).toBe(0);
  });
});

describe('the terminate wiring is checked before bwrap runs', () => {
  const cases: [string, (r: SandboxRequest) => SandboxRequest][] = [
    ['terminate without the relay', (r) => ({ ...r, egress: { ...(r.egress as NonNullable<SandboxRequest['egress']>), relay: undefined } })],
    ['terminate wiring without HTTPS_PROXY', (r) => {
      const { HTTPS_PROXY: _gone, ...env } = (r.egress as NonNullable<SandboxRequest['egress']>).env;
      return { ...r, egress: { ...(r.egress as NonNullable<SandboxRequest['egress']>), env } };
    }],
    ['terminate variables without terminate', (r) => ({ ...r, egress: { ...(r.egress as NonNullable<SandboxRequest['egress']>), terminate: undefined } })],
  ];
  for (const [name, mutate] of cases) {
    it(`${name} → sandbox_argument_invalid, nothing connected`, async () => {
      const runCa = makeRunCa('localhost');
      const b = await broker(upstream.port, runCa);
      const before = upstream.requests.length;
      try {
        await expect(runSandboxed(mutate(await terminateRequest(b.socket, runCa, CONNECT_PROBE, { upstreamPort: upstream.port, cases: [] })))).rejects.toMatchObject({ code: 'sandbox_argument_invalid' });
      } finally {
        expect((await b.stop()).records).toEqual([]);
      }
      expect(upstream.requests.length).toBe(before);
      expect(forbidden.connections()).toBe(0);
    });
  }
});
