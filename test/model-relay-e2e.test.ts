// A model reviewer behind the in-sandbox relay, end to end (docs/egress.md#the-in-sandbox-relay):
// `review-challenge` → `review-run` with a policy whose egress entries say `relay` — the relay
// profile, the loopback-tcp seccomp filter and the pinned relay on the policy's allowlists — the
// real broker forwarding over TLS (a test CA pinned in the entry) to a local HTTPS model server on
// loopback, the real attestors; then `governed verify` and `audit verify`. The pinned model
// reviewer speaks TCP to 127.0.0.1:3128 in that run (GOVERNED_EGRESS_URL), not to the socket. A
// second loopback server must see zero connections in every test.
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { staticProfileSha256 } from '../runner/sandbox/profile.js';
import { seccompBlob } from '../runner/seccomp/index.js';
import { jsonOut } from './helpers/cli.js';
import { makeTestPki, startForbidden, startModelServer, type ModelServer, type TestPki } from './helpers/model-server.js';
import { cleanupDirs, gov, govOk, storeDigest, tempDir } from './state-helpers.js';
import { egressEntry, KEY_ENV, makeModelWorld, REAL_KEY, RELAY, runModelReview, sha256 } from './model-helpers.js';
import { errorCode, type RunWorld } from './run-helpers.js';

let pki: TestPki;
let server: ModelServer;
let forbidden: ModelServer;
let w: RunWorld;
const relaySha = sha256(readFileSync(RELAY));

beforeAll(async () => {
  pki = makeTestPki();
  forbidden = await startForbidden();
  server = await startModelServer({ script: () => ({ text: '{"verdict":"CLEAN","findings":[]}' }), tls: pki.leaf });
  const tls = { transport: 'tls', allow_loopback: true, ca: { file: pki.caFile, sha256: sha256(pki.caPem) }, relay: { sha256: [relaySha] } };
  w = await makeModelWorld(server.port, { relay: true, egress: (p) => egressEntry(p, server.port, tls) });
}, 120_000);
afterEach(() => {
  expect(forbidden.connections()).toBe(0);
});
afterAll(async () => {
  await server.close();
  await forbidden.close();
  pki.cleanup();
  cleanupDirs();
});

function challenge(slot: string): string {
  return govOk(w, ['review-challenge', '--unit', w.unit, '--writer-session', 'agent-1', '--stage', 'development', '--slot', slot]).challenge_id as string;
}

function predicateOf(receiptId: string): { file: string; predicate: Record<string, unknown> } {
  const file = join(tempDir('governed-relay-receipt-'), 'receipt.json');
  expect(gov(w, ['receipt', 'show', '--receipt', receiptId, '--out', file, '--json']).code).toBe(0);
  const env = JSON.parse(readFileSync(file, 'utf8')) as { payload: string };
  return { file, predicate: (JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8')) as { predicate: Record<string, unknown> }).predicate };
}

describe('review-run behind the relay', () => {
  it('CLEAN through relay → broker → TLS for both providers; the receipt names the relay, the relay profile and its filter; verify and audit verify re-derive the transcript', async () => {
    for (const [slot, path, header] of [['claude', '/v1/messages', 'x-api-key'], ['local', '/v1/chat/completions', 'authorization']] as const) {
      const before = server.requests.length;
      const r = await runModelReview(w, challenge(slot));
      expect(r.code, r.stdout).toBe(0);
      expect(r.stdout + r.stderr).not.toContain(REAL_KEY);
      const out = jsonOut(r);
      expect(out.verdict).toBe('CLEAN');
      expect(server.requests.length).toBe(before + 1);
      const seen = server.requests[before]!;
      expect(seen.path).toBe(path);
      expect(seen.headers[header]).toBe(header === 'x-api-key' ? REAL_KEY : `Bearer ${REAL_KEY}`);
      const { file, predicate } = predicateOf(out.receipt_id as string);
      const egress = predicate.egress as { relay_sha256?: string; transport: string; transcript: { requests: number; refused: number; records: { outcome: string; request: { sha256: string }; upstream_cert_sha256: string | null }[] } };
      expect(egress.relay_sha256).toBe(relaySha);
      expect(egress.transport).toBe('tls');
      expect(egress.transcript.requests).toBe(1);
      expect(egress.transcript.refused).toBe(0);
      expect(egress.transcript.records[0]!.outcome).toBe('forwarded');
      expect(egress.transcript.records[0]!.request.sha256).toBe(createHash('sha256').update(seen.body).digest('hex'));
      expect(egress.transcript.records[0]!.upstream_cert_sha256).toMatch(/^[0-9a-f]{64}$/);
      // The relay profile's digest and the loopback-tcp filter's are what the receipt binds.
      const sandbox = predicate.sandbox as { profile_digest: string; seccomp_digest: string };
      expect(sandbox.profile_digest).toBe(`sha256:${staticProfileSha256('relay')}`);
      expect(sandbox.seccomp_digest).toBe(`sha256:${sha256(seccompBlob('loopback-tcp'))}`);
      expect(gov(w, ['verify', file, '--json']).code).toBe(0);
    }
    expect(gov(w, ['audit', 'verify', '--json']).code).toBe(0);
  });

  it('a relay program whose sha256 is not on egress.relay.sha256 is refused before the claim, store unchanged; the pinned one then runs the same challenge', async () => {
    const dir = tempDir('governed-relay-other-');
    const other = join(dir, 'relay.mjs');
    writeFileSync(other, Buffer.concat([readFileSync(RELAY), Buffer.from('\n// changed\n')]));
    const c = challenge('claude');
    const before = storeDigest(w);
    const requests = server.requests.length;
    const r = await runModelReview(w, c, { [KEY_ENV]: REAL_KEY, GOVERNED_EGRESS_RELAY: other });
    expect({ code: errorCode(r).code, exit: r.code }).toEqual({ code: 'egress_relay_not_allowlisted', exit: 2 });
    expect(storeDigest(w)).toBe(before);
    expect(server.requests.length).toBe(requests);
    expect((await runModelReview(w, c)).code).toBe(0);
  });
});
