// A broker line's record is read with the one transcript-record schema (src/core/egress-schema.ts,
// without the runner's seq and prev): anything that is not exactly that closed shape is refused
// (the run then fails as malformed, docs/egress.md#the-broker-process), a well-formed one passes.
import { describe, expect, it } from 'vitest';
import { parseRecord } from '../runner/egress/host.js';
import { EGRESS_MAX_ROUTES } from '../src/core/limits.js';

const HEX = 'a'.repeat(64);
const good = {
  at_ms: 12,
  outcome: 'forwarded',
  method: 'POST',
  route: 0,
  request: { sha256: HEX, bytes: 10 },
  response: { status: 200, sha256: HEX, bytes: 20 },
  upstream_cert_sha256: HEX,
};

describe('the broker record: one schema', () => {
  it('a well-formed record, with and without the tunnel flag, is read (positive control)', () => {
    expect(parseRecord(good)).toEqual(good);
    expect(parseRecord({ ...good, tunnel: true })).toEqual({ ...good, tunnel: true });
    expect(parseRecord({ ...good, route: null, request: { sha256: null, bytes: 0 }, response: { status: null, sha256: null, bytes: 0 }, upstream_cert_sha256: null })).not.toBeNull();
  });

  const bad: [string, unknown][] = [
    ['an unknown key', { ...good, extra: 1 }],
    ['the runner\'s seq', { ...good, seq: 0 }],
    ['tunnel false', { ...good, tunnel: false }],
    ['an unknown outcome', { ...good, outcome: 'teleported' }],
    ['an unknown method', { ...good, method: 'BREW' }],
    ['a route past the table', { ...good, route: EGRESS_MAX_ROUTES }],
    ['a negative time', { ...good, at_ms: -1 }],
    ['a fractional size', { ...good, request: { sha256: HEX, bytes: 1.5 } }],
    ['a status below 100', { ...good, response: { status: 99, sha256: HEX, bytes: 0 } }],
    ['an extra key in the response', { ...good, response: { ...good.response, body: 'x' } }],
    ['a short digest', { ...good, upstream_cert_sha256: 'abc' }],
    ['an own __proto__ key', JSON.parse(JSON.stringify(good).replace('{', '{"__proto__":{"x":1},'))],
    ['null', null],
    ['an array', [good]],
  ];
  for (const [what, v] of bad) {
    it(`${what} is refused`, () => {
      expect(parseRecord(v)).toBeNull();
    });
  }
});
