// A model reviewer in TLS-terminating mode, end to end (docs/egress.md#tls-terminating-mode):
// `review-challenge` → `review-run` with a policy whose egress entries say `relay: {terminate: true}`
// — the relay profile and loopback-tcp filter allowlisted, the real broker, a per-run CA made by the
// runner — so the pinned model reviewer opens a CONNECT tunnel through the relay (HTTPS_PROXY,
// GOVERNED_EGRESS_TARGET) and speaks TLS to the broker, which re-originates TLS to a local HTTPS
// model server with a pinned test CA; then `governed verify` and `audit verify`. The `local` slot's
// endpoint presents a certificate for another name: ABORTED, no receipt. A second loopback server must
// see zero connections in every test.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { jsonOut } from './helpers/cli.js';
import { makeTestPki, startForbidden, startModelServer, type ModelServer, type TestPki } from './helpers/model-server.js';
import { cleanupDirs, gov, govOk, tempDir } from './state-helpers.js';
import { egressEntry, makeModelWorld, REAL_KEY, RELAY, runModelReview, sha256 } from './model-helpers.js';
import { expectAborted, headSeq, type RunWorld } from './run-helpers.js';

let pki: TestPki;
let server: ModelServer;
let wrongCert: ModelServer;
let forbidden: ModelServer;
let w: RunWorld;
const relaySha = sha256(readFileSync(RELAY));

beforeAll(async () => {
  pki = makeTestPki();
  forbidden = await startForbidden();
  server = await startModelServer({ script: () => ({ text: '{"verdict":"CLEAN","findings":[]}' }), tls: pki.leaf });
  wrongCert = await startModelServer({ script: () => ({ text: '{"verdict":"CLEAN","findings":[]}' }), tls: pki.otherLeaf });
  const tls = { transport: 'tls', allow_loopback: true, ca: { file: pki.caFile, sha256: sha256(pki.caPem) }, relay: { sha256: [relaySha], terminate: true } };
  // claude (anthropic) → the endpoint; local (openai) → an endpoint whose certificate names other.test.
  w = await makeModelWorld(server.port, { relay: true, egress: (p) => (p === 'anthropic' ? egressEntry(p, server.port, tls) : egressEntry(p, wrongCert.port, tls)) });
}, 120_000);
afterEach(() => {
  expect(forbidden.connections()).toBe(0);
});
afterAll(async () => {
  await server.close();
  await wrongCert.close();
  await forbidden.close();
  pki.cleanup();
  cleanupDirs();
});

function challenge(slot: string): string {
  return govOk(w, ['review-challenge', '--unit', w.unit, '--writer-session', 'agent-1', '--stage', 'development', '--slot', slot]).challenge_id as string;
}

describe('review-run in TLS-terminating mode', () => {
  it('CLEAN through CONNECT → broker (run CA) → TLS to the endpoint; the receipt names the run CA and the transcript; verify and audit verify pass', async () => {
    const before = server.requests.length;
    const r = await runModelReview(w, challenge('claude'));
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout + r.stderr).not.toContain(REAL_KEY);
    const out = jsonOut(r);
    expect(out.verdict).toBe('CLEAN');
    expect(server.requests.length).toBe(before + 1);
    expect(server.requests[before]!.headers['x-api-key']).toBe(REAL_KEY);
    const file = join(tempDir('governed-terminate-receipt-'), 'receipt.json');
    expect(gov(w, ['receipt', 'show', '--receipt', out.receipt_id as string, '--out', file, '--json']).code).toBe(0);
    const env = JSON.parse(readFileSync(file, 'utf8')) as { payload: string };
    const predicate = (JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8')) as { predicate: { egress: Record<string, unknown> } }).predicate;
    const egress = predicate.egress as { relay_sha256: string; terminate_ca_sha256: string; transcript: { records: { outcome: string; upstream_cert_sha256: string; tunnel?: true }[] } };
    expect(egress.relay_sha256).toBe(relaySha);
    // A per-run CA (never the endpoint's CA) is named, and the transcript records the endpoint's own certificate.
    expect(egress.terminate_ca_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(egress.terminate_ca_sha256).not.toBe(sha256(new X509Certificate(pki.caPem).raw));
    expect(egress.transcript.records.map((x) => x.outcome)).toEqual(['forwarded']);
    // The pinned model reviewer used the CONNECT tunnel (not the relay's base URL): the signed record says so.
    expect(egress.transcript.records[0]!.tunnel).toBe(true);
    expect(egress.transcript.records[0]!.upstream_cert_sha256).toBe(sha256(new X509Certificate(pki.leaf.cert).raw));
    expect(gov(w, ['verify', file, '--json']).code).toBe(0);
    expect(gov(w, ['audit', 'verify', '--json']).code).toBe(0);
    // The next run has another CA.
    const r2 = await runModelReview(w, challenge('claude'));
    expect(r2.code, r2.stdout).toBe(0);
    const file2 = join(tempDir('governed-terminate-receipt-'), 'receipt.json');
    expect(gov(w, ['receipt', 'show', '--receipt', jsonOut(r2).receipt_id as string, '--out', file2, '--json']).code).toBe(0);
    const p2 = JSON.parse(Buffer.from((JSON.parse(readFileSync(file2, 'utf8')) as { payload: string }).payload, 'base64').toString('utf8')) as { predicate: { egress: { terminate_ca_sha256: string } } };
    expect(p2.predicate.egress.terminate_ca_sha256).not.toBe(egress.terminate_ca_sha256);
  });

  it('an endpoint whose certificate is not for the policy host: ABORTED egress_upstream_failed, no receipt, the endpoint receives no request', async () => {
    const c = challenge('local');
    const before = headSeq(w);
    const r = await runModelReview(w, c);
    expectAborted(w, before, r, 'egress_upstream_failed', 9);
    expect(wrongCert.requests).toHaveLength(0);
  });
});
