// The egress broker's rules (docs/egress.md): what one request from a sandboxed model reviewer may
// be, which headers go upstream, which resolved addresses may be dialled, and the hash chain of the
// transcript. Zod-free and pure (no I/O, no clock): the pinned broker (runner/egress/src/broker.ts)
// bundles this file, and the receipt verifier re-derives the chain with the same functions.
//
// The body rule is an ALLOWLIST per provider, never a denylist: a new provider feature (a server-side
// tool, an MCP connector, a URL the provider would fetch) is refused until it is named here. Only
// text content is admitted, so nothing in a request makes the provider contact another host.
import { canonicalJson, sha256Digest } from './canonical.js';

/** The variables the runner sets for a reviewer with an egress entry (a policy may not set them). */
export const EGRESS_ENV = {
  socket: 'GOVERNED_EGRESS_SOCKET',
  token: 'GOVERNED_EGRESS_TOKEN',
  provider: 'GOVERNED_MODEL_PROVIDER',
  model: 'GOVERNED_MODEL',
  /** The path of the entry's first route: where the reviewer sends its request. */
  path: 'GOVERNED_EGRESS_PATH',
} as const;
export const EGRESS_ENV_NAMES: readonly string[] = Object.values(EGRESS_ENV);
/** Where the broker's socket appears inside the sandbox. */
export const EGRESS_SANDBOX_SOCKET = '/run/governed/egress.sock';

export const EGRESS_PROVIDERS = ['anthropic', 'openai'] as const;
export type EgressProvider = (typeof EGRESS_PROVIDERS)[number];

/** The in-sandbox relay's listener (docs/egress.md#the-in-sandbox-relay): a literal address (the
 * sandbox has no /etc/hosts, so `localhost` does not resolve) and a fixed port in the sandbox's own
 * network namespace. */
export const RELAY_PORT = 3128;
/** `http://127.0.0.1:${RELAY_PORT}`, written out (a literal keeps the broker's bundled bytes; the
 * relay rules test checks the two agree). */
export const RELAY_URL = 'http://127.0.0.1:3128';

/** The variables the relay profile adds (docs/egress.md#the-in-sandbox-relay): the relay's URL, and
 * the base-URL and key variables each provider's own clients read — the key is the run's phantom. */
export const RELAY_ENV_BY_PROVIDER: Readonly<Record<EgressProvider, { readonly baseUrl: string; readonly key: string; readonly urlSuffix: string }>> = {
  anthropic: { baseUrl: 'ANTHROPIC_BASE_URL', key: 'ANTHROPIC_API_KEY', urlSuffix: '' },
  openai: { baseUrl: 'OPENAI_BASE_URL', key: 'OPENAI_API_KEY', urlSuffix: '/v1' },
};
export const RELAY_URL_ENV = 'GOVERNED_EGRESS_URL';

/** The relay profile's variables for one provider, beside EGRESS_ENV's. */
export function relayEnv(provider: EgressProvider, phantom: string): Record<string, string> {
  const p = RELAY_ENV_BY_PROVIDER[provider];
  return { [RELAY_URL_ENV]: RELAY_URL, [p.baseUrl]: `${RELAY_URL}${p.urlSuffix}`, [p.key]: phantom };
}

/** Every name relayEnv can set (a policy may not set one for a reviewer behind the relay);
 * test/egress-relay-rules.test.ts checks it against RELAY_ENV_BY_PROVIDER. A literal, so programs
 * that bundle this file without using it (the broker, the attestors) keep their bytes. */
export const RELAY_ENV_NAMES: readonly string[] = ['GOVERNED_EGRESS_URL', 'ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_API_KEY'];

/** TLS-terminating mode (docs/egress.md#tls-terminating-mode): where the relay writes the run's CA
 * certificate inside the sandbox (its /tmp), and the variable that carries the PEM to it. */
export const TERMINATE_CA_PATH = '/tmp/governed-egress-ca.pem';
export const TERMINATE_CA_ENV = 'GOVERNED_EGRESS_CA_PEM';

/** The variables terminate mode adds to the relay's: the relay as the HTTPS proxy (the upper-case
 * name, which curl, Node agents and the hosted CLIs read; environment names are upper-case here), and the run's CA as the trust store of Node, OpenSSL and curl. */
