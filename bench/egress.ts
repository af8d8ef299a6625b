// bench/egress: the latency the egress broker adds per request (docs/egress.md "Measured"). One
// loopback HTTP server (its own process) answers a 1 KB Anthropic-shaped POST; the same request is
// sent (a) directly over loopback TCP and (b) through the broker's Unix socket (route, phantom and
// body checks, JSON re-serialisation, key injection, transcript record), each with a reused
// connection and with a new connection per request. Cases are interleaved request by request so
// the machine's load falls on both alike; p50 and p90 are reported for each, and the added latency
// is broker minus direct at the same percentile. No in-sandbox relay is measured (none is built:
// the model reviewer speaks HTTP to the socket itself). BENCH_EGRESS_N requests per case (default 300; quick mode 10).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { startBroker } from '../runner/egress/host.js';
import { knob } from './lib/quick.js';

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
