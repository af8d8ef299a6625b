// The egress broker (docs/egress.md), attacked directly over its Unix socket: the pinned broker
// program (runner/egress/broker.mjs) started by runner/egress/host.ts exactly as review-run starts it,
// a real local model server (plain HTTP and TLS with a test CA made by openssl here) and a second
// "forbidden" loopback server that must see ZERO connections in every test. Each refusal asserts its
// recorded outcome, the code a run ends with, and that the upstream saw nothing it should not.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EGRESS_OUTCOME_CODES } from '../src/core/egress-rules.js';
import { startBroker, type BrokerStartConfig, type StartedBroker } from '../runner/egress/host.js';
import { REPO_ROOT } from './helpers/cli.js';
import { makeTestPki, startForbidden, startModelServer, type ModelServer, type Script, type TestPki } from './helpers/model-server.js';

const BROKER = readFileSync(join(REPO_ROOT, 'runner', 'egress', 'broker.mjs'));
const KEY = 'sk-ant-REAL-KEY-gvd-model-0123456789';
const PHANTOM = 'sk-ant-api03-gvdPHANTOM0123456789abcdef';
const MODEL = 'claude-test-1';
const ANSWER = '{"verdict":"CLEAN","findings":[]}';
const okBody = (extra: Record<string, unknown> = {}): string => JSON.stringify({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'review' }], ...extra });

let forbidden: ModelServer;
let pki: TestPki;
const open: { broker?: StartedBroker; servers: ModelServer[] } = { servers: [] };

beforeAll(async () => {
  forbidden = await startForbidden();
  pki = makeTestPki();
}, 30_000);
afterEach(async () => {
  // Every test: the forbidden server saw nothing.
  expect(forbidden.connections()).toBe(0);
  if (open.broker !== undefined) await open.broker.stop();
  open.broker = undefined;
  await Promise.all(open.servers.map((s) => s.close()));
  open.servers = [];
});
afterAll(async () => {
  await forbidden.close();
  pki.cleanup();
});

async function server(script: Script = () => ({ text: ANSWER }), tls?: { cert: string; key: string }): Promise<ModelServer> {
  const s = await startModelServer({ script, ...(tls === undefined ? {} : { tls }) });
  open.servers.push(s);
  return s;
}

type ConfigOver = Partial<Omit<BrokerStartConfig, 'caps'>> & { caps?: Partial<BrokerStartConfig['caps']> };

function config(port: number, over: ConfigOver = {}): BrokerStartConfig {
  const { caps, ...rest } = over;
  return {
    provider: 'anthropic',
    model: MODEL,
    host: 'localhost',
    port,
    transport: 'plain-loopback',
    allow_loopback: false,
    ca_pem: null,
    routes: [{ method: 'POST', path: '/v1/messages' }],
    key: KEY,
    phantom: PHANTOM,
    socket_uid: null,
    ...rest,
    caps: { requests: 8, request_bytes: 64 * 1024, response_bytes: 64 * 1024, total_up: 1 << 20, total_down: 1 << 20, request_timeout_ms: 5000, connections: 4, deadline_ms: 30_000, ...caps },
  };
}

async function broker(port: number, over: ConfigOver = {}): Promise<StartedBroker> {
  open.broker = await startBroker(BROKER, config(port, over));
  return open.broker;
}

interface Reply {
  readonly status: number;
  readonly body: string;
}

