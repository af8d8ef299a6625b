// bench/egress: the latency the egress broker adds per request (docs/egress.md "Measured"). One
// loopback HTTP server (its own process) answers a 1 KB Anthropic-shaped POST; the same request is
// sent (a) directly over loopback TCP and (b) through the broker's Unix socket (route, phantom and
// body checks, JSON re-serialisation, key injection, transcript record), each with a reused
// connection and with a new connection per request. Cases are interleaved request by request so
// the machine's load falls on both alike; p50 and p90 are reported for each, and the added latency
// is broker minus direct at the same percentile.
//
// The TLS-terminating path (docs/egress.md#tls-terminating-mode) is measured too: an HTTPS upstream
// (its own process, a CA made by runner/egress/run-ca.ts) reached (c) directly over TLS and (d) the
// way an HTTPS_PROXY client reaches it from the sandbox — TCP to the pinned relay
// (runner/egress/relay.mjs, run here outside a sandbox: its copying is what is measured), CONNECT,
// TLS ended by the broker with a run CA's leaf, the same checks, TLS re-originated to the upstream
// and verified against its CA. The floor, measured in the same run, is two direct TLS requests in
// series: the terminating path cannot do less than two TLS exchanges per request.
// BENCH_EGRESS_N requests per case (default 300; quick mode 10).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request, type ClientRequestArgs } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect as netConnect, createServer, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { startBroker, type StartedBroker } from '../runner/egress/host.js';
import { makeRunCa } from '../runner/egress/run-ca.js';
import { judgeBar, knob, QUICK } from './lib/quick.js';

/** terminate / floor at p50 (reused connection) must stay under this (full runs only). */
const TERMINATE_BAR = 2.5;

const N = knob('BENCH_EGRESS_N', 300, 10);
const WARM = knob('BENCH_EGRESS_WARM', 20, 2);
const PHANTOM = 'sk-ant-api03-gvdbenchphantom';
const MODEL = 'bench-model';
const BODY = JSON.stringify({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'x'.repeat(900) }] });

const SERVER = `
const http = require('http');
const answer = JSON.stringify({ id: 'm', type: 'message', role: 'assistant', content: [{ type: 'text', text: '{"verdict":"CLEAN","findings":[]}' }] });
const s = http.createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(answer); }); });
s.keepAliveTimeout = 60000;
s.listen(0, '127.0.0.1', () => process.stdout.write(String(s.address().port) + '\\n'));
`;

const TLS_SERVER = `
const https = require('https');
const answer = JSON.stringify({ id: 'm', type: 'message', role: 'assistant', content: [{ type: 'text', text: '{"verdict":"CLEAN","findings":[]}' }] });
const s = https.createServer({ cert: process.env.CERT, key: process.env.KEY }, (req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(answer); }); });
s.keepAliveTimeout = 60000;
s.listen(0, '127.0.0.1', () => process.stdout.write(String(s.address().port) + '\\n'));
`;

function firstLine(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => child.stdout?.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

/** One HTTPS POST; `via` opens the connection (a CONNECT tunnel through the relay) or null (direct). */
function postTls(opts: { port: number; ca: string; agent: HttpsAgent | Agent | false; key: string; tunnel?: boolean }): Promise<number> {
  const t0 = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const base: ClientRequestArgs & { ca?: string; servername?: string } = {
      host: '127.0.0.1',
      port: opts.port,
      method: 'POST',
      path: '/v1/messages',
      agent: opts.agent,
      headers: { host: `localhost:${opts.port}`, 'content-type': 'application/json', 'x-api-key': opts.key, 'anthropic-version': '2023-06-01', 'content-length': String(Buffer.byteLength(BODY)) },
    };
    const req = (opts.tunnel === true ? request : httpsRequest)({ ...base, ...(opts.tunnel === true ? {} : { ca: opts.ca, servername: 'localhost' }) }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(Number(process.hrtime.bigint() - t0) / 1e6) : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(BODY);
  });
}

/** An agent whose connections are CONNECT tunnels through the relay to localhost:<upstream>, with TLS
 * inside verified against the run CA — what an HTTPS_PROXY client does. */
function tunnelAgent(relayPort: number, upstreamPort: number, runCaPem: string, keepAlive: boolean): Agent {
  const agent = new Agent({ keepAlive, maxSockets: 1 });
  (agent as unknown as { createConnection: (o: unknown, cb: (err: Error | null, s?: Socket) => void) => undefined }).createConnection = (_o, cb) => {
    const target = `localhost:${upstreamPort}`;
    const c = request({ host: '127.0.0.1', port: relayPort, method: 'CONNECT', path: target, headers: { host: target } });
    c.on('error', (e) => cb(e));
    c.on('connect', (res, sock) => {
      if (res.statusCode !== 200) return cb(new Error(`CONNECT ${res.statusCode}`));
      const t = tlsConnect({ socket: sock, servername: 'localhost', ca: runCaPem, ALPNProtocols: ['http/1.1'] }, () => cb(null, t));
      t.once('error', (e) => cb(e));
    });
    c.end();
    return undefined;
  };
  return agent;
}

