// The warm log attestor (docs/runnerd.md#checkpoints): the committed, pinned attestors/tlog-note.mjs
// in `--serve` mode answers one line per request, still not blind — a request of another kind (an
// in-toto statement, another origin, a body that is not exactly a checkpoint, junk) is refused with
// its code and the process keeps serving; a line over the cap ends it (exit 3). Through the daemon's
// WarmAttestor: a signature comes back only verified over the note body under the pinned key, other
// program/config digests are refused before any request, and a killed attestor is restarted by its
// keeper and signs again; one that cannot start (key unreadable) still ends when its stdin closes.
// Each refusal has its positive control.
import { spawn } from 'node:child_process';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_TOTO_PAYLOAD_TYPE } from '../src/core/dsse.js';
import { publicKeyFromSpkiDer, type PublicKey } from '../src/core/ed25519.js';
import { isGovernedError } from '../src/core/errors.js';
import { checkpointBody } from '../src/core/signed-note.js';
import { TLOG_CHECKPOINT_KIND, TLOG_CHECKPOINT_PAYLOAD_TYPE } from '../src/core/tlog-attestor.js';
import { TLOG_ATTESTOR_REQUEST_MAX_BYTES } from '../src/core/limits.js';
import { WarmAttestor } from '../src/flows/runnerd/warm-attestor.js';
import { REPO_ROOT } from './helpers/cli.js';
import { makeKey, tempDir, type TestKey } from './helpers/receipts.js';
import { cleanupDirs } from './state-helpers.js';

const PROGRAM = join(REPO_ROOT, 'attestors', 'tlog-note.mjs');
const ORIGIN = 'example.com/governed-runnerd';
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
let dir: string;
let key: TestKey;
let other: TestKey;
let configPath: string;
const pub = (k: TestKey): PublicKey => publicKeyFromSpkiDer(createPublicKey(k.publicPem).export({ format: 'der', type: 'spki' }));

beforeAll(() => {
  dir = tempDir('governed-warm-log-');
  key = makeKey(dir, 'log');
  other = makeKey(dir, 'runner');
  configPath = join(dir, 'log.json');
  writeFileSync(configPath, JSON.stringify({ credential: 'log', kind: TLOG_CHECKPOINT_KIND, key_id: key.keyId, key_ref: key.privateKeyPath, origin: ORIGIN }));
});
afterAll(cleanupDirs);

const body = (origin = ORIGIN, size = 3): string => checkpointBody({ origin, size, root: Buffer.alloc(32, 7) });
const req = (payloadType: string, payload: string | Buffer): string => JSON.stringify({ payloadType, payload: Buffer.from(payload).toString('base64') });

/** The serve mode over its pipes: lines in, lines out, and how the process ended. */
function serve(lines: readonly string[]): Promise<{ out: Record<string, unknown>[]; code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [PROGRAM, '--serve', configPath], { stdio: ['pipe', 'pipe', 'pipe'], env: {} });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ out: stdout.trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>), code, stderr }));
    child.stdin.on('error', () => undefined);
    for (const l of lines) child.stdin.write(`${l}\n`);
    child.stdin.end();
  });
}

const codeOf = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
    return 'signed';
  } catch (e) {
    return isGovernedError(e) ? e.code : String(e);
  }
};

describe('tlog-note --serve: one request line, one answer line, each judged whole', () => {
  it('announces itself with its program digest, refuses every request of another kind, keeps serving, and signs a checkpoint body of its origin (positive control)', async () => {
    const statement = JSON.stringify({ _type: 'https://in-toto.io/Statement/v1', subject: [], predicateType: 'https://example.com/x', predicate: {} });
    const r = await serve([
      req(IN_TOTO_PAYLOAD_TYPE, statement),
      req(TLOG_CHECKPOINT_PAYLOAD_TYPE, statement),
      req(TLOG_CHECKPOINT_PAYLOAD_TYPE, body('example.org/another-log')),
      req(TLOG_CHECKPOINT_PAYLOAD_TYPE, `${body()}extension line\n`),
      'not json',
      JSON.stringify({ payloadType: TLOG_CHECKPOINT_PAYLOAD_TYPE, payload: Buffer.from(body()).toString('base64'), extra: 1 }),
      req(TLOG_CHECKPOINT_PAYLOAD_TYPE, body()),
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.out[0]).toEqual({ ready: true, keyid: key.keyId, self: sha(readFileSync(PROGRAM)) });
    expect(r.out.slice(1, 7)).toEqual([
      { refused: 'payload_type' },
      { refused: 'statement_invalid' },
      { refused: 'foreign_kind' },
      { refused: 'statement_invalid' },
      { refused: 'request_invalid' },
      { refused: 'request_invalid' },
    ]);
    const signed = r.out[7] as { keyid: string; sig: string };
    expect(signed.keyid).toBe(key.keyId);
    expect(verify(null, Buffer.from(body()), createPublicKey(key.publicPem), Buffer.from(signed.sig, 'base64'))).toBe(true);
    expect(r.out).toHaveLength(8);
  });

  it('a line over the request cap ends the process (exit 3, refused:request_invalid); the answers before it stand', async () => {
    const r = await serve([req(TLOG_CHECKPOINT_PAYLOAD_TYPE, body()), 'x'.repeat(TLOG_ATTESTOR_REQUEST_MAX_BYTES + 1), req(TLOG_CHECKPOINT_PAYLOAD_TYPE, body())]);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('refused:request_invalid\n');
    expect(r.out.map((o) => Object.keys(o).sort().join(','))).toEqual(['keyid,ready,self', 'keyid,sig']);
  });
});

describe('an attestor that cannot start (its key unreadable) does not outlive its daemon', () => {
  let badConfig: string;
  beforeAll(() => {
    badConfig = join(dir, 'log-nokey.json');
    writeFileSync(badConfig, JSON.stringify({ credential: 'log', kind: TLOG_CHECKPOINT_KIND, key_id: key.keyId, key_ref: join(dir, 'absent', 'key.pem'), origin: ORIGIN }));
  });

  it('serve: stdin closed ends it with 0 (its keeper ends too); stdin open, it exits 1 after its wait, for the keeper to retry (control)', async () => {
    const run = (closeStdin: boolean): Promise<{ code: number | null; stdout: string; stderr: string }> =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [PROGRAM, '--serve', badConfig], { stdio: ['pipe', 'pipe', 'pipe'], env: {} });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        child.on('close', (code) => resolve({ code, stdout, stderr }));
        if (closeStdin) child.stdin.end();
        else setTimeout(() => child.stdin.end(), 5000);
      });
    expect(await run(true)).toEqual({ code: 0, stdout: '', stderr: 'failed\n' });
    expect(await run(false)).toEqual({ code: 1, stdout: '', stderr: 'failed\n' });
  }, 30_000);

  it('WarmAttestor: never ready, and close() returns (the keeper ends) instead of waiting on a restart loop', async () => {
    const warm = new WarmAttestor({
      credential: 'log',
      programPath: PROGRAM,
      configPath: badConfig,
      programSha256: sha(readFileSync(PROGRAM)),
      configSha256: sha(readFileSync(badConfig)),
      uid: process.getuid?.() ?? 0,
      gid: process.getgid?.() ?? 0,
    });
    expect(await warm.waitReady(2500)).toBe(false);
    expect(warm.restarts).toBeGreaterThanOrEqual(1);
    const closed = await Promise.race([warm.close().then(() => 'closed'), new Promise((r) => setTimeout(() => r('still open'), 20_000))]);
    expect(closed).toBe('closed');
  }, 30_000);
});