function send(b: StartedBroker, o: { path?: string; method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  const body = o.body ?? okBody();
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath: b.socket, method: o.method ?? 'POST', path: o.path ?? '/v1/messages', headers: { 'content-type': 'application/json', 'x-api-key': PHANTOM, 'anthropic-version': '2023-06-01', ...o.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
        res.on('aborted', () => reject(new Error('aborted')));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Stop the broker and return its records' outcomes (and the crash flag). */
async function outcomes(b: StartedBroker): Promise<{ outcomes: string[]; crashed: boolean; records: Awaited<ReturnType<StartedBroker['stop']>>['records'] }> {
  const r = await b.stop();
  open.broker = undefined;
  return { outcomes: r.records.map((x) => x.outcome), crashed: r.crashed, records: r.records };
}

const sha = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex');

describe('the lane: one endpoint, the real key injected, nothing else', () => {
  it('forwards an allowed request at time zero; the upstream sees only the real key; the record holds digests, never bodies or secrets', async () => {
    const up = await server();
    const b = await broker(up.port);
    // First request right after the broker reported ready (no start-up race).
    const r = await send(b, { headers: { authorization: 'Bearer attacker-key', cookie: 'session=attacker', 'x-goog-api-key': 'attacker', 'anthropic-beta': 'mcp-client-2025-04-04', 'proxy-authorization': 'Basic eA==' } });
    expect(r.status).toBe(200);
    expect(up.requests).toHaveLength(1);
    const seen = up.requests[0]!;
    expect(seen.headers['x-api-key']).toBe(KEY);
    for (const h of ['authorization', 'cookie', 'x-goog-api-key', 'anthropic-beta', 'proxy-authorization']) expect(seen.headers[h], h).toBeUndefined();
    expect(JSON.stringify(seen.headers)).not.toContain(PHANTOM);
    const { outcomes: o, crashed, records } = await outcomes(b);
    expect(crashed).toBe(false);
    expect(o).toEqual(['forwarded']);
    const rec = records[0]!;
    expect(rec.request.sha256).toBe(sha(seen.body));
    expect(rec.request.bytes).toBe(Buffer.byteLength(seen.body));
    expect(rec.response.status).toBe(200);
    expect(rec.response.sha256).toBe(sha(r.body));
    expect(rec.upstream_cert_sha256).toBeNull();
    const text = JSON.stringify(records);
    for (const secret of [KEY, PHANTOM, 'review', 'attacker']) expect(text).not.toContain(secret);
  });

  it.each([
    ['absolute-form target naming the forbidden server', { path: 'http://127.0.0.1:FORBIDDEN/v1/messages' }, 'refused_target', 403],
    ['absolute-form target naming the allowed host on another port', { path: 'http://localhost:FORBIDDEN/v1/messages' }, 'refused_target', 403],
    ['a Host header naming another host', { headers: { host: 'forbidden.example' } }, 'refused_host', 421],
    ['a route outside the list', { path: '/v1/files' }, 'refused_route', 404],
    ['the allowed path with another method', { method: 'PUT' }, 'refused_route', 404],
    ['the allowed path with a query string (key smuggling)', { path: '/v1/messages?key=attacker' }, 'refused_route', 404],
    ['no phantom token', { headers: { 'x-api-key': '' } }, 'refused_phantom', 401],
    ['a wrong phantom token', { headers: { 'x-api-key': 'sk-ant-api03-attacker' } }, 'refused_phantom', 401],
    ['the reviewer’s own key instead of the phantom', { headers: { 'x-api-key': KEY.replace('REAL', 'OWN!') } }, 'refused_phantom', 401],
    ['an MCP connector (mcp_servers)', { body: okBody({ mcp_servers: [{ type: 'url', url: 'http://127.0.0.1:FORBIDDEN/', name: 'x' }] }) }, 'refused_body', 400],
    ['a server-side web fetch tool', { body: okBody({ tools: [{ type: 'web_fetch_20250910', name: 'web_fetch' }] }) }, 'refused_body', 400],
    ['a server-side web search tool', { body: okBody({ tools: [{ type: 'web_search_20250305', name: 'web_search' }] }) }, 'refused_body', 400],
    ['code execution', { body: okBody({ tools: [{ type: 'code_execution_20250522', name: 'code_execution' }] }) }, 'refused_body', 400],
    ['an image the provider would fetch by URL', { body: okBody({ messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'http://127.0.0.1:FORBIDDEN/x.png' } }] }] }) }, 'refused_body', 400],
    ['another model', { body: okBody({ model: 'claude-other' }) }, 'refused_body', 400],
    ['malformed JSON', { body: '{"model":' }, 'refused_body', 400],
    ['a duplicate key hiding a second model', { body: `{"model":"${MODEL}","model":"claude-other","max_tokens":8,"messages":[{"role":"user","content":"x"}]}` }, 'refused_body', 400],
  ] as const)('refuses %s, records it, and nothing reaches any upstream', async (_name, o, outcome, status) => {
    const up = await server();
    const b = await broker(up.port);
    const fix = (s: string | undefined): string | undefined => s?.replaceAll('FORBIDDEN', String(forbidden.port));
    const r = await send(b, { ...o, path: fix((o as { path?: string }).path), body: fix((o as { body?: string }).body) } as Parameters<typeof send>[1]);
    expect(r.status).toBe(status);
    expect(up.connections()).toBe(0);
    const res = await outcomes(b);
    expect(res.outcomes).toEqual([outcome]);
    expect(EGRESS_OUTCOME_CODES[outcome as keyof typeof EGRESS_OUTCOME_CODES]).toMatch(/^egress_/);
  });

  it('refuses CONNECT to any target and WebSocket upgrades', async () => {
    const up = await server();
    const b = await broker(up.port);
    const raw = (text: string): Promise<string> =>
      new Promise((resolve) => {
        const s = connect(b.socket);
        let got = '';
        s.on('data', (d) => (got += d.toString()));
        s.on('close', () => resolve(got));
        s.on('error', () => resolve(got));
        s.write(text);
      });
    expect(await raw(`CONNECT 127.0.0.1:${forbidden.port} HTTP/1.1\r\nHost: 127.0.0.1:${forbidden.port}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 405/);
    expect(await raw(`CONNECT localhost:${up.port} HTTP/1.1\r\nHost: localhost:${up.port}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 405/);
    expect(await raw(`GET /v1/messages HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nx-api-key: ${PHANTOM}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403/);
    expect(up.connections()).toBe(0);
    expect((await outcomes(b)).outcomes).toEqual(['refused_connect', 'refused_connect', 'refused_upgrade']);
  });

  it('a request the HTTP parser rejects on the socket (Content-Length with Transfer-Encoding) is refused_malformed (egress_request_malformed), nothing forwarded; control: the same request without Transfer-Encoding is forwarded', async () => {
    const up = await server();
    const b = await broker(up.port);
    const raw = (text: string): Promise<string> =>
      new Promise((resolve) => {
        const s = connect(b.socket);
        let got = '';
        s.on('data', (d) => (got += d.toString()));
        s.on('close', () => resolve(got));
        s.on('error', () => resolve(got));
        s.write(text);
      });
    const body = okBody();
    const head = `POST /v1/messages HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${PHANTOM}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n`;
    expect(await raw(`${head}transfer-encoding: chunked\r\n\r\n${body}`)).toMatch(/^HTTP\/1\.1 400/);
    expect(up.requests).toHaveLength(0);
    expect(await raw(`${head}\r\n${body}`)).toMatch(/^HTTP\/1\.1 200/);
    expect(up.requests).toHaveLength(1);
    expect((await outcomes(b)).outcomes).toEqual(['refused_malformed', 'forwarded']);
    expect(EGRESS_OUTCOME_CODES.refused_malformed).toBe('egress_request_malformed');
  });

  it('OpenAI-compatible: Authorization Bearer phantom is swapped for the real key; tools and web_search_options are refused', async () => {
    const up = await server();
    const b = await broker(up.port, { provider: 'openai', model: 'local-model', routes: [{ method: 'POST', path: '/v1/chat/completions' }] });
    const body = (extra: Record<string, unknown> = {}): string => JSON.stringify({ model: 'local-model', messages: [{ role: 'user', content: 'x' }], ...extra });
    const h = { authorization: `Bearer ${PHANTOM}`, 'x-api-key': 'attacker' };
    expect((await send(b, { path: '/v1/chat/completions', headers: h, body: body() })).status).toBe(200);
    expect(up.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(up.requests[0]!.headers['x-api-key']).toBeUndefined();
    expect((await send(b, { path: '/v1/chat/completions', headers: h, body: body({ tools: [{ type: 'mcp', server_url: 'http://x' }] }) })).status).toBe(400);
    expect((await send(b, { path: '/v1/chat/completions', headers: h, body: body({ web_search_options: {} }) })).status).toBe(400);
    expect((await send(b, { path: '/v1/chat/completions', headers: { authorization: 'Bearer wrong' }, body: body() })).status).toBe(401);
    expect(up.requests).toHaveLength(1);
    expect((await outcomes(b)).outcomes).toEqual(['forwarded', 'refused_body', 'refused_body', 'refused_phantom']);
  });
});

describe('caps', () => {
  it('request count: the request after the cap gets 429 and never leaves', async () => {
    const up = await server();
    const b = await broker(up.port, { caps: { requests: 2 } });
    expect((await send(b)).status).toBe(200);
    expect((await send(b)).status).toBe(200);
    expect((await send(b)).status).toBe(429);
    expect(up.requests).toHaveLength(2);
    expect((await outcomes(b)).outcomes).toEqual(['forwarded', 'forwarded', 'refused_request_cap']);
  });

  it('request size: 413 from Content-Length before the body is read; nothing leaves', async () => {
    const up = await server();
    const b = await broker(up.port, { caps: { request_bytes: 1024 } });
    expect((await send(b, { body: okBody({ system: 'x'.repeat(4096) }) })).status).toBe(413);
    expect(up.connections()).toBe(0);
    expect((await outcomes(b)).outcomes).toEqual(['refused_request_too_large']);
  });

  it('response size: a response over its cap is cut off and recorded as truncated', async () => {
    const up = await server(() => ({ text: 'y'.repeat(8192) }));
    const b = await broker(up.port, { caps: { response_bytes: 1024 } });
    await expect(send(b)).rejects.toThrow();
    const res = await outcomes(b);
    expect(res.outcomes).toEqual(['response_truncated']);
    expect(res.records[0]!.response.bytes).toBeLessThanOrEqual(1024);
  });

  it('total bytes downstream across requests', async () => {
    const up = await server(() => ({ text: 'y'.repeat(600) }));
    const b = await broker(up.port, { caps: { total_down: 1000 } });
    expect((await send(b)).status).toBe(200);
    await expect(send(b)).rejects.toThrow();
    expect((await outcomes(b)).outcomes).toEqual(['forwarded', 'response_truncated']);
  });

  it('per-request timeout: an upstream that never answers is cut at the timeout', async () => {
    const up = await server(() => ({ raw: () => undefined }));
    const b = await broker(up.port, { caps: { request_timeout_ms: 300 } });
    const r = await send(b).catch(() => ({ status: 0, body: '' }));
    expect([0, 504]).toContain(r.status);
    expect((await outcomes(b)).outcomes).toEqual(['request_timeout']);
  });

  it('concurrent connections: the connection over the cap is closed and recorded', async () => {
    const up = await server();
    const b = await broker(up.port, { caps: { connections: 1 } });
    const first = connect(b.socket);
    await new Promise((r) => first.once('connect', r));
    const second = connect(b.socket);
    const closed = await new Promise<boolean>((resolve) => {
      second.on('close', () => resolve(true));
      second.on('error', () => resolve(true));
    });
    expect(closed).toBe(true);
    first.destroy();
    expect(up.connections()).toBe(0);
    expect((await outcomes(b)).outcomes).toEqual(['refused_connections']);
  });

  it('deadline: at the deadline the listener closes and nothing connects after it', async () => {
    const up = await server();
    // The deadline leaves a loaded CI machine room to start the broker and forward one request.
    const b = await broker(up.port, { caps: { deadline_ms: 6000 } });
    expect((await send(b)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 6500));
    await expect(send(b)).rejects.toThrow(/ENOENT|ECONNREFUSED/);
    expect(up.requests).toHaveLength(1);
    const res = await outcomes(b);
    expect(res.crashed).toBe(false);
    expect(res.outcomes).toEqual(['forwarded']);
  });
});

describe('DNS, addresses and TLS: resolved and verified by the broker only', () => {
  it('TLS with the pinned CA: forwarded, the upstream certificate fingerprint recorded', async () => {
    const up = await server(undefined, pki.leaf);
    const b = await broker(up.port, { transport: 'tls', allow_loopback: true, ca_pem: pki.caPem });
    expect((await send(b)).status).toBe(200);
    expect(up.requests[0]!.headers['x-api-key']).toBe(KEY);
    const res = await outcomes(b);
    expect(res.outcomes).toEqual(['forwarded']);
    expect(res.records[0]!.upstream_cert_sha256).toBe(new X509Certificate(pki.leaf.cert).fingerprint256.replaceAll(':', '').toLowerCase());
  });

  it('TLS without the CA (system trust store only): the test certificate is refused, nothing is sent', async () => {
    const up = await server(undefined, pki.leaf);
    const b = await broker(up.port, { transport: 'tls', allow_loopback: true });
    expect((await send(b)).status).toBe(502);
    expect(up.requests).toHaveLength(0);
    expect((await outcomes(b)).outcomes).toEqual(['upstream_tls_failed']);
  });

  it('TLS whose certificate names another host (SNI/Host = policy host, certificate for other.test): refused, nothing is sent', async () => {
    const up = await server(undefined, pki.otherLeaf);
    const b = await broker(up.port, { transport: 'tls', allow_loopback: true, ca_pem: pki.caPem });
    expect((await send(b)).status).toBe(502);
    expect(up.requests).toHaveLength(0);
    expect((await outcomes(b)).outcomes).toEqual(['upstream_tls_failed']);
  });

  it('a policy host that resolves to a loopback address is refused for TLS without allow_loopback (positive control: with it, forwarded)', async () => {
    const up = await server(undefined, pki.leaf);
    const b = await broker(up.port, { transport: 'tls', allow_loopback: false, ca_pem: pki.caPem });
    expect((await send(b)).status).toBe(502);
    expect(up.connections()).toBe(0);
    expect((await outcomes(b)).outcomes).toEqual(['refused_address']);
  });

  it('a name that does not resolve is refused without any connection', async () => {
    const up = await server();
    const b = await broker(up.port, { host: 'gvd-model-nonexistent.invalid' });
    expect((await send(b)).status).toBe(502);
    expect(up.connections()).toBe(0);
    expect((await outcomes(b)).outcomes).toEqual(['refused_address']);
  });
});

describe('streaming and crashes', () => {
  it('SSE streams through unbuffered: the client has event 1 before the server sends event 2', async () => {
    let clientGotFirst: () => void = () => undefined;
    const gotFirst = new Promise<void>((r) => (clientGotFirst = r));
    const up = await server(() => ({
      raw: (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: message_start\ndata: {"n":1}\n\n');
        void gotFirst.then(() => {
          res.write('event: message_stop\ndata: {"n":2}\n\n');
          res.end();
        });
      },
    }));
    const b = await broker(up.port);
    const chunks: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const req = request({ socketPath: b.socket, method: 'POST', path: '/v1/messages', headers: { 'x-api-key': PHANTOM, accept: 'text/event-stream', 'content-type': 'application/json' } }, (res) => {
        expect(res.headers['content-type']).toBe('text/event-stream');
        res.on('data', (c: Buffer) => {
          chunks.push(c.toString());
          if (chunks.length === 1) clientGotFirst();
        });
        res.on('end', () => resolve());
        res.on('error', reject);
      });
      req.end(okBody({ stream: true }));
    });
    expect(chunks.join('')).toContain('"n":2');
    expect(chunks[0]).toContain('"n":1');
    expect(chunks[0]).not.toContain('"n":2');
    expect((await outcomes(b)).outcomes).toEqual(['forwarded']);
  });

  it('a broker killed mid-run: the reviewer gets a refused connection and the outcome is a crash', async () => {
    const up = await server();
    const b = await broker(up.port);
    expect((await send(b)).status).toBe(200);
    process.kill(b.pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 200));
    await expect(send(b)).rejects.toThrow(/ECONNREFUSED|ENOENT/);
    const res = await outcomes(b);
    expect(res.crashed).toBe(true);
  });
});
