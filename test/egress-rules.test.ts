// The egress broker's pure rules (src/core/egress-rules.ts) and formats (src/core/egress-schema.ts):
// address classes (what the broker may dial after resolving), the request-body allowlist, the
// transcript chain a receipt carries, and the policy entry's schema. Each rule is attacked, with a
// positive control beside it.
import { describe, expect, it } from 'vitest';
import { addressAllowed, addressClass, bodyViolation, chainRecords, transcriptTotals, transcriptViolation, type EgressRecord } from '../src/core/egress-rules.js';
import { egressPolicySchema, egressRecordSchema } from '../src/core/egress-schema.js';
import { loadPolicy } from '../src/core/policy.js';
import { makeKeys, policyDoc } from './state-helpers.js';

describe('addresses the broker may dial', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.5.6.7', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['169.254.169.254', 'link_local'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'private'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link_local'],
    ['fd00::1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['2606:4700::1111', 'public'],
    ['300.1.1.1', 'invalid'],
    // The same addresses in other IPv6 spellings, and the ranges a prefix test on the text missed.
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['0::1', 'loopback'],
    ['0000:0000:0000:0000:0000:0000:0000:0000', 'unspecified'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:169.254.169.254', 'link_local'],
    ['::ffff:a9fe:a9fe', 'link_local'],
    ['::ffff:8.8.8.8', 'public'],
    ['::127.0.0.1', 'private'],
    ['::7f00:1', 'private'],
    ['fec0::1', 'private'],
    ['feff::1', 'private'],
    ['febf::1', 'link_local'],
    ['64:ff9b::7f00:1', 'private'],
    ['2002:7f00:1::', 'private'],
    ['2001:0:4136:e378::1', 'private'],
    ['2001:db8::1', 'private'],
    ['100::1', 'private'],
    ['ff02::1', 'private'],
    ['2001:4860:4860::8888', 'public'],
    ['2a00:1450:4001:80b::200e', 'public'],
    ['fe80::1%eth0', 'invalid'],
    ['1::2::3', 'invalid'],
    ['1:2:3:4:5:6:7:8:9', 'invalid'],
    ['12345::1', 'invalid'],
    ['::ffff:1.2.3.256', 'invalid'],
  ])('%s is %s', (a, c) => {
    expect(addressClass(a)).toBe(c);
  });

  it('tls dials public addresses only, loopback only with allow_loopback; plain-loopback dials loopback only', () => {
    expect(addressAllowed('8.8.8.8', 'tls', false)).toBe(true);
    expect(addressAllowed('127.0.0.1', 'tls', false)).toBe(false);
    expect(addressAllowed('127.0.0.1', 'tls', true)).toBe(true);
    expect(addressAllowed('10.0.0.1', 'tls', true)).toBe(false);
    expect(addressAllowed('169.254.169.254', 'tls', true)).toBe(false);
    expect(addressAllowed('127.0.0.1', 'plain-loopback', false)).toBe(true);
    expect(addressAllowed('8.8.8.8', 'plain-loopback', false)).toBe(false);
  });
});

describe('the request-body allowlist', () => {
  const a = { model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] };
  const o = { model: 'm', messages: [{ role: 'user', content: 'x' }] };
  it('admits plain text requests (positive control) and refuses every server-side capability', () => {
    expect(bodyViolation('anthropic', 'm', a)).toBeNull();
    expect(bodyViolation('anthropic', 'm', { ...a, system: [{ type: 'text', text: 's' }], stream: true, temperature: 0 })).toBeNull();
    expect(bodyViolation('openai', 'm', o)).toBeNull();
    expect(bodyViolation('anthropic', 'm', { ...a, mcp_servers: [] })).toBe('key');
    expect(bodyViolation('anthropic', 'm', { ...a, tools: [] })).toBe('key');
    expect(bodyViolation('anthropic', 'm', { ...a, tool_choice: { type: 'auto' } })).toBe('key');
    expect(bodyViolation('anthropic', 'm', { ...a, container: 'x' })).toBe('key');
    expect(bodyViolation('anthropic', 'm', { ...a, messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'url', url: 'http://x' } }] }] })).toBe('message');
    expect(bodyViolation('anthropic', 'm', { ...a, messages: [{ role: 'user', content: [{ type: 'text', text: 'x', citations: [] }] }] })).toBe('message');
    expect(bodyViolation('anthropic', 'other', a)).toBe('model');
    expect(bodyViolation('openai', 'm', { ...o, tools: [{ type: 'function' }] })).toBe('key');
    expect(bodyViolation('openai', 'm', { ...o, web_search_options: {} })).toBe('key');
    expect(bodyViolation('openai', 'm', { ...o, n: 2 })).toBe('n');
    expect(bodyViolation('openai', 'm', { ...o, messages: [{ role: 'tool', content: 'x' }] })).toBe('message');
    expect(bodyViolation('openai', 'm', { ...o, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'http://x' } }] }] })).toBe('message');
    expect(bodyViolation('openai', 'm', [])).toBe('not_object');
  });
});

