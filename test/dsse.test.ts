import { describe, it, expect } from 'vitest';
import { pae, parseEnvelopeBytes, encodeEnvelope } from '../src/core/dsse.js';
import { codeOf } from './helpers/codes.js';


describe('DSSE PAE (DSSE v1.0 protocol.md test vector)', () => {
  it('matches the spec example', () => {
    expect(pae('http://example.com/HelloWorld', Buffer.from('hello world')).toString('utf8')).toBe(
      'DSSEv1 29 http://example.com/HelloWorld 11 hello world',
    );
  });
  it('counts UTF-8 bytes, not characters', () => {
    expect(pae('t/é', Buffer.from('ü', 'utf8')).toString('utf8')).toBe('DSSEv1 4 t/é 2 ü');
    expect(pae('', Buffer.alloc(0)).toString('utf8')).toBe('DSSEv1 0  0 ');
  });
});

describe('envelope parsing is strict', () => {
  const good = encodeEnvelope('application/vnd.in-toto+json', Buffer.from('{}'), [{ keyid: 'a'.repeat(64), sig: Buffer.alloc(64, 1) }]);
  const bytes = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));
  it('accepts a well-formed envelope', () => {
    const d = parseEnvelopeBytes(bytes(good));
    expect(d.payload.toString()).toBe('{}');
    expect(d.signatures[0]?.sig.length).toBe(64);
  });
  it.each([
    ['extra top-level field', { ...good, extra: 1 }],
    ['extra signature field', { ...good, signatures: [{ ...good.signatures[0], cert: 'x' }] }],
    ['missing payload', { payloadType: good.payloadType, signatures: good.signatures }],
    ['non-canonical base64 payload', { ...good, payload: 'e30' }],
    ['base64 with junk', { ...good, payload: 'e3!0' }],
    ['keyid not hex', { ...good, signatures: [{ keyid: 'XYZ', sig: good.signatures[0]?.sig }] }],
    ['payload not a string', { ...good, payload: 5 }],
  ])('refuses %s', (_n, v) => {
    expect(codeOf(() => parseEnvelopeBytes(bytes(v)))).toBe('envelope_invalid');
  });
  it('refuses duplicate keys and non-JSON', () => {
    const dup = `{"payloadType":"a","payload":"e30=","payload":"W10=","signatures":[]}`;
    expect(codeOf(() => parseEnvelopeBytes(Buffer.from(dup)))).toBe('envelope_invalid');
    expect(codeOf(() => parseEnvelopeBytes(Buffer.from('garbage')))).toBe('envelope_invalid');
  });
});