export function terminateEnv(caPem: string, host: string, port: number): Record<string, string> {
  return {
    // The CONNECT target a client names (the policy endpoint), for clients that need it spelled out.
    GOVERNED_EGRESS_TARGET: `${host}:${port}`,
    HTTPS_PROXY: RELAY_URL,
    NODE_EXTRA_CA_CERTS: TERMINATE_CA_PATH,
    SSL_CERT_FILE: TERMINATE_CA_PATH,
    CURL_CA_BUNDLE: TERMINATE_CA_PATH,
    [TERMINATE_CA_ENV]: caPem,
  };
}
/** Every name terminateEnv sets, written out (a literal, for the same reason as RELAY_ENV_NAMES). */
export const TERMINATE_ENV_NAMES: readonly string[] = ['GOVERNED_EGRESS_TARGET', 'HTTPS_PROXY', 'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'CURL_CA_BUNDLE', 'GOVERNED_EGRESS_CA_PEM'];

/** May a CONNECT tunnel be opened to this request target? Only to exactly `<policy host>:<port>`
 * (authority form, the host in lowercase): never another name, port or an IP literal. */
export function connectTargetAllowed(target: string | undefined, host: string, port: number): boolean {
  return target === `${host}:${port}`;
}

/** The Host header a request inside a terminated tunnel must carry: the policy host, with its port
 * unless it is 443. */
export function tunnelHostAllowed(hostHeader: string | undefined, host: string, port: number): boolean {
  if (hostHeader === undefined) return false;
  const h = hostHeader.toLowerCase();
  return h === `${host}:${port}` || (port === 443 && h === host);
}

/**
 * Closed outcomes of one transcript record. `forwarded` is the only outcome a receipt may carry;
 * every other one ends the run ABORTED with the error code EGRESS_OUTCOME_CODES names.
 */
export const EGRESS_OUTCOMES = [
  'forwarded',
  'refused_connect',
  'refused_sni',
  'refused_malformed',
  'refused_upgrade',
  'refused_http2',
  'refused_target',
  'refused_host',
  'refused_route',
  'refused_phantom',
  'refused_body',
  'refused_request_cap',
  'refused_request_too_large',
  'refused_connections',
  'refused_deadline',
  'refused_address',
  'upstream_failed',
  'upstream_tls_failed',
  'response_truncated',
  'request_timeout',
] as const;
export type EgressOutcome = (typeof EGRESS_OUTCOMES)[number];

/** The error code (src/core/error-codes/egress.ts) a run ends with for each non-forwarded outcome. */
export const EGRESS_OUTCOME_CODES: Readonly<Record<Exclude<EgressOutcome, 'forwarded'>, string>> = {
  refused_connect: 'egress_target_refused',
  refused_sni: 'egress_host_mismatch',
  refused_malformed: 'egress_request_malformed',
  refused_upgrade: 'egress_upgrade_refused',
  refused_http2: 'egress_http2_refused',
  refused_target: 'egress_target_refused',
  refused_host: 'egress_host_mismatch',
  refused_route: 'egress_route_refused',
  refused_phantom: 'egress_phantom_invalid',
  refused_body: 'egress_body_refused',
  refused_request_cap: 'egress_cap_exceeded',
  refused_request_too_large: 'egress_cap_exceeded',
  refused_connections: 'egress_cap_exceeded',
  refused_deadline: 'egress_cap_exceeded',
  refused_address: 'egress_address_refused',
  upstream_failed: 'egress_upstream_failed',
  upstream_tls_failed: 'egress_upstream_failed',
  response_truncated: 'egress_response_truncated',
  request_timeout: 'egress_cap_exceeded',
};

/** Methods a record names; anything else is recorded as OTHER (never the reviewer's string). */
export const RECORD_METHODS = ['POST', 'GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'CONNECT', 'OTHER'] as const;
export type RecordMethod = (typeof RECORD_METHODS)[number];
export function recordMethod(m: string | undefined): RecordMethod {
  return (RECORD_METHODS as readonly string[]).includes(m ?? '') ? (m as RecordMethod) : 'OTHER';
}

// --- request shape -------------------------------------------------------------------------------

export interface EgressRoute {
  readonly method: 'POST';
  readonly path: string;
}

/** Index of the route this request line matches exactly (no query string at all), or -1. */
export function matchRoute(routes: readonly EgressRoute[], method: string | undefined, url: string | undefined): number {
  if (url === undefined || method === undefined) return -1;
  return routes.findIndex((r) => r.method === method && r.path === url);
}

/** The header the phantom token travels in, and the header the real key is injected as. */
export const CREDENTIAL_HEADERS: Readonly<Record<EgressProvider, { readonly name: string; readonly format: (key: string) => string; readonly phantomOf: (value: string) => string | null }>> = {
  anthropic: { name: 'x-api-key', format: (k) => k, phantomOf: (v) => v },
  openai: { name: 'authorization', format: (k) => `Bearer ${k}`, phantomOf: (v) => (v.startsWith('Bearer ') ? v.slice(7) : null) },
};

/**
 * The only request headers forwarded (lowercase name → value rule). Everything else — every
 * credential (`authorization`, `x-api-key`, `x-goog-api-key`, `cookie`, `proxy-authorization`),
 * hop-by-hop headers, `anthropic-beta` (it switches on server tools) — is dropped.
 */
const FORWARDED_HEADERS: Readonly<Record<string, RegExp>> = {
  'content-type': /^application\/json(; ?charset=utf-8)?$/i,
  accept: /^(application\/json|text\/event-stream|\*\/\*)$/i,
  'anthropic-version': /^\d{4}-\d{2}-\d{2}$/,
};

/** Headers to send upstream: the admitted ones, then the real credential, host and length. */
export function upstreamHeaders(
  provider: EgressProvider,
  inbound: Readonly<Record<string, string | string[] | undefined>>,
  key: string,
  hostHeader: string,
  bodyBytes: number,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, re] of Object.entries(FORWARDED_HEADERS)) {
    const v = inbound[name];
    if (typeof v === 'string' && re.test(v)) out[name] = v;
  }
  if (out['content-type'] === undefined) out['content-type'] = 'application/json';
  const cred = CREDENTIAL_HEADERS[provider];
  out[cred.name] = cred.format(key);
  out.host = hostHeader;
  out['content-length'] = String(bodyBytes);
  out['user-agent'] = 'governed-egress/1';
  return out;
}

