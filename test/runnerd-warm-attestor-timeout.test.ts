// A warm attestor answers in order, one line per request (docs/runnerd.md "Warm attestors"). When a
// request times out (runnerd_attestor_unavailable: its run is ABORTED), the attestor's answer to it
// may still come. That late line belongs to the abandoned request: it must be dropped, never handed
// to the next request in the queue (which would then fail attestor_signature_invalid — and every
// request after it, off by one, while requests keep coming).
import { createHash, generateKeyPairSync } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGovernedError } from '../src/core/errors.js';
import { publicKeyFromSpkiDer } from '../src/core/ed25519.js';
import { WARM_TIMEOUT_MS, WarmAttestor } from '../src/flows/runnerd/warm-attestor.js';
import { REPO_ROOT } from './helpers/cli.js';
import { makeTempDir } from './helpers/temp.js';

const PROGRAM = join(REPO_ROOT, 'test', 'fixtures', 'runnerd', 'slow-first-attestor.mjs');
const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const TYPE = 'application/vnd.in-toto+json';

let dir: string;
let warm: WarmAttestor;
let signer: Parameters<WarmAttestor['signerFor']>[0];

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'signed';
  } catch (e) {
    return isGovernedError(e) ? e.code : String(e);
  }
}

beforeAll(async () => {
  dir = makeTempDir('gvd-rv7-warm-');
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const keyFile = join(dir, 'key.pem');
  writeFileSync(keyFile, privateKey.export({ format: 'pem', type: 'pkcs8' }) as string, { mode: 0o600 });
  const configPath = join(dir, 'reviewer.json');
  const config = Buffer.from(JSON.stringify({ key_ref: keyFile, first_delay_ms: WARM_TIMEOUT_MS + 1500 }));
  writeFileSync(configPath, config);
  const program = readFileSync(PROGRAM);
  warm = new WarmAttestor({
    credential: 'reviewer',
    programPath: PROGRAM,
    configPath,
    programSha256: sha256(program),
    configSha256: sha256(config),
    uid: process.getuid?.() ?? 0,
    gid: process.getgid?.() ?? 0,
  });
  expect(await warm.waitReady(10_000)).toBe(true);
  const key = publicKeyFromSpkiDer(publicKey.export({ format: 'der', type: 'spki' }));
  signer = { credential: 'reviewer', key, program, programSha256: sha256(program), config, configSha256: sha256(config) } as unknown as typeof signer;
}, 30_000);
afterAll(async () => {
  await warm?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a warm attestor answer that comes after its request timed out', () => {
  it('is dropped: the timed-out request is unavailable, the next one gets its own valid signature', async () => {
    const s = warm.signerFor(signer);
    // The first request: answered only after the host's timeout.
    expect(await codeOf(s.sign(TYPE, Buffer.from('first')))).toBe('runnerd_attestor_unavailable');
    // The next request is queued while the late answer to the first is still on its way.
    const second = await s.sign(TYPE, Buffer.from('second'));
    expect(second.keyid).toBe(signer.key.keyId);
    // And the one after it: the queue is back in step.
    const third = await s.sign(TYPE, Buffer.from('third'));
    expect(third.keyid).toBe(signer.key.keyId);
  }, 30_000);
});
