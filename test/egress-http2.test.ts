// The broker speaks only HTTP/1.1 (docs/egress.md#http2). HTTP/2 is refused with its own outcome,
// `refused_http2`, and code, `egress_http2_refused` — never forwarded, never misfiled as malformed:
//  - prior knowledge on the broker's socket: Node's own HTTP/2 client (node:http2), which opens with
//    the connection preface `PRI * HTTP/2.0`;
//  - in TLS-terminating mode, a TLS client in the CONNECT tunnel that offers only `h2` by ALPN (the
//    handshake fails with the no_application_protocol alert);
//  - the same preface sent inside a tunnel whose TLS negotiated http/1.1.
// Each against the real pinned broker (runner/egress/broker.mjs) and a real loopback HTTPS endpoint
// with a pinned test CA, which must receive nothing; a second loopback server sees zero connections.
// Positive controls on the same broker set-up: an HTTP/1.1 request is forwarded, and a TLS client
// offering `h2` AND `http/1.1` gets http/1.1 and is forwarded.
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect as http2Connect } from 'node:http2';
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EGRESS_OUTCOME_CODES } from '../src/core/egress-rules.js';
import { exitCodeOf } from '../src/core/errors.js';
import { startBroker, type StartedBroker } from '../runner/egress/host.js';
import { makeRunCa, type RunCa } from '../runner/egress/run-ca.js';
import { REPO_ROOT } from './helpers/cli.js';
import { makeTestPki, startForbidden, startModelServer, type ModelServer, type TestPki } from './helpers/model-server.js';

const BROKER = readFileSync(join(REPO_ROOT, 'runner', 'egress', 'broker.mjs'));
const KEY = 'sk-ant-REAL-gvd-http2-41c07e';
const PHANTOM = 'sk-ant-api03-gvdPHANTOMhttp2000000000000';
const PREFACE = 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n';
const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

let pki: TestPki;
let upstream: ModelServer;
let forbidden: ModelServer;
beforeAll(async () => {
  pki = makeTestPki();
  forbidden = await startForbidden();
  upstream = await startModelServer({ script: () => ({ text: 'answer' }), tls: pki.leaf });
});
afterEach(() => {
  expect(forbidden.connections()).toBe(0);
});
afterAll(async () => {
  await upstream.close();
  await forbidden.close();
  pki.cleanup();
});

function broker(runCa: RunCa | null): Promise<StartedBroker> {
  return startBroker(BROKER, {
    provider: 'anthropic',
    model: 'claude-test',
    host: 'localhost',
    port: upstream.port,
    transport: 'tls',
    allow_loopback: true,
    ca_pem: pki.caPem,
    terminate: runCa === null ? null : { cert_pem: runCa.leafPem, key_pem: runCa.leafKeyPem },
    routes: [{ method: 'POST', path: '/v1/messages' }],
    key: KEY,
    phantom: PHANTOM,
    socket_uid: null,
    caps: { requests: 8, request_bytes: 65536, response_bytes: 65536, total_up: 1 << 20, total_down: 1 << 20, request_timeout_ms: 5000, connections: 4, deadline_ms: 60_000 },
  });
}