// --- body allowlist --------------------------------------------------------------------------------

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isText = (v: unknown, max = 4 * 1024 * 1024): v is string => typeof v === 'string' && v.length <= max;
const isNum = (v: unknown, lo: number, hi: number): boolean => typeof v === 'number' && Number.isFinite(v) && v >= lo && v <= hi;
const onlyKeys = (o: Record<string, unknown>, allowed: readonly string[]): boolean => Object.keys(o).every((k) => allowed.includes(k));

/** Text content: a string, or a list of `{type: "text", text}` blocks (nothing the provider would fetch). */
function isTextContent(v: unknown): boolean {
  if (isText(v)) return true;
  return Array.isArray(v) && v.length <= 64 && v.every((b) => isObj(b) && onlyKeys(b, ['type', 'text']) && b.type === 'text' && isText(b.text));
}

const ANTHROPIC_KEYS = ['model', 'messages', 'system', 'max_tokens', 'temperature', 'top_p', 'top_k', 'stop_sequences', 'stream'];
const OPENAI_KEYS = ['model', 'messages', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'stream', 'response_format', 'seed', 'n', 'stop'];

/**
 * Why a parsed request body is refused, or null when it is admitted. `model` must be the policy's
 * (the policy picks the model per reviewer, never the reviewer). The returned reason is a fixed
 * token for docs and tests; it never contains a value from the body.
 */
export function bodyViolation(provider: EgressProvider, model: string, body: unknown): string | null {
  if (!isObj(body)) return 'not_object';
  if (body.model !== model) return 'model';
  if (!Array.isArray(body.messages) || body.messages.length < 1 || body.messages.length > 64) return 'messages';
  if (body.stream !== undefined && typeof body.stream !== 'boolean') return 'stream';
  if (provider === 'anthropic') {
    if (!onlyKeys(body, ANTHROPIC_KEYS)) return 'key';
    if (!isNum(body.max_tokens, 1, 1_000_000)) return 'max_tokens';
    if (body.system !== undefined && !isTextContent(body.system)) return 'system';
    for (const m of body.messages) {
      if (!isObj(m) || !onlyKeys(m, ['role', 'content']) || (m.role !== 'user' && m.role !== 'assistant') || !isTextContent(m.content)) return 'message';
    }
    if (body.temperature !== undefined && !isNum(body.temperature, 0, 1)) return 'temperature';
    if (body.top_p !== undefined && !isNum(body.top_p, 0, 1)) return 'top_p';
    if (body.top_k !== undefined && !isNum(body.top_k, 0, 1_000_000)) return 'top_k';
    if (body.stop_sequences !== undefined && !(Array.isArray(body.stop_sequences) && body.stop_sequences.length <= 8 && body.stop_sequences.every((s) => isText(s, 256)))) return 'stop';
    return null;
  }
  if (!onlyKeys(body, OPENAI_KEYS)) return 'key';
  for (const m of body.messages) {
    if (!isObj(m) || !onlyKeys(m, ['role', 'content']) || !['system', 'user', 'assistant'].includes(m.role as string) || !isTextContent(m.content)) return 'message';
  }
  if (body.max_tokens !== undefined && !isNum(body.max_tokens, 1, 1_000_000)) return 'max_tokens';
  if (body.max_completion_tokens !== undefined && !isNum(body.max_completion_tokens, 1, 1_000_000)) return 'max_tokens';
  if (body.temperature !== undefined && !isNum(body.temperature, 0, 2)) return 'temperature';
  if (body.top_p !== undefined && !isNum(body.top_p, 0, 1)) return 'top_p';
  if (body.seed !== undefined && !isNum(body.seed, 0, 2 ** 31)) return 'seed';
  if (body.n !== undefined && body.n !== 1) return 'n';
  if (body.stop !== undefined && !(isText(body.stop, 256) || (Array.isArray(body.stop) && body.stop.length <= 4 && body.stop.every((s) => isText(s, 256))))) return 'stop';
  if (body.response_format !== undefined && !(isObj(body.response_format) && onlyKeys(body.response_format, ['type']) && ['text', 'json_object'].includes(body.response_format.type as string))) return 'response_format';
  return null;
}

