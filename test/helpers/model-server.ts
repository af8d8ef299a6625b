// A local model server for the egress tests (loopback only): it speaks the Anthropic Messages
// (`POST /v1/messages`) and OpenAI Chat Completions (`POST /v1/chat/completions`) shapes, over plain
// HTTP or TLS with a test CA made by openssl in the test, answers from a script, records every
// request (method, path, headers, body) and counts every connection. `startForbidden` is the second
// server of every test: it must see ZERO connections.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { makeTempDir } from './temp.js';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** What the server answers: a text (wrapped in the provider's shape), or a raw handler. */
export type Script = (req: RecordedRequest, n: number) => { text: string } | { raw: (res: ServerResponse) => void };

export interface ModelServer {
  readonly port: number;
  readonly requests: RecordedRequest[];
  connections(): number;
  close(): Promise<void>;
}

export interface TestPki {
  readonly dir: string;
  readonly caPem: string;
  readonly caFile: string;
  /** Leaf for DNS:localhost (and IP 127.0.0.1). */
  readonly leaf: { readonly cert: string; readonly key: string };
  /** Leaf for another name (other.test) signed by the same CA. */
  readonly otherLeaf: { readonly cert: string; readonly key: string };
  cleanup(): void;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: 'ignore' });
}

/** A test CA and two leaves, made by openssl now (never checked in). */
export function makeTestPki(): TestPki {
  const dir = makeTempDir('gvd-model-pki-');
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=gvd-model test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign'], dir);
  const leaf = (name: string, san: string): { cert: string; key: string } => {
    openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`], dir);
    writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
    openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', '-extfile', `${name}.ext`], dir);
    return { cert: readFileSync(join(dir, `${name}.pem`), 'utf8'), key: readFileSync(join(dir, `${name}.key`), 'utf8') };
  };
  const l = leaf('localhost', 'DNS:localhost,IP:127.0.0.1');
  const o = leaf('other', 'DNS:other.test');
  return { dir, caPem: readFileSync(join(dir, 'ca.pem'), 'utf8'), caFile: join(dir, 'ca.pem'), leaf: l, otherLeaf: o, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function anthropicAnswer(text: string): string {
  return JSON.stringify({ id: 'msg_test', type: 'message', role: 'assistant', model: 'test', content: [{ type: 'text', text }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } });
}
export function openaiAnswer(text: string): string {
  return JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }] });
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

export async function startModelServer(o: { script: Script; tls?: { cert: string; key: string } }): Promise<ModelServer> {
  const requests: RecordedRequest[] = [];
  let connections = 0;
  const sockets = new Set<Socket>();
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: { ...req.headers }, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(rec);
      const answer = o.script(rec, requests.length);
      if ('raw' in answer) return answer.raw(res);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(rec.path.endsWith('/chat/completions') ? openaiAnswer(answer.text) : anthropicAnswer(answer.text));
    });
  };
  const server: Server = o.tls === undefined ? createHttpServer(handler) : (createHttpsServer({ cert: o.tls.cert, key: o.tls.key }, handler) as unknown as Server);
  server.on(o.tls === undefined ? 'connection' : 'secureConnection', (s: Socket) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  if (o.tls !== undefined) {
    // A TLS handshake that fails still counts as a connection the server saw.
    server.on('tlsClientError', () => {
      connections++;
    });
  }
  const port = await listen(server);
  return {
    port,
    requests,
    connections: () => connections,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A loopback server that counts every TCP connection it sees; every test asserts zero. */
export async function startForbidden(): Promise<ModelServer> {
  return startModelServer({ script: () => ({ text: 'forbidden' }) });
}