describe('the daemon side: WarmAttestor.noteSignerFor', () => {
  let warm: WarmAttestor;
  const programSha256 = (): string => sha(readFileSync(PROGRAM));
  const configSha256 = (): string => sha(readFileSync(configPath));
  beforeAll(async () => {
    warm = new WarmAttestor({
      credential: 'log',
      programPath: PROGRAM,
      configPath,
      programSha256: programSha256(),
      configSha256: configSha256(),
      uid: process.getuid?.() ?? 0,
      gid: process.getgid?.() ?? 0,
    });
    expect(await warm.waitReady(15_000)).toBe(true);
  }, 30_000);
  afterAll(async () => {
    await warm?.close();
  });
  const signer = (over: Partial<{ programSha256: string; configSha256: string; key: PublicKey }> = {}) => ({
    credential: 'log',
    programSha256: programSha256(),
    configSha256: configSha256(),
    key: pub(key),
    ...over,
  });

  it('a checkpoint body comes back signed, the signature over the body under the pinned log key (positive control)', async () => {
    const sig = await warm.noteSignerFor(signer())(Buffer.from(body()));
    expect(verify(null, Buffer.from(body()), createPublicKey(key.publicPem), sig)).toBe(true);
  });

  it('another program or config digest than the one it was started with: runnerd_attestor_pin_mismatch, before any request', () => {
    expect(() => warm.noteSignerFor(signer({ programSha256: 'a'.repeat(64) }))).toThrow(expect.objectContaining({ code: 'runnerd_attestor_pin_mismatch' }));
    expect(() => warm.noteSignerFor(signer({ configSha256: 'b'.repeat(64) }))).toThrow(expect.objectContaining({ code: 'runnerd_attestor_pin_mismatch' }));
  });

  it('a body of another kind or origin is refused by the attestor (attestor_refused); a key other than the pinned one is attestor_signature_invalid', async () => {
    const s = warm.noteSignerFor(signer());
    expect(await codeOf(s(Buffer.from(body('example.org/another-log'))))).toBe('attestor_refused');
    expect(await codeOf(s(Buffer.from('{"_type":"https://in-toto.io/Statement/v1"}')))).toBe('attestor_refused');
    expect(await codeOf(warm.noteSignerFor(signer({ key: pub(other) }))(Buffer.from(body())))).toBe('attestor_signature_invalid');
    expect(await codeOf(s(Buffer.from(body())))).toBe('signed');
  });

  it('killed, it is restarted by its keeper after its back-off and signs again', async () => {
    const before = warm.restarts;
    const pids = readFileSync(`/proc/${warm.pid}/task/${warm.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
    expect(pids).toHaveLength(1);
    process.kill(pids[0] as number, 'SIGKILL');
    for (let i = 0; i < 100 && warm.restarts === before; i++) await new Promise((r) => setTimeout(r, 50));
    expect(warm.restarts).toBe(before + 1);
    // While it is down, a request fails closed.
    if (!warm.ready) expect(await codeOf(warm.noteSignerFor(signer())(Buffer.from(body())))).toBe('runnerd_attestor_unavailable');
    expect(await warm.waitReady(15_000)).toBe(true);
    expect(await codeOf(warm.noteSignerFor(signer())(Buffer.from(body('example.com/governed-runnerd', 4))))).toBe('signed');
  }, 30_000);
});
