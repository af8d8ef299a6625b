// The egress broker (docs/egress.md): a separate process the runner starts per run. It listens on a
// Unix socket that is bound into the reviewer's sandbox, and forwards only allowed requests to the
// ONE endpoint of the reviewer's policy entry, with the run's phantom token replaced by the real key.
// It parses untrusted HTTP from the sandbox, so it runs apart from the signing keys; it holds only
// the API key, which it receives on stdin (never argv, never its environment).
//
// Protocol with the runner (runner/egress/host.ts):
//   stdin  line 1: the configuration (JSON, BrokerConfig); then EOF = stop.
//   stdout one JSON object per line: {"ready":true} once listening, then {"record":{…}} per request
//          or refusal (digests, sizes, closed codes — never a body, the key or the phantom), and
//          {"done":true} when it stopped cleanly. The runner chains the records itself.
//   stderr nothing.
// Built by scripts/build.mjs into runner/egress/broker.mjs, one self-contained file (docs/egress.md
// "Pinning"): its sha256 is on the policy's egress.broker_sha256 allowlist and in every receipt.
import { createHash, timingSafeEqual, type Hash } from 'node:crypto';
import { lookup } from 'node:dns';
import { chmodSync, chownSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from 'node:https';
import { Agent as HttpAgent } from 'node:http';
import type { Socket } from 'node:net';
import { TLSSocket, createSecureContext, type SecureContext } from 'node:tls';
import {
  addressAllowed,
  bodyViolation,
  connectTargetAllowed,
  CREDENTIAL_HEADERS,
  matchRoute,
  recordMethod,
  tunnelHostAllowed,
  upstreamHeaders,
  type EgressOutcome,
  type EgressProvider,
  type EgressRecord,
  type EgressRoute,
} from '../../../src/core/egress-rules.js';

export interface BrokerConfig {
  readonly socket: string;
  /** chown the socket to this uid/gid (the sandbox uid when the runner is root), or null. */
  readonly socket_uid: number | null;
  readonly provider: EgressProvider;
  readonly model: string;
  readonly host: string;
  readonly port: number;
  readonly transport: 'tls' | 'plain-loopback';
  readonly allow_loopback: boolean;
  readonly ca_pem: string | null;
  /** TLS-terminating mode (docs/egress.md#tls-terminating-mode): the run CA's leaf for the policy
   * host and its key; CONNECT to exactly host:port is then ended here. null: every CONNECT refused. */
  readonly terminate: { readonly cert_pem: string; readonly key_pem: string } | null;
  readonly routes: readonly EgressRoute[];
  readonly key: string;
  readonly phantom: string;
  readonly caps: {
    readonly requests: number;
    readonly request_bytes: number;
    readonly response_bytes: number;
    readonly total_up: number;
    readonly total_down: number;
    readonly request_timeout_ms: number;
    readonly connections: number;
    readonly deadline_ms: number;
  };
}

type RawRecord = Omit<EgressRecord, 'seq' | 'prev'>;

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const t0 = Date.now();

function emit(obj: unknown): void {
  process.stdout.write(`${JSON.stringify(obj)}\n`);
}

function readConfig(): Promise<BrokerConfig> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (d: Buffer): void => {
      buf += d.toString('utf8');
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      process.stdin.off('data', onData);
      try {
        resolve(JSON.parse(buf.slice(0, nl)) as BrokerConfig);
      } catch (e) {
        reject(e);
      }
    };
    process.stdin.on('data', onData);
    process.stdin.once('end', () => reject(new Error('no config')));
  });
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** One run's broker: its configuration, the counters its caps are checked against, its open sockets
 * and its upstream agent. */
interface Broker {
  readonly cfg: BrokerConfig;
  requests: number;
  totalUp: number;
  totalDown: number;
  open: number;
  stopping: boolean;
  readonly sockets: Set<Socket>;
  /** The TLS sockets of terminated CONNECT tunnels (their requests meet the stricter Host rule). */
  readonly tunnels: WeakSet<object>;
  /** Connections the HTTP parser refused once already (see onClientError). */
  readonly refusedSockets: WeakSet<object>;
  readonly tunnelContext: SecureContext | null;
  readonly agent: HttpsAgent | HttpAgent;
}

