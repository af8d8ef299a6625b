// One model call through the egress broker (docs/egress.md): plain HTTP over the broker's Unix
// socket bound into the sandbox (the sandbox has no other way out), or over loopback TCP to the
// in-sandbox relay when the run has one (GOVERNED_EGRESS_URL), the run's phantom token as the
// credential (the broker swaps in the real key), the policy's provider, model and route.
// Anthropic Messages API and OpenAI-compatible Chat Completions (vLLM, llama.cpp, Ollama, …).
import { request, type ClientRequestArgs } from 'node:http';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { MODEL_ANSWER_MAX_BYTES, MODEL_MAX_TOKENS } from '../../../../src/core/limits.js';

export class CallFailed extends Error {
  constructor(readonly reason: 'env' | 'connect' | 'status' | 'timeout' | 'too_large' | 'shape') {
    super(reason);
  }
}

export interface Endpoint {
  readonly socket: string;
  /** Behind the in-sandbox relay (docs/egress.md#the-in-sandbox-relay): its loopback TCP port, used
   * instead of the socket. Both lead to the same broker. */
  readonly relayPort: number | null;
  /** TLS-terminating mode (docs/egress.md#tls-terminating-mode): CONNECT through the relay to this
   * host:port, then HTTPS inside, verified against the trust store (which holds the run CA). */
  readonly tunnel: { readonly host: string; readonly port: number } | null;
  readonly token: string;
  readonly provider: 'anthropic' | 'openai';
  readonly model: string;
  readonly path: string;
}

const MAX_ANSWER_BYTES = MODEL_ANSWER_MAX_BYTES;
const TIMEOUT_MS = 10 * 60 * 1000;
export const MAX_TOKENS = MODEL_MAX_TOKENS;

export function requestBody(e: Endpoint, system: string, prompt: string): Buffer {
  const body =
    e.provider === 'anthropic'
      ? { model: e.model, max_tokens: MAX_TOKENS, temperature: 0, system, messages: [{ role: 'user', content: prompt }] }
      : { model: e.model, temperature: 0, messages: [{ role: 'system', content: system }, { role: 'user', content: prompt }] };
  return Buffer.from(JSON.stringify(body), 'utf8');
}

/** The answer text of a provider response. */
export function answerText(provider: Endpoint['provider'], value: unknown): string {
  const v = value as Record<string, unknown> | null;
  if (v === null || typeof v !== 'object') throw new CallFailed('shape');
  if (provider === 'anthropic') {
    if (!Array.isArray(v.content)) throw new CallFailed('shape');
    const parts = v.content.filter((c: unknown) => c !== null && typeof c === 'object' && (c as { type?: unknown }).type === 'text' && typeof (c as { text?: unknown }).text === 'string');
    if (parts.length === 0) throw new CallFailed('shape');
    return parts.map((c: { text: string }) => c.text).join('');
  }
  const choice = Array.isArray(v.choices) ? (v.choices[0] as Record<string, unknown> | undefined) : undefined;
  const content = (choice?.message as Record<string, unknown> | undefined)?.content;
  if (typeof content !== 'string') throw new CallFailed('shape');
  return content;
}

/** A CONNECT tunnel through the relay, and TLS inside it (SNI and certificate check = the host). */
function openTunnel(relayPort: number, t: { host: string; port: number }): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const target = `${t.host}:${t.port}`;
    const req = request({ host: '127.0.0.1', port: relayPort, method: 'CONNECT', path: target, headers: { host: target }, timeout: TIMEOUT_MS });
    req.on('error', () => reject(new CallFailed('connect')));
    req.on('timeout', () => {
      req.destroy();
      reject(new CallFailed('timeout'));
    });
    req.on('connect', (res, sock) => {
      if (res.statusCode !== 200) {
        sock.destroy();
        return reject(new CallFailed('connect'));
      }
      const tls = tlsConnect({ socket: sock, servername: t.host, ALPNProtocols: ['http/1.1'] }, () => resolve(tls));
      tls.once('error', () => reject(new CallFailed('connect')));
    });
    req.end();
  });
}

export async function callModel(e: Endpoint, system: string, prompt: string): Promise<string> {
  const tunnel = e.tunnel === null || e.relayPort === null ? null : await openTunnel(e.relayPort, e.tunnel);
  return callOnce(e, system, prompt, tunnel);
}

function callOnce(e: Endpoint, system: string, prompt: string, tunnel: TLSSocket | null): Promise<string> {
  const body = requestBody(e, system, prompt);
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', 'content-length': String(body.length), host: 'localhost' };
  if (e.provider === 'anthropic') {
    headers['x-api-key'] = e.token;
    headers['anthropic-version'] = '2023-06-01';
  } else headers.authorization = `Bearer ${e.token}`;
  return new Promise((resolve, reject) => {
    if (tunnel !== null && e.tunnel !== null) headers.host = e.tunnel.port === 443 ? e.tunnel.host : `${e.tunnel.host}:${e.tunnel.port}`;
    const to: ClientRequestArgs = tunnel !== null ? { createConnection: () => tunnel } : e.relayPort === null ? { socketPath: e.socket } : { host: '127.0.0.1', port: e.relayPort };
    const req = request({ ...to, method: 'POST', path: e.path, headers, timeout: TIMEOUT_MS }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_ANSWER_BYTES) {
          res.destroy();
          reject(new CallFailed('too_large'));
          return;
        }
        chunks.push(c);
      });
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new CallFailed('status'));
        let value: unknown;
        try {
          value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return reject(new CallFailed('shape'));
        }
        try {
          resolve(answerText(e.provider, value));
        } catch (err) {
          reject(err);
        }
      });
      res.on('aborted', () => reject(new CallFailed('connect')));
      res.on('error', () => reject(new CallFailed('connect')));
    });
    req.on('timeout', () => {
      req.destroy();
      reject(new CallFailed('timeout'));
    });
    req.on('error', () => reject(new CallFailed('connect')));
    req.end(body);
  });
}
