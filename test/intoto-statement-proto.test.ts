// A signed statement whose predicate carries an own `__proto__` key (docs/threat-model.md#rules-that-hold-everywhere "Closed
// objects"). zod's z.record (the generic statement frame, src/core/intoto.ts) drops that key
// silently, so the closed checks callers run on the *parsed* statement (e.g. checkpointViolation in
// `audit verify --checkpoint`) never saw it and a non-closed checkpoint verified — while the log
// attestor itself, which checks the raw value, refuses to sign exactly that statement.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { canonicalJson, sha256Hex } from '../src/core/canonical.js';
import { buildCheckpointStatement, checkpointViolation } from '../src/core/checkpoint.js';
import { isGovernedError } from '../src/core/errors.js';
import { loadTrustRoot } from '../src/core/trust-root.js';
import { verifyStatementEnvelope } from '../src/core/verify-receipt.js';
import { makeKey, signEnvelope, tempDir, trustRootDoc } from './helpers/receipts.js';

const D = (c: string): string => `sha256:${c.repeat(64)}`;

function world() {
  const dir = tempDir('governed-statement-proto-');
  const log = makeKey(join(dir, 'keys'), 'log');
  const trust = loadTrustRoot(trustRootDoc([{ key: log, roles: ['log'] }]));
  const st = buildCheckpointStatement({
    trust_mode: 'co-located',
    log_entries: 3,
    log_head: D('a'),
    state_digest: D('b'),
    policy_digest: D('c'),
    trust_digest: D('d'),
    attestor_sha256: 'e'.repeat(64),
    made_at: '2026-01-01T00:00:00Z',
  });
  return { log, trust, text: canonicalJson(st) };
}

const opts = { at: '2026-06-01T00:00:00Z', offline: true };

describe('own __proto__ key inside a signed statement predicate', () => {
  it('the well-formed checkpoint verifies (control)', () => {
    const { log, trust, text } = world();
    const v = verifyStatementEnvelope(Buffer.from(signEnvelope(Buffer.from(text), [log])), trust, ['log'], opts);
    expect(checkpointViolation(v.statement)).toBeNull();
  });

  it('a predicate with an extra own "__proto__" key is refused (statement_invalid), not silently stripped', () => {
    const { log, trust, text } = world();
    // `__proto__` sorts before every lowercase key: the payload stays exact RFC 8785.
    const forged = text.replace('"predicate":{', '"predicate":{"__proto__":{"x":1},');
    expect(forged).not.toBe(text);
    const payload = Buffer.from(forged, 'utf8');
    expect(sha256Hex(payload)).toHaveLength(64);
    let caught: unknown;
    let statement: unknown;
    try {
      statement = verifyStatementEnvelope(Buffer.from(signEnvelope(payload, [log])), trust, ['log'], opts).statement;
    } catch (e) {
      caught = e;
    }
    // Observed before the fix: verified, and checkpointViolation(statement) === null.
    expect(statement === undefined ? 'refused' : checkpointViolation(statement as never)).toBe('refused');
    expect(isGovernedError(caught) && caught.code).toBe('statement_invalid');
    expect(String((caught as Error).message)).not.toContain('"x"');
  });
});