// The broker's state for one run (docs/egress.md#the-broker-process).
function openBroker(cfg: BrokerConfig): Broker {
  const tunnelContext = cfg.terminate === null ? null : createSecureContext({ cert: cfg.terminate.cert_pem, key: cfg.terminate.key_pem, minVersion: 'TLSv1.2' });
  const agent = cfg.transport === 'tls' ? new HttpsAgent({ keepAlive: true, maxSockets: cfg.caps.connections, ...(cfg.ca_pem === null ? {} : { ca: cfg.ca_pem }) }) : new HttpAgent({ keepAlive: true, maxSockets: cfg.caps.connections });
  return {
    cfg,
    requests: 0,
    totalUp: 0,
    totalDown: 0,
    open: 0,
    stopping: false,
    sockets: new Set<Socket>(),
    tunnels: new WeakSet<object>(),
    refusedSockets: new WeakSet<object>(),
    tunnelContext,
    agent,
  };
}

// One record per request or refusal on stdout; the runner chains them (docs/egress.md#transcript-in-the-signed-receipt).
function record(r: Partial<RawRecord> & { outcome: EgressOutcome; method: RawRecord['method'] }): void {
  emit({
    record: {
      at_ms: Date.now() - t0,
      outcome: r.outcome,
      method: r.method,
      route: r.route ?? null,
      request: r.request ?? { sha256: null, bytes: 0 },
      response: r.response ?? { status: null, sha256: null, bytes: 0 },
      upstream_cert_sha256: r.upstream_cert_sha256 ?? null,
      ...(r.tunnel === true ? { tunnel: true as const } : {}),
    } satisfies RawRecord,
  });
}

/** The record's tunnel mark for a request that arrived on `sock`. */
function tunnelMark(b: Broker, sock: object): { tunnel: true } | Record<string, never> {
  return b.tunnels.has(sock) ? { tunnel: true as const } : {};
}

/** Refuse a request with its status and recorded outcome; null, for the checks that return it. */
function refuse(b: Broker, res: ServerResponse, status: number, outcome: EgressOutcome, method: RawRecord['method'], route: number | null = null): null {
  record({ outcome, method, route, ...tunnelMark(b, res.req.socket as object) });
  res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
  res.end(`{"error":"${outcome}"}`);
  return null;
}

function hostOk(cfg: BrokerConfig, h: string | undefined): boolean {
  if (h === undefined) return true;
  const name = h.toLowerCase();
  return (
    /^(localhost|127\.0\.0\.1)(:\d{1,5})?$/.test(name) || name === cfg.host || name === `${cfg.host}:${cfg.port}` || name === 'egress'
  );
}

// The broker resolves the policy host itself and dials a vetted address (docs/egress.md#what-each-request-must-be-in-this-order).
function resolveAddress(cfg: BrokerConfig): Promise<string | null> {
  return new Promise((resolve) => {
    lookup(cfg.host, { all: true }, (err, addrs) => {
      if (err !== null || addrs === undefined) return resolve(null);
      const ok = addrs.find((a) => addressAllowed(a.address, cfg.transport, cfg.allow_loopback));
      resolve(ok === undefined ? null : ok.address);
    });
  });
}

// One request, checked in the documented order (docs/egress.md#what-each-request-must-be-in-this-order).
async function handle(b: Broker, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = recordMethod(req.method);
  const route = admitRequest(b, req, res, method);
  if (route === null) return;
  const body = await readCheckedBody(b, req, res, method, route);
  if (body === null) return;
  const reqDigest = { sha256: sha256(body), bytes: body.length };
  const address = await resolveAddress(b.cfg);
  if (address === null) {
    record({ outcome: 'refused_address', method, route, request: reqDigest, ...tunnelMark(b, req.socket) });
    res.writeHead(502, { connection: 'close' });
    res.end();
    return;
  }
  await forward(b, req, res, method, route, body, reqDigest, address);
}