describe('the transcript chain', () => {
  const raw = (bytes: number): Omit<EgressRecord, 'seq' | 'prev'> => ({
    at_ms: 5,
    outcome: 'forwarded',
    method: 'POST',
    route: 0,
    request: { sha256: 'a'.repeat(64), bytes },
    response: { status: 200, sha256: 'b'.repeat(64), bytes: 7 },
    upstream_cert_sha256: null,
  });
  const t = (): ReturnType<typeof chainRecords> & ReturnType<typeof transcriptTotals> => {
    const c = chainRecords([raw(10), raw(20), raw(30)]);
    return { ...c, ...transcriptTotals(c.records) };
  };
  it('a chained transcript satisfies the rule (positive control); each tampering names its field', () => {
    expect(transcriptViolation(t())).toBeNull();
    expect(transcriptViolation({ ...chainRecords([]), ...transcriptTotals([]) })).toBeNull();
    const changed = t();
    changed.records[2] = { ...changed.records[2]!, request: { sha256: 'a'.repeat(64), bytes: 31 } };
    expect(transcriptViolation({ ...changed, ...transcriptTotals(changed.records) })).toBe('egress.transcript.head');
    const middle = t();
    middle.records[1] = { ...middle.records[1]!, at_ms: 6 };
    expect(transcriptViolation(middle)).toBe('egress.transcript.records');
    const dropped = t();
    dropped.records.splice(1, 1);
    expect(transcriptViolation(dropped)).toBe('egress.transcript.records');
    expect(transcriptViolation({ ...t(), bytes_up: 1 })).toBe('egress.transcript.totals');
    expect(transcriptViolation({ ...t(), head: `sha256:${'0'.repeat(64)}` })).toBe('egress.transcript.head');
    const refusal = chainRecords([{ ...raw(1), outcome: 'refused_body' }]);
    expect(transcriptViolation({ ...refusal, ...transcriptTotals(refusal.records) })).toBe('egress.transcript.outcome');
  });

  it("a terminated tunnel's mark is inside the chain: dropping or adding `tunnel` breaks the head; the schema admits only `true`", () => {
    const tunnelled = chainRecords([{ ...raw(10), tunnel: true }, raw(20)]);
    const whole = { ...tunnelled, ...transcriptTotals(tunnelled.records) };
    expect(transcriptViolation(whole)).toBeNull();
    expect(egressRecordSchema.safeParse(tunnelled.records[0]).success).toBe(true);
    const { tunnel: _dropped, ...withoutMark } = tunnelled.records[0]!;
    expect(transcriptViolation({ ...whole, records: [withoutMark, tunnelled.records[1]!] })).toBe('egress.transcript.records');
    const last = { ...tunnelled.records[1]!, tunnel: true as const };
    expect(transcriptViolation({ ...whole, records: [tunnelled.records[0]!, last] })).toBe('egress.transcript.head');
    expect(egressRecordSchema.safeParse({ ...tunnelled.records[0], tunnel: false }).success).toBe(false);
  });
});

describe('the egress policy entry', () => {
  const entry = {
    provider: 'anthropic',
    model: 'claude-test',
    host: 'api.anthropic.com',
    port: 443,
    transport: 'tls',
    routes: [{ method: 'POST', path: '/v1/messages' }],
    credential: { env: 'ANTHROPIC_API_KEY' },
    broker_sha256: ['1'.repeat(64)],
    caps: { requests: 8, request_bytes: '4MiB', response_bytes: '1MiB', total_up: '16MiB', total_down: '4MiB', request_timeout: '60s', connections: 2 },
  };
  it('accepts one named endpoint (positive control) and refuses IP literals, wildcards, other methods, query strings, unknown keys and caps beyond the receipt bound', () => {
    expect(egressPolicySchema.safeParse(entry).success).toBe(true);
    for (const host of ['127.0.0.1', '8.8.8.8', '*.anthropic.com', 'API.anthropic.com', '[::1]', 'a..b']) expect(egressPolicySchema.safeParse({ ...entry, host }).success, host).toBe(false);
    expect(egressPolicySchema.safeParse({ ...entry, routes: [{ method: 'GET', path: '/v1/messages' }] }).success).toBe(false);
    expect(egressPolicySchema.safeParse({ ...entry, routes: [{ method: 'POST', path: '/v1/messages?beta=true' }] }).success).toBe(false);
    expect(egressPolicySchema.safeParse({ ...entry, routes: [{ method: 'POST', path: '/v1/../files' }] }).success).toBe(false);
    expect(egressPolicySchema.safeParse({ ...entry, hosts: ['x'] }).success).toBe(false);
    expect(egressPolicySchema.safeParse({ ...entry, caps: { ...entry.caps, requests: 65 } }).success).toBe(false);
    expect(egressPolicySchema.safeParse({ ...entry, credential: { env: 'K', file: '/k' } }).success).toBe(false);
  });

  it('a policy may not set the variables the runner sets for egress', () => {
    const keys = makeKeys();
    const ok = policyDoc(keys, { reviewers: { coverage: { sha256: '1'.repeat(64), interpreter: '/usr/bin/node', env: {}, egress: entry } } });
    expect(() => loadPolicy(ok)).not.toThrow();
    for (const name of ['GOVERNED_EGRESS_TOKEN', 'GOVERNED_EGRESS_SOCKET', 'GOVERNED_MODEL', 'GOVERNED_MODEL_PROVIDER', 'GOVERNED_EGRESS_PATH']) {
      const bad = policyDoc(keys, { reviewers: { coverage: { sha256: '1'.repeat(64), interpreter: '/usr/bin/node', env: { [name]: 'x' } } } });
      expect(() => loadPolicy(bad), name).toThrow(expect.objectContaining({ code: 'policy_invalid' }));
    }
  });
});