const body = JSON.stringify({ model: 'claude-test', max_tokens: 8, messages: [{ role: 'user', content: 'h2 test' }] });
const post = (): string =>
  `POST /v1/messages HTTP/1.1\r\nHost: localhost:${upstream.port}\r\nx-api-key: ${PHANTOM}\r\nanthropic-version: 2023-06-01\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;

/** Write `raw` on `sock` and collect everything until the broker closes it. */
function exchange(sock: Socket | TLSSocket, raw: string): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    sock.on('data', (d: Buffer) => (got += d.toString('latin1')));
    sock.on('error', () => undefined);
    sock.on('close', () => resolve(got));
    sock.write(raw);
  });
}

/** CONNECT localhost:<upstream> on the broker's socket, then TLS (trusting the run CA) with `alpn`. */
function tunnel(b: StartedBroker, runCa: RunCa, alpn: string[]): Promise<{ tls: TLSSocket | null; error: string | null }> {
  return new Promise((resolve) => {
    const raw = connect(b.socket);
    raw.once('error', (e: NodeJS.ErrnoException) => resolve({ tls: null, error: e.code ?? 'error' }));
    raw.write(`CONNECT localhost:${upstream.port} HTTP/1.1\r\nHost: localhost:${upstream.port}\r\n\r\n`);
    raw.once('data', (d: Buffer) => {
      expect(d.toString('latin1')).toMatch(/^HTTP\/1\.1 200 /);
      const tls = tlsConnect({ socket: raw, servername: 'localhost', ca: runCa.caPem, ALPNProtocols: alpn });
      tls.once('secureConnect', () => resolve({ tls, error: null }));
      tls.once('error', (e: NodeJS.ErrnoException) => resolve({ tls: null, error: e.code ?? 'error' }));
    });
  });
}

describe('HTTP/2 at the broker: refused_http2 (egress_http2_refused), nothing reaches the endpoint', () => {
  it('the code is a run failure (exit 9) and the outcome maps to it', () => {
    expect(EGRESS_OUTCOME_CODES.refused_http2).toBe('egress_http2_refused');
    expect(exitCodeOf('egress_http2_refused')).toBe(9);
  });

  it("prior knowledge on the socket: node:http2's client is refused; control: an HTTP/1.1 request on the same set-up is forwarded", async () => {
    const before = upstream.requests.length;
    const b = await broker(null);
    let h2Error: string | null = null;
    try {
      await new Promise<void>((resolve) => {
        const session = http2Connect('http://localhost', { createConnection: () => connect(b.socket) });
        session.on('error', (e: NodeJS.ErrnoException) => {
          h2Error = e.code ?? 'error';
          resolve();
        });
        session.on('close', () => resolve());
        const req = session.request({ ':method': 'POST', ':path': '/v1/messages', 'x-api-key': PHANTOM, 'content-type': 'application/json' });
        req.on('error', () => undefined);
        req.on('response', () => {
          h2Error = 'RESPONDED';
        });
        req.end(body);
      });
    } finally {
      const stopped = await b.stop();
      expect(stopped.crashed).toBe(false);
      expect(stopped.records.map((r) => r.outcome)).toEqual(['refused_http2']);
    }
    expect(h2Error).not.toBe('RESPONDED');
    expect(upstream.requests.length).toBe(before);
    // Positive control: the same broker set-up forwards an HTTP/1.1 request.
    const c = await broker(null);
    try {
      expect(await exchange(connect(c.socket), post())).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      expect((await c.stop()).records.map((r) => r.outcome)).toEqual(['forwarded']);
    }
    expect(upstream.requests.length).toBe(before + 1);
    expect(upstream.requests[before]!.headers['x-api-key']).toBe(KEY);
  });

  it('terminate mode, ALPN h2 only: the handshake fails (no_application_protocol), refused_http2 recorded in the tunnel; control: ALPN h2 + http/1.1 negotiates http/1.1 and is forwarded', async () => {
    const runCa = makeRunCa('localhost');
    const before = upstream.requests.length;
    const b = await broker(runCa);
    try {
      const t = await tunnel(b, runCa, ['h2']);
      expect(t.tls).toBeNull();
      expect(t.error).toBe('ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL');
    } finally {
      const stopped = await b.stop();
      expect(stopped.crashed).toBe(false);
      expect(stopped.records.map((r) => [r.outcome, r.tunnel])).toEqual([['refused_http2', true]]);
    }
    expect(upstream.requests.length).toBe(before);
    // Positive control: a client that also offers http/1.1 gets it, and its request is forwarded.
    const c = await broker(runCa);
    try {
      const t = await tunnel(c, runCa, ['h2', 'http/1.1']);
      expect(t.error).toBeNull();
      expect(t.tls?.alpnProtocol).toBe('http/1.1');
      expect(await exchange(t.tls as TLSSocket, post())).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      const stopped = await c.stop();
      expect(stopped.records.map((r) => [r.outcome, r.tunnel])).toEqual([['forwarded', true]]);
      expect(stopped.records[0]!.upstream_cert_sha256).toBe(sha256(new X509Certificate(pki.leaf.cert).raw));
    }
    expect(upstream.requests.length).toBe(before + 1);
  });

  it('terminate mode, the preface inside a tunnel that negotiated http/1.1: refused_http2 (not refused_malformed), 505, nothing forwarded', async () => {
    const runCa = makeRunCa('localhost');
    const before = upstream.requests.length;
    const b = await broker(runCa);
    try {
      const t = await tunnel(b, runCa, ['http/1.1']);
      expect(t.error).toBeNull();
      expect(await exchange(t.tls as TLSSocket, `${PREFACE}\0\0\0\x04\0\0\0\0\0`)).toMatch(/^HTTP\/1\.1 505 /);
    } finally {
      const stopped = await b.stop();
      expect(stopped.crashed).toBe(false);
      expect(stopped.records.map((r) => [r.outcome, r.tunnel])).toEqual([['refused_http2', true]]);
    }
    expect(upstream.requests.length).toBe(before);
  });
});