// The checks before the body: deadline, request count, target, Host, route, phantom token
// (docs/egress.md#what-each-request-must-be-in-this-order). The route's index, or null when refused.
function admitRequest(b: Broker, req: IncomingMessage, res: ServerResponse, method: RawRecord['method']): number | null {
  const cfg = b.cfg;
  if (b.stopping || Date.now() - t0 > cfg.caps.deadline_ms) return refuse(b, res, 503, 'refused_deadline', method);
  if (b.requests >= cfg.caps.requests) return refuse(b, res, 429, 'refused_request_cap', method);
  b.requests++;
  const url = req.url ?? '';
  if (!url.startsWith('/')) return refuse(b, res, 403, 'refused_target', method);
  // Inside a terminated tunnel the Host must be exactly the policy host (the CONNECT target).
  const hostPassed = b.tunnels.has(req.socket) ? tunnelHostAllowed(req.headers.host, cfg.host, cfg.port) : hostOk(cfg, req.headers.host);
  if (!hostPassed) return refuse(b, res, 421, 'refused_host', method);
  const route = matchRoute(cfg.routes, req.method, url);
  if (route < 0) return refuse(b, res, 404, 'refused_route', method);
  const cred = CREDENTIAL_HEADERS[cfg.provider];
  const presented = req.headers[cred.name];
  const phantom = typeof presented === 'string' ? cred.phantomOf(presented) : null;
  if (phantom === null || !sameSecret(phantom, cfg.phantom)) return refuse(b, res, 401, 'refused_phantom', method, route);
  return route;
}

// The body checks: size, JSON and the provider allowlist, total bytes up
// (docs/egress.md#what-each-request-must-be-in-this-order). The bytes to send, or null when refused.
async function readCheckedBody(b: Broker, req: IncomingMessage, res: ServerResponse, method: RawRecord['method'], route: number): Promise<Buffer | null> {
  const cfg = b.cfg;
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > cfg.caps.request_bytes) return refuse(b, res, 413, 'refused_request_too_large', method, route);
  // Buffer the body up to the cap: it is inspected and hashed before anything leaves.
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > cfg.caps.request_bytes) {
      tooLarge = true;
      break;
    }
    chunks.push(c);
  }
  if (tooLarge) return refuse(b, res, 413, 'refused_request_too_large', method, route);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return refuse(b, res, 400, 'refused_body', method, route);
  }
  if (bodyViolation(cfg.provider, cfg.model, parsed) !== null) return refuse(b, res, 400, 'refused_body', method, route);
  // What goes upstream is the re-serialised value that was checked, never the raw bytes: a
  // duplicate key or another parser's reading cannot smuggle a field past the allowlist.
  const body = Buffer.from(JSON.stringify(parsed), 'utf8');
  if (b.totalUp + body.length > cfg.caps.total_up) return refuse(b, res, 413, 'refused_request_cap', method, route);
  b.totalUp += body.length;
  return body;
}

/** One forwarded request's progress: what its record will say. `end` records it once. */
interface Exchange {
  finished: boolean;
  certSha: string | null;
  status: number | null;
  bytes: number;
  readonly hash: Hash;
  readonly end: (outcome: EgressOutcome) => void;
}

function openExchange(b: Broker, req: IncomingMessage, method: RawRecord['method'], route: number, reqDigest: RawRecord['request'], done: () => void): Exchange {
  const x: Exchange = {
    finished: false,
    certSha: null,
    status: null,
    bytes: 0,
    hash: createHash('sha256'),
    end: (outcome: EgressOutcome): void => {
      if (x.finished) return;
      x.finished = true;
      record({ outcome, method, route, request: reqDigest, response: { status: x.status, sha256: outcome === 'forwarded' ? x.hash.digest('hex') : null, bytes: x.bytes }, upstream_cert_sha256: x.certSha, ...tunnelMark(b, req.socket) });
      done();
    },
  };
  return x;
}

