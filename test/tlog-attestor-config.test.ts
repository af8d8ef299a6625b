// The tlog-checkpoint attestor's config (docs/audit.md#checkpoints) is one zod/mini schema
// (src/core/tlog-attestor.ts) whose key fields are the attestor config's own rules
// (src/core/attestor-protocol.ts KEY_ID_RE, KEY_REF_RE): the committed, pinned attestors/tlog-note.mjs refuses
// every config that is not exactly that shape before it reads a key or a request (exit 3,
// `refused:config_invalid`, nothing on stdout), and signs with a config that is (positive control).
import { spawnSync } from 'node:child_process';
import { createPublicKey, verify } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointBody } from '../src/core/signed-note.js';
import { TLOG_CHECKPOINT_KIND, TLOG_CHECKPOINT_PAYLOAD_TYPE, parseTlogAttestorConfig } from '../src/core/tlog-attestor.js';
import { REPO_ROOT } from './helpers/cli.js';
import { makeKey, tempDir, type TestKey } from './helpers/receipts.js';
import { cleanupDirs } from './state-helpers.js';

const PROGRAM = join(REPO_ROOT, 'attestors', 'tlog-note.mjs');
const ORIGIN = 'example.com/governed-log';
let dir: string;
let key: TestKey;
let good: Record<string, unknown>;

beforeAll(() => {
  dir = tempDir('governed-tlog-config-');
  key = makeKey(dir, 'log');
  good = { credential: 'log', kind: TLOG_CHECKPOINT_KIND, key_id: key.keyId, key_ref: key.privateKeyPath, origin: ORIGIN };
});
afterAll(cleanupDirs);

const body = checkpointBody({ origin: ORIGIN, size: 3, root: Buffer.alloc(32, 7) });
const request = `${JSON.stringify({ payloadType: TLOG_CHECKPOINT_PAYLOAD_TYPE, payload: Buffer.from(body).toString('base64') })}\n`;

function sign(configText: string, input = request): { status: number | null; stdout: string; stderr: string } {
  const path = join(dir, `config-${Math.random().toString(16).slice(2)}.json`);
  writeFileSync(path, configText);
  const r = spawnSync(process.execPath, [PROGRAM, path], { input, encoding: 'utf8', env: {} });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the tlog-checkpoint attestor config: one schema, refused whole by the pinned program', () => {
  it('a config of exactly the shape signs the checkpoint body, verifiable under the key (positive control)', () => {
    const r = sign(JSON.stringify(good));
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { keyid: string; sig: string };
    expect(out.keyid).toBe(key.keyId);
    expect(verify(null, Buffer.from(body), createPublicKey(key.publicPem), Buffer.from(out.sig, 'base64'))).toBe(true);
    expect(parseTlogAttestorConfig(good)).toEqual(good);
  });

  const cases: [string, () => string][] = [
    ['an unknown key', () => JSON.stringify({ ...good, extra: 1 })],
    ['an own __proto__ key', () => JSON.stringify(good).replace('{', '{"__proto__":{"x":1},')],
    ['a missing origin', () => JSON.stringify({ ...good, origin: undefined })],
    ['another credential', () => JSON.stringify({ ...good, credential: 'runner' })],
    ['another kind', () => JSON.stringify({ ...good, kind: 'checkpoint' })],
    ['a key id that is not 64 hex', () => JSON.stringify({ ...good, key_id: `${key.keyId.slice(0, 63)}G` })],
    ['a relative key_ref', () => JSON.stringify({ ...good, key_ref: 'keys/log.pem' })],
    ['a NUL in key_ref', () => JSON.stringify({ ...good, key_ref: `${key.privateKeyPath}\u0000x` })],
    ['a key_ref over 4,096 characters', () => JSON.stringify({ ...good, key_ref: `/${'a'.repeat(4096)}` })],
    ['an origin with a space', () => JSON.stringify({ ...good, origin: 'example.com log' })],
    ['an origin with a +', () => JSON.stringify({ ...good, origin: 'example.com+log' })],
    ['an origin as a number', () => JSON.stringify({ ...good, origin: 7 })],
    ['an array', () => JSON.stringify([good])],
  ];
  for (const [what, text] of cases) {
    it(`${what}: exit 3, refused:config_invalid, nothing on stdout; the schema refuses it too`, () => {
      const t = text();
      const r = sign(t);
      expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ status: 3, stdout: '', stderr: 'refused:config_invalid\n' });
      expect(parseTlogAttestorConfig(JSON.parse(t))).toBeNull();
    });
  }

  // The request is the attestor request format of every attestor (src/core/attestor-protocol.ts).
  const payload = Buffer.from(body).toString('base64');
  const requests: [string, unknown, string][] = [
    ['an unknown key', { payloadType: TLOG_CHECKPOINT_PAYLOAD_TYPE, payload, extra: 1 }, 'request_invalid'],
    ['a payload that is not a string', { payloadType: TLOG_CHECKPOINT_PAYLOAD_TYPE, payload: 7 }, 'request_invalid'],
    ['an empty payload', { payloadType: TLOG_CHECKPOINT_PAYLOAD_TYPE, payload: '' }, 'request_invalid'],
    ['a payload type over 200 characters', { payloadType: 'x'.repeat(201), payload }, 'request_invalid'],
    ['another payload type', { payloadType: 'application/vnd.in-toto+json', payload }, 'payload_type'],
    ['a payload that is not canonical base64', { payloadType: TLOG_CHECKPOINT_PAYLOAD_TYPE, payload: `${payload}\n` }, 'request_invalid'],
  ];
  for (const [what, req, code] of requests) {
    it(`a request with ${what}: exit 3, refused:${code}, nothing on stdout`, () => {
      const r = sign(JSON.stringify(good), `${JSON.stringify(req)}\n`);
      expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ status: 3, stdout: '', stderr: `refused:${code}\n` });
    });
  }
});