function post(opts: { socketPath?: string; port?: number; agent: Agent | false; key: string }): Promise<number> {
  const t0 = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        ...(opts.socketPath !== undefined ? { socketPath: opts.socketPath } : { host: '127.0.0.1', port: opts.port }),
        method: 'POST',
        path: '/v1/messages',
        agent: opts.agent,
        headers: { 'content-type': 'application/json', 'x-api-key': opts.key, 'anthropic-version': '2023-06-01', 'content-length': Buffer.byteLength(BODY) },
      },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve(Number(process.hrtime.bigint() - t0) / 1e6) : reject(new Error(`status ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(BODY);
  });
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
};

async function tlsPath(): Promise<void> {
  const upstreamCa = makeRunCa('localhost');
  const runCa = makeRunCa('localhost');
  const server = spawn(process.execPath, ['-e', TLS_SERVER], { stdio: ['ignore', 'pipe', 'inherit'], env: { CERT: upstreamCa.leafPem, KEY: upstreamCa.leafKeyPem } });
  const port = await firstLine(server);
  let broker: StartedBroker | null = null;
  let relay: ChildProcess | null = null;
  try {
    broker = await startBroker(readFileSync('runner/egress/broker.mjs'), {
      provider: 'anthropic',
      model: MODEL,
      host: 'localhost',
      port,
      transport: 'tls',
      allow_loopback: true,
      ca_pem: upstreamCa.caPem,
      terminate: { cert_pem: runCa.leafPem, key_pem: runCa.leafKeyPem },
      routes: [{ method: 'POST', path: '/v1/messages' }],
      key: 'sk-ant-bench-real-key',
      phantom: PHANTOM,
      socket_uid: null,
      caps: { requests: 1_000_000, request_bytes: 1 << 20, response_bytes: 1 << 20, total_up: 1 << 30, total_down: 1 << 30, request_timeout_ms: 10_000, connections: 8, deadline_ms: 3_600_000 },
    });
    // The pinned relay, on a free loopback port of this machine, in front of a process that waits.
    const relayPort = await freePort();
    relay = spawn(process.execPath, ['runner/egress/relay.mjs', String(relayPort), broker.socket, '/usr/bin/sleep', '3600'], { stdio: 'ignore', env: {} });
    for (let i = 0; i < 100; i++) {
      // A bare TCP connection (no request, so nothing is recorded) tells when the relay listens.
      const up = await new Promise<boolean>((resolve) => {
        const c = netConnect({ host: '127.0.0.1', port: relayPort });
        c.once('connect', () => {
          c.destroy();
          resolve(true);
        });
        c.once('error', () => resolve(false));
      });
      if (up) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const directAgent = new HttpsAgent({ keepAlive: true, maxSockets: 1 });
    const tunnelReused = tunnelAgent(relayPort, port, runCa.caPem, true);
    const KEY = 'sk-ant-bench-real-key';
    const cases = {
      'direct TLS, reused connection': () => postTls({ port, ca: upstreamCa.caPem, agent: directAgent, key: KEY }),
      'floor (2 direct TLS), reused': async () => (await postTls({ port, ca: upstreamCa.caPem, agent: directAgent, key: KEY })) + (await postTls({ port, ca: upstreamCa.caPem, agent: directAgent, key: KEY })),
      'relay+terminate, reused tunnel': () => postTls({ port, ca: runCa.caPem, agent: tunnelReused, key: PHANTOM, tunnel: true }),
      'direct TLS, new connection': () => postTls({ port, ca: upstreamCa.caPem, agent: false, key: KEY }),
      'floor (2 direct TLS), new': async () => (await postTls({ port, ca: upstreamCa.caPem, agent: false, key: KEY })) + (await postTls({ port, ca: upstreamCa.caPem, agent: false, key: KEY })),
      'relay+terminate, new tunnel': () => postTls({ port, ca: runCa.caPem, agent: tunnelAgent(relayPort, port, runCa.caPem, false), key: PHANTOM, tunnel: true }),
    } as const;
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
    for (let i = 0; i < WARM + N; i++) {
      for (const [name, run] of Object.entries(cases)) {
        const ms = await run();
        if (i >= WARM) times[name]!.push(ms);
      }
    }
    directAgent.destroy();
    tunnelReused.destroy();
    console.log(`\nTLS-terminating path: requests per case: ${N} (after ${WARM} warm-up), interleaved; HTTPS upstream on loopback; relay → broker (CONNECT, run CA) → TLS`);
    for (const [name, xs] of Object.entries(times)) console.log(`${name.padEnd(32)} p50 ${pct(xs, 50).toFixed(3)} ms   p90 ${pct(xs, 90).toFixed(3)} ms`);
    for (const [mode, d, f, t] of [
      ['reused connection', 'direct TLS, reused connection', 'floor (2 direct TLS), reused', 'relay+terminate, reused tunnel'],
      ['new connection', 'direct TLS, new connection', 'floor (2 direct TLS), new', 'relay+terminate, new tunnel'],
    ] as const) {
      const dt = times[d]!;
      const ft = times[f]!;
      const tt = times[t]!;
      console.log(
        `added by relay+terminate (${mode}): p50 +${(pct(tt, 50) - pct(dt, 50)).toFixed(3)} ms, p90 +${(pct(tt, 90) - pct(dt, 90)).toFixed(3)} ms; ratio terminate/direct TLS p50 ${(pct(tt, 50) / pct(dt, 50)).toFixed(2)}; ratio terminate/floor p50 ${(pct(tt, 50) / pct(ft, 50)).toFixed(2)}`,
      );
    }
    const bar = pct(times['relay+terminate, reused tunnel']!, 50) / pct(times['floor (2 direct TLS), reused']!, 50);
    console.log(`terminate/floor p50 (reused) ${bar.toFixed(2)} (bar ≤ ${TERMINATE_BAR}${QUICK ? ', quick mode: not judged' : ''})`);
    judgeBar(bar <= TERMINATE_BAR);
  } finally {
    relay?.kill();
    const out = await broker?.stop();
    server.kill();
    if (out?.crashed === true || (out !== undefined && out.records.some((r) => r.outcome !== 'forwarded'))) process.exitCode = 1;
  }
}

async function main(): Promise<void> {
  const server = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => server.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
  const broker = await startBroker(readFileSync('runner/egress/broker.mjs'), {
    provider: 'anthropic',
    model: MODEL,
    host: 'localhost',
    port,
    transport: 'plain-loopback',
    allow_loopback: false,
    ca_pem: null,
    routes: [{ method: 'POST', path: '/v1/messages' }],
    key: 'sk-ant-bench-real-key',
    phantom: PHANTOM,
    socket_uid: null,
    // The transcript bound (64 requests) is for receipts; the bench raises only the count in its own broker config.
    caps: { requests: 1_000_000, request_bytes: 1 << 20, response_bytes: 1 << 20, total_up: 1 << 30, total_down: 1 << 30, request_timeout_ms: 10_000, connections: 8, deadline_ms: 3_600_000 },
  });
  try {
    const directAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    const brokerAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    const cases = {
      'direct, reused connection': () => post({ port, agent: directAgent, key: 'sk-ant-bench-real-key' }),
      'broker, reused connection': () => post({ socketPath: broker.socket, agent: brokerAgent, key: PHANTOM }),
      'direct, new connection': () => post({ port, agent: false, key: 'sk-ant-bench-real-key' }),
      'broker, new connection': () => post({ socketPath: broker.socket, agent: false, key: PHANTOM }),
    } as const;
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
    for (let i = 0; i < WARM + N; i++) {
      for (const [name, run] of Object.entries(cases)) {
        const ms = await run();
        if (i >= WARM) times[name]!.push(ms);
      }
    }
    directAgent.destroy();
    brokerAgent.destroy();
    console.log(`requests per case: ${N} (after ${WARM} warm-up), interleaved; 1 KB body, loopback upstream`);
    for (const [name, xs] of Object.entries(times)) console.log(`${name.padEnd(28)} p50 ${pct(xs, 50).toFixed(3)} ms   p90 ${pct(xs, 90).toFixed(3)} ms`);
    for (const mode of ['reused connection', 'new connection']) {
      const d = times[`direct, ${mode}`]!;
      const b = times[`broker, ${mode}`]!;
      console.log(
        `added by the broker (${mode}): p50 +${(pct(b, 50) - pct(d, 50)).toFixed(3)} ms, p90 +${(pct(b, 90) - pct(d, 90)).toFixed(3)} ms; ratio broker/direct p50 ${(pct(b, 50) / pct(d, 50)).toFixed(2)}`,
      );
    }
  } finally {
    const out = await broker.stop();
    server.kill();
    if (out.crashed) process.exitCode = 1;
  }
}

await main();
await tlsPath();