// The request to the ONE endpoint, the real key injected (docs/egress.md#what-each-request-must-be-in-this-order).
function upstreamOptions(b: Broker, req: IncomingMessage, route: number, body: Buffer, address: string): RequestOptions {
  const cfg = b.cfg;
  const hostHeader = cfg.port === (cfg.transport === 'tls' ? 443 : 80) ? cfg.host : `${cfg.host}:${cfg.port}`;
  const headers = upstreamHeaders(cfg.provider, req.headers, cfg.key, hostHeader, body.length);
  return {
    host: address,
    port: cfg.port,
    method: 'POST',
    path: cfg.routes[route]?.path as string,
    headers,
    agent: b.agent,
    timeout: cfg.caps.request_timeout_ms,
    ...(cfg.transport === 'tls' ? { servername: cfg.host } : {}),
  };
}

// Forward one checked request; TLS verified, timeout and failures recorded (docs/egress.md#what-each-request-must-be-in-this-order).
function forward(b: Broker, req: IncomingMessage, res: ServerResponse, method: RawRecord['method'], route: number, body: Buffer, reqDigest: RawRecord['request'], address: string): Promise<void> {
  return new Promise((done) => {
    const cfg = b.cfg;
    const options = upstreamOptions(b, req, route, body, address);
    const x = openExchange(b, req, method, route, reqDigest, done);
    const up = (cfg.transport === 'tls' ? httpsRequest : httpRequest)(options, (ures) => relayResponse(b, x, ures, res));
    up.on('timeout', () => {
      up.destroy();
      if (!res.headersSent) res.writeHead(504, { connection: 'close' });
      res.destroy();
      x.end('request_timeout');
    });
    up.on('error', (e: NodeJS.ErrnoException) => {
      if (x.finished) return;
      // OpenSSL's verification codes (UNABLE_TO_VERIFY_LEAF_SIGNATURE, ERR_TLS_CERT_ALTNAME_INVALID, …).
      const tls = cfg.transport === 'tls' && typeof e.code === 'string' && /CERT|UNABLE_TO|TLS|SSL|SELF_SIGNED|LEAF|ISSUER/.test(e.code);
      if (!res.headersSent) {
        res.writeHead(502, { connection: 'close' });
        res.end();
      } else res.destroy();
      x.end(tls ? 'upstream_tls_failed' : 'upstream_failed');
    });
    req.on('close', () => {
      if (!x.finished && res.writableEnded === false && req.destroyed) up.destroy();
    });
    up.end(body);
  });
}

// The answer back to the sandbox, hashed and capped (docs/egress.md#what-each-request-must-be-in-this-order).
function relayResponse(b: Broker, x: Exchange, ures: IncomingMessage, res: ServerResponse): void {
  const cfg = b.cfg;
  x.status = ures.statusCode !== undefined && ures.statusCode >= 100 && ures.statusCode <= 599 ? ures.statusCode : null;
  if (cfg.transport === 'tls') {
    const raw = (ures.socket as TLSSocket).getPeerCertificate?.()?.raw;
    x.certSha = raw === undefined ? null : sha256(raw);
  }
  const out: Record<string, string> = {};
  const ct = ures.headers['content-type'];
  if (typeof ct === 'string') out['content-type'] = ct;
  res.writeHead(x.status ?? 502, out);
  ures.on('data', (c: Buffer) => {
    if (x.finished) return;
    x.bytes += c.length;
    b.totalDown += c.length;
    if (x.bytes > cfg.caps.response_bytes || b.totalDown > cfg.caps.total_down) {
      // Truncate, record, and let the run fail (docs/egress.md#what-each-request-must-be-in-this-order).
      x.bytes -= c.length;
      b.totalDown -= c.length;
      ures.destroy();
      res.destroy();
      x.end('response_truncated');
      return;
    }
    x.hash.update(c);
    res.write(c);
  });
  ures.on('end', () => {
    if (x.finished) return;
    res.end();
    x.end('forwarded');
  });
  ures.on('aborted', () => {
    res.destroy();
    x.end('response_truncated');
  });
  ures.on('error', () => {
    res.destroy();
    x.end('response_truncated');
  });
}

