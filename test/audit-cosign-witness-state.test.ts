// `governed audit cosign` (docs/audit.md#witnesses) keeps a witness's state file — one schema,
// src/core/witness-state.ts — so that it never cosigns a fork: the same size with another root or a
// smaller size is tlog_fork (4); a state file that is not exactly its format, or names another log,
// is tlog_witness_state_invalid (2). Either way nothing is written and the state is unchanged.
// Positive controls: a first cosignature writes the state; the same checkpoint cosigned again passes.
import { generateKeyPairSync, sign } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishedDefinition } from '../src/core/json-schemas.js';
import { checkpointBody, noteVerifierKey, signatureLine } from '../src/core/signed-note.js';
import { jsonOut, runCli } from './helpers/cli.js';
import { makeKey, tempDir, type TestKey } from './helpers/receipts.js';
import { cleanupDirs } from './state-helpers.js';

const ORIGIN = 'log.example/governed';
let dir: string;
let witness: TestKey;
let logKey: string;
let note: (size: number, rootByte: number) => string;
let n = 0;

beforeAll(() => {
  dir = tempDir('governed-cosign-');
  witness = makeKey(dir, 'witness');
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const pub = publicKey.export({ type: 'spki', format: 'der' }).subarray(-32);
  logKey = noteVerifierKey(ORIGIN, pub);
  note = (size, rootByte) => {
    const body = checkpointBody({ origin: ORIGIN, size, root: Buffer.alloc(32, rootByte) });
    const path = join(dir, `cp-${n++}.note`);
    writeFileSync(path, `${body}\n${signatureLine(ORIGIN, pub, sign(null, Buffer.from(body), privateKey))}`);
    return path;
  };
});
afterAll(cleanupDirs);

function cosign(checkpoint: string, state: string): { code: number | null; out: string; json: Record<string, unknown> } {
  const out = join(dir, `out-${n++}.note`);
  const r = runCli(['audit', 'cosign', '--checkpoint', checkpoint, '--log-key', logKey, '--key', witness.privateKeyPath, '--name', 'witness.example', '--state', state, '--out', out, '--json']);
  return { code: r.code, out, json: jsonOut(r) };
}

describe('audit cosign: the witness state', () => {
  it('a first cosignature writes the state in its published format; the same checkpoint again is cosigned (positive controls)', () => {
    const state = join(dir, 'first.state');
    const cp = note(5, 1);
    const a = cosign(cp, state);
    expect(a.code, JSON.stringify(a.json)).toBe(0);
    expect(existsSync(a.out)).toBe(true);
    const written = JSON.parse(readFileSync(state, 'utf8')) as unknown;
    expect(publishedDefinition('witness-state')?.safeParse(written).success).toBe(true);
    expect(written).toEqual({ format: 'governed/tlog-witness-state', version: 1, origin: ORIGIN, log_key: logKey, size: 5, root: Buffer.alloc(32, 1).toString('base64') });
    const b = cosign(cp, state);
    expect(b.code).toBe(0);
    expect(b.json.previous_size).toBe(5);
  });

  it('a fork — the same size with another root, or a smaller size — is tlog_fork (4): nothing written, the state unchanged', () => {
    const state = join(dir, 'fork.state');
    expect(cosign(note(5, 1), state).code).toBe(0);
    const before = readFileSync(state, 'utf8');
    for (const cp of [note(5, 2), note(4, 1)]) {
      const r = cosign(cp, state);
      expect({ code: r.code, error: (r.json.error as { code: string }).code }).toEqual({ code: 4, error: 'tlog_fork' });
      expect(existsSync(r.out)).toBe(false);
      expect(readFileSync(state, 'utf8')).toBe(before);
    }
  });

  const good = (): Record<string, unknown> => ({ format: 'governed/tlog-witness-state', version: 1, origin: ORIGIN, log_key: logKey, size: 5, root: Buffer.alloc(32, 1).toString('base64') });
  const bad: [string, () => string][] = [
    ['an unknown key', () => JSON.stringify({ ...good(), extra: 1 })],
    ['another version', () => JSON.stringify({ ...good(), version: 2 })],
    ['another format', () => JSON.stringify({ ...good(), format: 'governed/other' })],
    ['a negative size', () => JSON.stringify({ ...good(), size: -1 })],
    ['a fractional size', () => JSON.stringify({ ...good(), size: 1.5 })],
    ['a root of 31 bytes', () => JSON.stringify({ ...good(), root: Buffer.alloc(31, 1).toString('base64') })],
    ['a root that is not canonical base64', () => JSON.stringify({ ...good(), root: `${Buffer.alloc(32, 1).toString('base64').slice(0, 42)}B=` })],
    ['a duplicate key', () => JSON.stringify(good()).replace('"size":5', '"size":5,"size":9')],
    ['an own __proto__ key', () => JSON.stringify(good()).replace('{', '{"__proto__":{"x":1},')],
    ['another origin', () => JSON.stringify({ ...good(), origin: 'other.example/log' })],
    ['another log key', () => JSON.stringify({ ...good(), log_key: `${logKey.slice(0, -4)}AAA=` })],
    ['not JSON', () => '{"format":'],
  ];
  for (const [what, text] of bad) {
    it(`a state file with ${what} is tlog_witness_state_invalid (2): nothing written, the state unchanged`, () => {
      const state = join(dir, `bad-${n++}.state`);
      writeFileSync(state, text());
      const before = readFileSync(state, 'utf8');
      const r = cosign(note(6, 1), state);
      expect({ code: r.code, error: (r.json.error as { code: string }).code }).toEqual({ code: 2, error: 'tlog_witness_state_invalid' });
      expect(existsSync(r.out)).toBe(false);
      expect(readFileSync(state, 'utf8')).toBe(before);
      expect(JSON.stringify(r.json)).not.toContain(ORIGIN);
    });
  }
});
