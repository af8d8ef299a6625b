// The egress sandbox (docs/egress.md "Sandbox"): the reviewer runs in real bubblewrap with the egress
// profile — the broker's socket bound read-only at /run/governed/egress.sock, nothing else added —
// as the policy's sandbox uid. A probe inside (test/fixtures/egress/probe.cjs) searches every
// /proc/*/environ and /proc/*/cmdline it can read for the REAL key, tries DNS, direct TCP to the
// forbidden server, to the model server itself and to an external address, and then makes one
// allowed request through the socket (positive control). The forbidden server sees zero connections.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EGRESS_ENV_NAMES } from '../src/core/egress-rules.js';
import { startBroker } from '../runner/egress/host.js';
import { staticProfileSha256 } from '../runner/sandbox/profile.js';
import { runSandboxed } from '../runner/sandbox/run.js';
import { REPO_ROOT } from './helpers/cli.js';
import { startForbidden, startModelServer, type ModelServer } from './helpers/model-server.js';
import { assertToolchain, IS_ROOT, NODE, realAllow, sha256, testLimits } from './sandbox-helpers.js';

const PROBE = readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'egress', 'probe.cjs'));
const BROKER = readFileSync(join(REPO_ROOT, 'runner', 'egress', 'broker.mjs'));
const KEY = 'sk-ant-REAL-gvd-model-sandbox-5d2e81';
const SANDBOX_UID = 64561;

let upstream: ModelServer;
let forbidden: ModelServer;
beforeAll(async () => {
  assertToolchain();
  forbidden = await startForbidden();
  upstream = await startModelServer({ script: () => ({ text: '{}' }) });
});
afterAll(async () => {
  await upstream.close();
  await forbidden.close();
});

describe('inside the egress sandbox', () => {
  it('the real key is nowhere in the sandbox; no DNS, no direct TCP anywhere; the socket is the one way out', async () => {
    const phantom = 'sk-ant-api03-gvdPHANTOMsandbox00000000';
    const broker = await startBroker(BROKER, {
      provider: 'anthropic',
      model: 'claude-test',
      host: 'localhost',
      port: upstream.port,
      transport: 'plain-loopback',
      allow_loopback: false,
      ca_pem: null,
      routes: [{ method: 'POST', path: '/v1/messages' }],
      key: KEY,
      phantom,
      socket_uid: IS_ROOT ? SANDBOX_UID : null,
      caps: { requests: 4, request_bytes: 65536, response_bytes: 65536, total_up: 1 << 20, total_down: 1 << 20, request_timeout_ms: 5000, connections: 4, deadline_ms: 60_000 },
    });
    let stopped: Awaited<ReturnType<typeof broker.stop>> | null = null;
    try {
      const allow = { ...(await realAllow(sha256(PROBE))), profileSha256: [staticProfileSha256(true)] };
      const bundle = Buffer.from(JSON.stringify({ key: KEY, forbiddenPort: forbidden.port, upstreamPort: upstream.port }));
      const r = await runSandboxed({
        allow,
        interpreter: NODE,
        reviewer: { bytes: PROBE },
        bundleBytes: bundle,
        env: {},
        uid: SANDBOX_UID,
        gid: SANDBOX_UID,
        limits: testLimits(),
        egress: {
          socket: broker.socket,
          env: { GOVERNED_EGRESS_SOCKET: '/run/governed/egress.sock', GOVERNED_EGRESS_TOKEN: phantom, GOVERNED_MODEL_PROVIDER: 'anthropic', GOVERNED_MODEL: 'claude-test', GOVERNED_EGRESS_PATH: '/v1/messages' },
        },
      });
      expect(r.exitCode, `stderr bytes ${r.stderrBytes}`).toBe(0);
      const out = JSON.parse(r.stdout.toString('utf8'));
      // The probe could read /proc (it found its own phantom: the scan works) but never the real key.
      expect(out.phantom_in_proc.hits.length).toBeGreaterThan(0);
      expect(out.key_in_proc.scanned).toBeGreaterThan(0);
      expect(out.key_in_proc.hits).toEqual([]);
      expect(out.key_in_mountinfo).toBe(false);
      expect(out.env_names).toEqual([...['GOVERNED_BUNDLE', 'HOME', 'LANG', 'PATH', 'TMPDIR'], ...EGRESS_ENV_NAMES].sort());
      // No resolver at all; no TCP to any address (the seccomp filter admits AF_UNIX sockets only).
      expect(out.dns_external.ok).toBe(false);
      expect(out.dns_localhost.ok).toBe(false);
      expect(out.tcp_forbidden).toEqual({ ok: false, code: 'EAFNOSUPPORT' });
      expect(out.tcp_upstream).toEqual({ ok: false, code: 'EAFNOSUPPORT' });
      expect(out.tcp_external).toEqual({ ok: false, code: 'EAFNOSUPPORT' });
      // Positive control: the socket works, and the probe's own Authorization header was stripped.
      expect(out.allowed).toEqual({ ok: true, status: 200 });
      expect(upstream.requests).toHaveLength(1);
      expect(upstream.requests[0]!.headers['x-api-key']).toBe(KEY);
      expect(upstream.requests[0]!.headers.authorization).toBeUndefined();
    } finally {
      stopped = await broker.stop();
    }
    expect(stopped.crashed).toBe(false);
    expect(stopped.records.map((x) => x.outcome)).toEqual(['forwarded']);
    expect(forbidden.connections()).toBe(0);
  });

  it('the plain profile (no egress wiring) has no socket: the same probe cannot reach anything', async () => {
    const allow = await realAllow(sha256(PROBE));
    const r = await runSandboxed({
      allow,
      interpreter: NODE,
      reviewer: { bytes: PROBE },
      bundleBytes: Buffer.from(JSON.stringify({ key: KEY, forbiddenPort: forbidden.port, upstreamPort: upstream.port })),
      env: {},
      uid: SANDBOX_UID,
      gid: SANDBOX_UID,
      limits: testLimits(),
    });
    expect(r.exitCode).toBe(0);
    const out = JSON.parse(r.stdout.toString('utf8'));
    expect(out.allowed).toEqual({ ok: false, code: 'ENOENT' });
    expect(out.tcp_forbidden.ok).toBe(false);
    expect(forbidden.connections()).toBe(0);
  });

  it('the egress profile has its own digest: a policy allowlisting only the plain profile refuses an egress run before bwrap runs', async () => {
    const allow = await realAllow(sha256(PROBE));
    await expect(
      runSandboxed({
        allow,
        interpreter: NODE,
        reviewer: { bytes: PROBE },
        bundleBytes: Buffer.from('{}'),
        env: {},
        uid: SANDBOX_UID,
        gid: SANDBOX_UID,
        limits: testLimits(),
        egress: { socket: '/tmp/none.sock', env: { GOVERNED_EGRESS_SOCKET: '/run/governed/egress.sock', GOVERNED_EGRESS_TOKEN: 'x', GOVERNED_MODEL_PROVIDER: 'anthropic', GOVERNED_MODEL: 'm', GOVERNED_EGRESS_PATH: '/v1/messages' } },
      }),
    ).rejects.toMatchObject({ code: 'sandbox_profile_not_allowlisted' });
    expect(staticProfileSha256(true)).not.toBe(staticProfileSha256());
  });
});
