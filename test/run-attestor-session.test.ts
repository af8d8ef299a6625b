// The attestors started ahead (src/flows/run/attestor-session.ts; docs/formats.md#attestors, docs/runner.md#the-run-step-by-step step 9)
// facing hostile or odd pinned programs. Each program here is what an allowlisted attestor could do;
// the session must return a verified signature or one coded error, within its timeout, and never
// echo what the attestor printed.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { IN_TOTO_PAYLOAD_TYPE } from '../src/core/dsse.js';
import { publicKeyFromRaw } from '../src/core/ed25519.js';
import { isGovernedError } from '../src/core/errors.js';
import { ATTESTOR_TIMEOUT_MS, startAttestor } from '../src/flows/run/attestor-session.js';
import type { PinnedSigner } from '../src/flows/run/pin.js';
import { runPinnedAttestor } from '../runner/attestor-host.js';
import { makeTempDir } from './helpers/temp.js';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
const key = publicKeyFromRaw(raw);
const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const SECRET = 'attestor-stdout-secret-7c1e';

/** An attestor program: reads the request, then `body` (JS) runs with `sig(payloadType, payloadB64)` and `out`. */
function program(body: string): Buffer {
  return Buffer.from(`
import { createPrivateKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const k = createPrivateKey(cfg.pem);
const pae = (t, p) => Buffer.concat([Buffer.from('DSSEv1 ' + Buffer.byteLength(t) + ' ' + t + ' ' + p.length + ' '), p]);
const sig = (t, p) => sign(null, pae(t, p), k).toString('base64');
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  const req = JSON.parse(input);
  const payload = Buffer.from(req.payload, 'base64');
  const out = (o) => process.stdout.write(JSON.stringify(o));
  ${body}
});
`);
}

function signer(body: string): PinnedSigner {
  const p = program(body);
  const config = Buffer.from(JSON.stringify({ pem }));
  return { program: p, programSha256: '', config, configSha256: '', credential: 'reviewer', key } as PinnedSigner;
}

async function attempt(body: string): Promise<{ code: string | null; ms: number; text: string }> {
  const dir = makeTempDir('governed-attestor-session-');
  const a = startAttestor(signer(body), dir);
  const t0 = Date.now();
  try {
    const r = await a.sign(IN_TOTO_PAYLOAD_TYPE, Buffer.from('{"the":"statement"}'));
    expect(r.keyid).toBe(key.keyId);
    return { code: null, ms: Date.now() - t0, text: '' };
  } catch (e) {
    if (!isGovernedError(e)) throw e;
    return { code: e.code, ms: Date.now() - t0, text: JSON.stringify(e.toJSON()) };
  } finally {
    await a.stop();
  }
}

describe('attestor session against hostile pinned programs', () => {
  it('control: an honest attestor signs', async () => {
    expect((await attempt(`out({ keyid: '${key.keyId}', sig: sig(req.payloadType, payload) }); process.exit(0);`)).code).toBeNull();
  });

  it('a valid signature over a DIFFERENT payload → attestor_signature_invalid', async () => {
    const r = await attempt(`out({ keyid: '${key.keyId}', sig: sig(req.payloadType, Buffer.from('other')) });`);
    expect(r.code).toBe('attestor_signature_invalid');
  });

  it('two JSON objects on stdout → attestor_failed, nothing echoed', async () => {
    const r = await attempt(`const o = { keyid: '${key.keyId}', sig: sig(req.payloadType, payload) }; out(o); out({ ...o, note: '${SECRET}' });`);
    expect(r.code).toBe('attestor_failed');
    expect(r.text).not.toContain(SECRET);
  });

  it('exit 0 with a valid signature after 10 MB of stderr → signed (stderr drained, never kept)', async () => {
    const r = await attempt(`
      const chunk = Buffer.alloc(1024 * 1024, 0x41);
      let n = 0;
      const more = () => { while (n < 10) { n++; if (!process.stderr.write(chunk)) return process.stderr.once('drain', more); } out({ keyid: '${key.keyId}', sig: sig(req.payloadType, payload) }); };
      more();`);
    expect(r.code).toBeNull();
  }, 30_000);

  it('exits 0 with a valid signature but leaves a process holding its stdout → a coded result within the timeout, never a hang', async () => {
    // The attestor's own process exits at once; a helper it started (an agent, a daemon) keeps the
    // inherited stdout open for 30 s. Before the fix 'close' waited for that helper: the run hung
    // past the 10 s attestor timeout (the kill hit the already-exited attestor only).
    const r = await attempt(`
      spawn('/bin/sleep', ['30'], { detached: true, stdio: ['ignore', 'inherit', 'inherit'] }).unref();
      out({ keyid: '${key.keyId}', sig: sig(req.payloadType, payload) });
      process.exit(0);`);
    expect(r.ms).toBeLessThan(ATTESTOR_TIMEOUT_MS + 3_000);
    expect(r.code).toBe('attestor_failed');
  }, 90_000);

  it('runner/attestor-host.ts (one-shot, decide attest / audit checkpoint): the same helper → attestor_failed at its timeout', async () => {
    const p = signer(`
      spawn('/bin/sleep', ['30'], { detached: true, stdio: ['ignore', 'inherit', 'inherit'] }).unref();
      out({ keyid: '${key.keyId}', sig: sig(req.payloadType, payload) });
      process.exit(0);`);
    const t0 = Date.now();
    const err = await runPinnedAttestor(p, { expectedKey: key, payloadType: IN_TOTO_PAYLOAD_TYPE, payload: Buffer.from('{}'), timeoutMs: 2_000 }).then(
      () => null,
      (e: unknown) => (isGovernedError(e) ? e.code : String(e)),
    );
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(err).toBe('attestor_failed');
  }, 90_000);
});