// --- addresses ---------------------------------------------------------------------------------------

/** The class of a resolved address: only `public` is dialled, `loopback` when the policy allows it. */
export function addressClass(address: string): 'public' | 'loopback' | 'private' | 'link_local' | 'unspecified' | 'invalid' {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address);
  if (v4 !== null) {
    const o = v4.slice(1).map(Number) as [number, number, number, number];
    if (o.some((x) => x > 255)) return 'invalid';
    const [a, b] = o;
    if (a === 127) return 'loopback';
    if (a === 0) return 'unspecified';
    if (a === 169 && b === 254) return 'link_local';
    if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)) return 'private';
    if (a >= 224 || (a === 198 && (b === 18 || b === 19)) || (a === 192 && b === 0 && o[2] === 0)) return 'private';
    return 'public';
  }
  const g = ipv6Groups(address.toLowerCase());
  if (g === null) return 'invalid';
  const [g0, g1, g2, g3, , g5, g6, g7] = g as [number, number, number, number, number, number, number, number];
  const zeroTo = (n: number): boolean => g.slice(0, n).every((x) => x === 0);
  if (zeroTo(8)) return 'unspecified';
  if (zeroTo(7) && g7 === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d, in either notation): the IPv4 address's class.
  if (zeroTo(5) && g5 === 0xffff) return addressClass(`${g6 >> 8}.${g6 & 0xff}.${g7 >> 8}.${g7 & 0xff}`);
  if ((g0 & 0xffc0) === 0xfe80) return 'link_local';
  // Everything that is not plainly a global unicast address is refused as private (fail closed):
  // the rest of ::/8 (IPv4-compatible, reserved), 100::/64 discard, 64:ff9b::/96 and 64:ff9b:1::/48
  // NAT64, 2001::/32 Teredo, 2001:db8::/32 documentation, 2002::/16 6to4 (each can embed or reach
  // an IPv4 address), fc00::/7 unique local, fec0::/10 site-local, ff00::/8 multicast.
  if (g0 <= 0x00ff) return 'private';
  if (g0 === 0x0100 && g1 === 0 && g2 === 0 && g3 === 0) return 'private';
  if (g0 === 0x0064 && g1 === 0xff9b) return 'private';
  if (g0 === 0x2001 && (g1 === 0 || g1 === 0x0db8)) return 'private';
  if (g0 === 0x2002) return 'private';
  if ((g0 & 0xfe00) === 0xfc00 || (g0 & 0xffc0) === 0xfec0 || (g0 & 0xff00) === 0xff00) return 'private';
  return 'public';
}

/** An IPv6 address in text (RFC 4291 §2.2: `::` once, an optional trailing dotted IPv4) → its eight
 * 16-bit groups; null for anything else (a zone id, a bad group, a second `::`). */