// The listener on the sandbox's socket and its refusals (docs/egress.md#what-each-request-must-be-in-this-order).
function brokerServer(b: Broker): Server {
  const server = createServer({ maxHeaderSize: 16 * 1024, requestTimeout: b.cfg.caps.request_timeout_ms, headersTimeout: Math.min(10_000, b.cfg.caps.request_timeout_ms) }, (req, res) => {
    handle(b, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { connection: 'close' });
      res.end();
    });
  });
  server.on('connection', (sock: Socket) => countConnection(b, sock));
  server.on('connect', (req: IncomingMessage, sock: Socket, head: Buffer) => onConnect(b, server, req, sock, head));
  server.on('clientError', (err: NodeJS.ErrnoException, sock: Socket) => onClientError(b, err, sock));
  server.on('upgrade', (req: IncomingMessage, sock: Socket) => {
    record({ outcome: 'refused_upgrade', method: recordMethod(req.method) });
    sock.end('HTTP/1.1 403 Forbidden\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
  });
  return server;
}

// More than `connections` open at once: closed, recorded (docs/egress.md#what-each-request-must-be-in-this-order).
function countConnection(b: Broker, sock: Socket): void {
  // A terminated tunnel's TLS socket is handed to the HTTP parser here too; its TCP connection
  // was counted already.
  if (b.tunnels.has(sock)) return;
  b.open++;
  b.sockets.add(sock);
  sock.on('close', () => {
    b.open--;
    b.sockets.delete(sock);
  });
  if (b.open > b.cfg.caps.connections) {
    record({ outcome: 'refused_connections', method: 'OTHER' });
    sock.destroy();
  }
}

// CONNECT (docs/egress.md#tls-terminating-mode): without terminate mode never served (a tunnel to
// anywhere). With it, only to exactly the policy host:port, and the tunnel is not a tunnel: the
// broker ends the client's TLS with the run CA's leaf, requires SNI = the policy host, and parses the
// HTTP inside with this same server, so every request in it meets every rule above and is
// re-originated to the one endpoint (TLS verified against the system store or the pinned CA). Bytes
// are never passed through.
function onConnect(b: Broker, server: Server, req: IncomingMessage, sock: Socket, head: Buffer): void {
  if (b.tunnelContext === null || b.stopping || !connectTargetAllowed(req.url, b.cfg.host, b.cfg.port)) {
    record({ outcome: 'refused_connect', method: 'CONNECT' });
    sock.end('HTTP/1.1 405 Method Not Allowed\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    return;
  }
  if (head.length > 0) sock.unshift(head);
  sock.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  terminateTunnel(b, server, sock, b.tunnelContext);
}

// The client's TLS ended here with the run CA's leaf, SNI and ALPN checked (docs/egress.md#tls-terminating-mode, docs/egress.md#http2).
function terminateTunnel(b: Broker, server: Server, sock: Socket, tunnelContext: SecureContext): void {
  // ALPN: only http/1.1 is spoken. A client that offers http/1.1 (with or without h2) gets it; one
  // that offers h2 and not http/1.1 is refused (recorded) and the handshake fails with the
  // no_application_protocol alert. A client that sends no ALPN speaks HTTP/1.1 or is refused below.
  const tls = new TLSSocket(sock, {
    isServer: true,
    secureContext: tunnelContext,
    requestCert: false,
    ALPNCallback: ({ protocols }: { servername: string; protocols: string[] }): string | undefined => {
      if (protocols.includes('http/1.1')) return 'http/1.1';
      if (protocols.includes('h2')) record({ outcome: 'refused_http2', method: 'CONNECT', tunnel: true });
      return undefined;
    },
  });
  b.tunnels.add(tls);
  // A handshake that fails (a client that does not trust the run CA, bytes that are not TLS) or
  // does not finish in time closes the tunnel; nothing was read from it, nothing left the broker.
  const handshake = setTimeout(() => {
    tls.destroy();
    sock.destroy();
  }, Math.min(10_000, b.cfg.caps.request_timeout_ms));
  handshake.unref();
  tls.on('error', () => {
    clearTimeout(handshake);
    tls.destroy();
    sock.destroy();
  });
  tls.once('secure', () => {
    clearTimeout(handshake);
    const sni = (tls as TLSSocket & { servername?: string | false }).servername;
    if (sni !== b.cfg.host) {
      record({ outcome: 'refused_sni', method: 'CONNECT' });
      tls.destroy();
      sock.destroy();
      return;
    }
    server.emit('connection', tls);
  });
}

// A request the HTTP parser rejects (both Content-Length and Transfer-Encoding, a bad request
// line or header, an oversized head) is a refusal, recorded: the connection is closed with 400.
// The HTTP/2 connection preface ("PRI * HTTP/2.0", prior knowledge) stops the parser with
// HPE_PAUSED_H2_UPGRADE: refused as HTTP/2 (the broker speaks only HTTP/1.1), not as malformed
// (docs/egress.md#http2). One refusal per connection: bytes that keep arriving on a refused
// connection (an HTTP/2 client's frames after its preface) are not new requests.
function onClientError(b: Broker, err: NodeJS.ErrnoException, sock: Socket): void {
  if (b.refusedSockets.has(sock)) {
    sock.destroy();
    return;
  }
  b.refusedSockets.add(sock);
  const tunnel = tunnelMark(b, sock);
  if (err.code === 'HPE_PAUSED_H2_UPGRADE') {
    record({ outcome: 'refused_http2', method: 'OTHER', ...tunnel });
    if (sock.writable) sock.end('HTTP/1.1 505 HTTP Version Not Supported\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else sock.destroy();
    return;
  }
  if (typeof err.code === 'string' && err.code.startsWith('HPE_')) record({ outcome: 'refused_malformed', method: 'OTHER', ...tunnel });
  if (sock.writable) sock.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
  else sock.destroy();
}

// Stop when the runner closes stdin or at the deadline: the listener closes, `done` is reported, the
// broker exits (docs/egress.md#the-broker-process).
function stopOnEofOrDeadline(b: Broker, server: Server): void {
  const stop = (): void => {
    if (b.stopping) return;
    b.stopping = true;
    server.close();
    for (const s of b.sockets) s.destroy();
    b.agent.destroy();
    emit({ done: true });
    process.exitCode = 0;
    setImmediate(() => process.exit(0));
  };
  // At the deadline the listener closes: nothing connects after it.
  const deadline = setTimeout(stop, b.cfg.caps.deadline_ms);
  deadline.unref();
  process.stdin.on('end', stop);
  process.stdin.on('close', stop);
  process.stdin.resume();
}

// Listen on the socket (0600, owned by the sandbox uid when root), then report ready (docs/egress.md#the-broker-process).
function listen(cfg: BrokerConfig, server: Server): void {
  server.listen(cfg.socket, () => {
    chmodSync(cfg.socket, 0o600);
    if (cfg.socket_uid !== null) chownSync(cfg.socket, cfg.socket_uid, cfg.socket_uid);
    emit({ ready: true });
  });
}

async function main(): Promise<void> {
  const cfg = await readConfig();
  const b = openBroker(cfg);
  const server = brokerServer(b);
  stopOnEofOrDeadline(b, server);
  listen(cfg, server);
}

main().catch(() => {
  // Never linger (stdin is still being read): a broker that cannot run exits at once.
  process.exit(70);
});