function ipv6Groups(s: string): number[] | null {
  if (!/^[0-9a-f:.]{2,45}$/.test(s) || !s.includes(':')) return null;
  let text = s;
  const tail: number[] = [];
  const dotted = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (dotted !== null) {
    const o = dotted.slice(2).map(Number);
    if (o.some((x) => x > 255)) return null;
    tail.push(((o[0] as number) << 8) | (o[1] as number), ((o[2] as number) << 8) | (o[3] as number));
    const prefix = dotted[1] as string;
    text = prefix.endsWith('::') ? prefix : prefix.slice(0, -1);
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    for (const h of part.split(':')) {
      if (!/^[0-9a-f]{1,4}$/.test(h)) return null;
      out.push(parseInt(h, 16));
    }
    return out;
  };
  const head = parse(halves[0] as string);
  const rest = halves.length === 2 ? parse(halves[1] as string) : [];
  if (head === null || rest === null) return null;
  const given = head.length + rest.length + tail.length;
  if (halves.length === 1) return given === 8 ? [...head, ...tail] : null;
  if (given > 7) return null;
  return [...head, ...new Array<number>(8 - given).fill(0), ...rest, ...tail];
}

/** May the broker dial this resolved address for this endpoint? */
export function addressAllowed(address: string, transport: 'tls' | 'plain-loopback', allowLoopback: boolean): boolean {
  const c = addressClass(address);
  if (transport === 'plain-loopback') return c === 'loopback';
  return c === 'public' || (c === 'loopback' && allowLoopback);
}

// --- transcript chain --------------------------------------------------------------------------------

/** One transcript record as the receipt carries it: digests, sizes and closed codes only. */
export interface EgressRecord {
  readonly seq: number;
  readonly prev: string;
  readonly at_ms: number;
  readonly outcome: EgressOutcome;
  readonly method: RecordMethod;
  /** Index of the policy route matched, or null when refused before matching one. */
  readonly route: number | null;
  readonly request: { readonly sha256: string | null; readonly bytes: number };
  readonly response: { readonly status: number | null; readonly sha256: string | null; readonly bytes: number };
  /** sha256 of the upstream certificate (DER), null for plain loopback or no connection. */
  readonly upstream_cert_sha256: string | null;
  /** Present (true) when the request came through a terminated CONNECT tunnel (TLS-terminating mode). */
  readonly tunnel?: true;
}

/** The chain's start: the head of an empty transcript. */
export const TRANSCRIPT_GENESIS = sha256Digest('governed/egress-transcript/v1');

export function recordHash(r: EgressRecord): string {
  return sha256Digest(canonicalJson(r));
}

/** Chain records (without seq/prev) into the transcript; returns the records and the head. */
export function chainRecords(raw: readonly Omit<EgressRecord, 'seq' | 'prev'>[]): { records: EgressRecord[]; head: string } {
  let prev = TRANSCRIPT_GENESIS;
  const records: EgressRecord[] = [];
  raw.forEach((r, seq) => {
    const rec: EgressRecord = { ...r, seq, prev };
    records.push(rec);
    prev = recordHash(rec);
  });
  return { records, head: prev };
}

export interface TranscriptTotals {
  readonly requests: number;
  readonly refused: number;
  readonly bytes_up: number;
  readonly bytes_down: number;
}

export function transcriptTotals(records: readonly EgressRecord[]): TranscriptTotals {
  let bytesUp = 0;
  let bytesDown = 0;
  let refused = 0;
  for (const r of records) {
    bytesUp += r.request.bytes;
    bytesDown += r.response.bytes;
    if (r.outcome !== 'forwarded') refused++;
  }
  return { requests: records.length, refused, bytes_up: bytesUp, bytes_down: bytesDown };
}

/**
 * The rule a receipt's transcript must satisfy: seq 0..n-1, each `prev` the hash of the record
 * before (genesis first), the head the hash of the last, totals the sums, and every record
 * `forwarded` (any other outcome ends the run ABORTED, so no receipt carries one). Returns the
 * broken field or null.
 */
export function transcriptViolation(t: { readonly head: string; readonly records: readonly EgressRecord[] } & TranscriptTotals): string | null {
  let prev = TRANSCRIPT_GENESIS;
  for (let i = 0; i < t.records.length; i++) {
    const r = t.records[i] as EgressRecord;
    if (r.seq !== i || r.prev !== prev) return 'egress.transcript.records';
    if (r.outcome !== 'forwarded') return 'egress.transcript.outcome';
    prev = recordHash(r);
  }
  if (prev !== t.head) return 'egress.transcript.head';
  const sums = transcriptTotals(t.records);
  if (sums.requests !== t.requests || sums.refused !== t.refused || sums.bytes_up !== t.bytes_up || sums.bytes_down !== t.bytes_down) return 'egress.transcript.totals';
  return null;
}
