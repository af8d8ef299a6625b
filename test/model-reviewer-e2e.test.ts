// The pinned model reviewer end to end: `review-challenge` → `review-run` (real bwrap, the egress
// sandbox profile, the real broker, the real attestors) → `governed verify` and `audit verify`,
// against a local model server on loopback that scripts each answer and records each prompt, and a
// forbidden loopback server that must see zero connections. Checks: findings → DIRTY with only view
// IDs and closed codes; free text, unknown IDs and paths dropped; an unusable answer is a coded
// ABORTED run, never CLEAN; CLEAN → CLEAN; each planning role's prompt holds its view and never a
// withheld section; a refused request or a dead broker ends the run ABORTED with its egress code;
// the transcript head in the signed receipt is re-derived by verify and audit verify.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { sign as nodeSign } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { encodeEnvelope, IN_TOTO_PAYLOAD_TYPE, pae } from '../src/core/dsse.js';
import { canonicalJson } from '../src/core/canonical.js';
import { rewriteLog } from './audit-helpers.js';
import { jsonOut } from './helpers/cli.js';
import { makeTestPki, startForbidden, startModelServer, type ModelServer, type RecordedRequest } from './helpers/model-server.js';
import { cleanupDirs, CONTEXT_CANARY, FILE_CANARY, gov, govOk, SOURCE_CANARY, tempDir } from './state-helpers.js';
import { egressEntry, makeModelWorld, promptIds, promptOf, REAL_KEY, runModelReview } from './model-helpers.js';
import { errorCode, type RunWorld } from './run-helpers.js';

let server: ModelServer;
let forbidden: ModelServer;
let w: RunWorld;
/** What the server answers next (set per test); receives the recorded request. */
let answer: (req: RecordedRequest) => { text: string } | { raw: (res: import('node:http').ServerResponse) => void } = () => ({ text: '{"verdict":"CLEAN","findings":[]}' });

beforeAll(async () => {
  forbidden = await startForbidden();
  server = await startModelServer({ script: (req) => answer(req) });
  w = await makeModelWorld(server.port);
}, 120_000);
afterEach(() => {
  expect(forbidden.connections()).toBe(0);
});
afterAll(async () => {
  await server.close();
  await forbidden.close();
  cleanupDirs();
});

function challenge(stage: string, slot: string): string {
  return govOk(w, ['review-challenge', '--unit', w.unit, '--writer-session', 'agent-1', '--stage', stage, '--slot', slot]).challenge_id as string;
}

function receiptFile(receiptId: string): string {
  const out = join(tempDir('governed-model-receipt-'), 'receipt.json');
  const r = gov(w, ['receipt', 'show', '--receipt', receiptId, '--out', out, '--json']);
  expect(r.code).toBe(0);
  return out;
}

function predicateOf(file: string): Record<string, unknown> {
  const env = JSON.parse(readFileSync(file, 'utf8')) as { payload: string };
  return (JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8')) as { predicate: Record<string, unknown> }).predicate;
}

function expectNoLeak(r: { stdout: string; stderr: string }): void {
  for (const s of [SOURCE_CANARY, FILE_CANARY, CONTEXT_CANARY, REAL_KEY, 'free text', 'src/export.ts']) {
    expect(r.stdout).not.toContain(s);
    expect(r.stderr).not.toContain(s);
  }
}

describe('review-challenge → review-run → verify with the model reviewer', () => {
  it('findings → DIRTY: only closed codes and view IDs survive; free text, unknown IDs and paths are dropped; the receipt verifies', async () => {
    answer = (req) => {
      const ids = promptIds(promptOf(req.body));
      const dir = ids.find((i) => i.startsWith('DIR-')) as string;
      return {
        text:
          'Here is my review with free text.\n```json\n' +
          JSON.stringify({
            verdict: 'DIRTY',
            findings: [
              { code: 'correctness', class: 'correctness', severity: 'HIGH', refs: [dir, 'NOPE-404', 'src/export.ts'], description: 'free text CANARY', file: 'src/export.ts', line: 3 },
              { code: 'made_up_code', class: 'correctness', severity: 'HIGH', refs: [dir] },
              { code: 'test_gap', class: 'correctness', severity: 'LOW', refs: ['NOPE-1'] },
            ],
          }) +
          '\n```\n',
      };
    };
    const before = server.requests.length;
    const c = challenge('development', 'claude');
    const r = await runModelReview(w, c);
    expectNoLeak(r);
    // A DIRTY receipt exits 9 (docs/commands.md#exit-codes), with its receipt id.
    expect(r.code, r.stdout).toBe(9);
    const out = jsonOut(r);
    expect(out.verdict).toBe('DIRTY');
    // The server saw exactly one request, with the real key and never the phantom's owner mistaken.
    expect(server.requests.length).toBe(before + 1);
    const seen = server.requests[before]!;
    expect(seen.headers['x-api-key']).toBe(REAL_KEY);
    expect(seen.path).toBe('/v1/messages');
    const file = receiptFile(out.receipt_id as string);
    const p = predicateOf(file);
    expect(p.findings).toEqual([{ class: 'correctness', code: 'correctness', refs: [expect.stringMatching(/^DIR-/)], severity: 'HIGH' }]);
    const text = readFileSync(file, 'utf8');
    for (const s of ['NOPE', 'free text', 'made_up_code', REAL_KEY]) expect(Buffer.from(JSON.parse(text).payload, 'base64').toString()).not.toContain(s);
    const egress = p.egress as { provider: string; model: string; transcript: { requests: number; refused: number; records: { outcome: string; request: { sha256: string } }[] } };
    expect(egress.provider).toBe('anthropic');
    expect(egress.model).toBe('claude-test');
    expect(egress.transcript.requests).toBe(1);
    expect(egress.transcript.refused).toBe(0);
    expect(egress.transcript.records[0]!.request.sha256).toBe(createHash('sha256').update(seen.body).digest('hex'));
    const v = gov(w, ['verify', file, '--json']);
    expect(v.code, v.stdout).toBe(0);
  });

  it('CLEAN → CLEAN through the OpenAI-compatible provider (Authorization: Bearer <real key>)', async () => {
    answer = () => ({ text: '{"verdict":"CLEAN","findings":[]}' });
    const before = server.requests.length;
    const r = await runModelReview(w, challenge('development', 'local'));
    expectNoLeak(r);
    expect(r.code, r.stdout).toBe(0);
    expect(jsonOut(r).verdict).toBe('CLEAN');
    const seen = server.requests[before]!;
    expect(seen.path).toBe('/v1/chat/completions');
    expect(seen.headers.authorization).toBe(`Bearer ${REAL_KEY}`);
    expect(JSON.parse(seen.body).model).toBe('local-model');
  });

  it.each([
    ['no JSON at all', 'The code looks fine to me.'],
    ['DIRTY whose every finding names IDs outside the view', '{"verdict":"DIRTY","findings":[{"code":"correctness","class":"correctness","severity":"HIGH","refs":["NOPE-1","src/x.ts"]}]}'],
    ['CLEAN with findings', '{"verdict":"CLEAN","findings":[{"code":"other","class":"release","severity":"INFO","refs":["NOPE-1"]}]}'],
    ['a verdict outside the closed set', '{"verdict":"LGTM","findings":[]}'],
  ])('an unusable answer (%s) is a coded failure: ABORTED, never CLEAN', async (_n, text) => {
    answer = () => ({ text });
    const c = challenge('development', 'claude');
    const r = await runModelReview(w, c);
    expectNoLeak(r);
    expect(r.code).toBe(9);
    expect(errorCode(r).code).toBe('reviewer_exit_nonzero');
    expect(r.stdout).not.toContain('CLEAN');
  });

  it('a provider error status is a coded failure (ABORTED), never CLEAN', async () => {
    answer = () => ({ raw: (res) => { res.writeHead(500); res.end('{"error":"overloaded"}'); } });
    const r = await runModelReview(w, challenge('development', 'claude'));
    expect(r.code).toBe(9);
    expect(errorCode(r).code).toBe('reviewer_exit_nonzero');
  });

  it('each planning role sees only its view: the prompt holds the included sections and never a withheld one', async () => {
    answer = () => ({ text: '{"verdict":"CLEAN","findings":[]}' });
    const seenCanary = { source: 0, file: 0 };
    for (const role of ['source_fidelity', 'baseline_preservation', 'implementation_test', 'authority_release']) {
      const before = server.requests.length;
      const c = challenge('planning', role);
      const bundle = JSON.parse(readFileSync(join(w.home, 'bundles', `${c}.json`), 'utf8')) as { view: { included: string[]; withheld: string[] } };
      const r = await runModelReview(w, c);
      expect(r.code, `${role} ${r.stdout}`).toBe(0);
      const prompt = promptOf(server.requests[before]!.body);
      expect(prompt).toContain(`Role: ${role}`);
      expect(prompt).toContain(`Stage: planning`);
      for (const s of bundle.view.included) expect(prompt).toContain(`### ${s}\n`);
      for (const s of bundle.view.withheld) expect(prompt, `${role} withheld ${s}`).not.toContain(`### ${s}\n`);
      // The canaries live in sections: a withheld section's text never reaches the model.
      if (!bundle.view.included.includes('sources')) expect(prompt, role).not.toContain(SOURCE_CANARY);
      else seenCanary.source++;
      if (!bundle.view.included.includes('current_files')) expect(prompt, role).not.toContain(FILE_CANARY);
      else seenCanary.file++;
    }
    // Positive control: the canary checks can fail — some role does see the source text.
    expect(seenCanary.source).toBeGreaterThan(0);
  });
});

describe('the lane in a real run: refusals and a dead broker end the run ABORTED with their code', () => {
  it('a missing credential is refused before the claim (store unchanged), with a configuration code', async () => {
    const c = challenge('development', 'claude');
    const r = await runModelReview(w, c, {});
    expect(r.code).toBe(2);
    expect(errorCode(r).code).toBe('egress_credential_unavailable');
    // Not claimed: the same challenge still runs once the key is there.
    answer = () => ({ text: '{"verdict":"CLEAN","findings":[]}' });
    expect((await runModelReview(w, c)).code).toBe(0);
  });

  it('a broker killed while the reviewer waits: ABORTED with egress_broker_failed', async () => {
    answer = () => ({
      raw: (res) => {
        // Kill the broker process (found by its private program copy) before answering.
        for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
          try {
            if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('governed-broker-')) process.kill(Number(pid), 'SIGKILL');
          } catch {
            // gone
          }
        }
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{}');
        }, 100);
      },
    });
    const r = await runModelReview(w, challenge('development', 'claude'));
    expect(r.code).toBe(9);
    expect(errorCode(r).code).toBe('egress_broker_failed');
  });

  it('a policy whose endpoint the broker may not dial (TLS to a loopback name without allow_loopback): ABORTED egress_address_refused, nothing reaches the server', async () => {
    const w2 = await makeModelWorld(server.port, { egress: (p) => egressEntry(p, server.port, { transport: 'tls' }) });
    const before = server.connections();
    const c = govOk(w2, ['review-challenge', '--unit', w2.unit, '--writer-session', 'agent-1', '--stage', 'development', '--slot', 'claude']).challenge_id as string;
    const r = await runModelReview(w2, c);
    expect(r.code).toBe(9);
    expect(errorCode(r).code).toBe('egress_address_refused');
    expect(server.connections()).toBe(before);
  });
});


describe('TLS to a self-hosted gateway with a pinned CA', () => {
  it('the CA file pinned by sha256: DIRTY receipt with the upstream certificate fingerprint; a CA whose digest differs is refused before the claim', async () => {
    const pki = makeTestPki();
    const tls = await startModelServer({ script: (req) => ({ text: JSON.stringify({ verdict: 'DIRTY', findings: [{ code: 'test_gap', class: 'correctness', severity: 'MEDIUM', refs: [promptIds(promptOf(req.body))[0]] }] }) }), tls: pki.leaf });
    try {
      const ca = { file: pki.caFile, sha256: createHash('sha256').update(readFileSync(pki.caFile)).digest('hex') };
      const w3 = await makeModelWorld(tls.port, { egress: (p) => egressEntry(p, tls.port, { transport: 'tls', allow_loopback: true, ca }) });
      const issue3 = (): string => govOk(w3, ['review-challenge', '--unit', w3.unit, '--writer-session', 'agent-1', '--stage', 'development', '--slot', 'claude']).challenge_id as string;
      const r = await runModelReview(w3, issue3());
      expect(r.code, r.stdout).toBe(9);
      expect(jsonOut(r).verdict).toBe('DIRTY');
      expect(tls.requests[0]!.headers['x-api-key']).toBe(REAL_KEY);
      const out = join(tempDir('governed-model-tls-'), 'receipt.json');
      expect(gov(w3, ['receipt', 'show', '--receipt', jsonOut(r).receipt_id as string, '--out', out, '--json']).code).toBe(0);
      const p = predicateOf(out) as { egress: { transport: string; transcript: { records: { upstream_cert_sha256: string }[] } } };
      expect(p.egress.transport).toBe('tls');
      const der = new (await import('node:crypto')).X509Certificate(pki.leaf.cert).raw;
      expect(p.egress.transcript.records[0]!.upstream_cert_sha256).toBe(createHash('sha256').update(der).digest('hex'));
      // The CA file changed after the policy pinned it: refused before the claim, the challenge still usable.
      writeFileSync(pki.caFile, readFileSync(pki.caFile, 'utf8') + '\n');
      const c = issue3();
      const bad = await runModelReview(w3, c);
      expect(bad.code).toBe(2);
      expect(errorCode(bad).code).toBe('egress_ca_invalid');
    } finally {
      await tls.close();
      pki.cleanup();
    }
  });
});

describe('transcript tampering is detected by verify and audit verify', () => {
  it('a receipt re-signed with one transcript record changed: predicate_invalid (egress.transcript.head) from both', async () => {
    answer = () => ({ text: '{"verdict":"CLEAN","findings":[]}' });
    const r = await runModelReview(w, challenge('development', 'claude'));
    expect(r.code, r.stdout).toBe(0);
    const receiptId = jsonOut(r).receipt_id as string;
    const file = receiptFile(receiptId);
    const env = JSON.parse(readFileSync(file, 'utf8')) as { payload: string };
    const statement = JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8')) as { predicate: { egress: { transcript: { records: { response: { bytes: number } }[] } } } };
    statement.predicate.egress.transcript.records[0]!.response.bytes += 1;
    const payload = Buffer.from(canonicalJson(statement), 'utf8');
    const sigs = (['reviewer', 'runner'] as const).map((k) => ({ keyid: w.keys[k].keyId, sig: nodeSign(null, pae(IN_TOTO_PAYLOAD_TYPE, payload), w.keys[k].privateKey) }));
    const forged = Buffer.from(JSON.stringify(encodeEnvelope(IN_TOTO_PAYLOAD_TYPE, payload, sigs)));
    const forgedFile = join(tempDir('governed-model-forged-'), 'forged.json');
    writeFileSync(forgedFile, forged);
    const v = gov(w, ['verify', forgedFile, '--json']);
    expect(v.code).toBe(4);
    const rec = (jsonOut(v) as { receipts: { error: { code: string; ids: string[] } }[] }).receipts[0]!;
    expect(rec.error.code).toBe('predicate_invalid');
    expect(rec.error.ids).toContain('egress.transcript.head');
    // Positive control: the untouched receipt verifies.
    expect(gov(w, ['verify', file, '--json']).code).toBe(0);
    // audit verify: the same forged envelope written into the log with every hash recomputed.
    const seq = (readDbSeq(receiptId));
    expect(gov(w, ['audit', 'verify', '--json']).code).toBe(0);
    rewriteLog(w.home, seq, (p) => {
      p.envelope_b64 = forged.toString('base64');
      p.receipt = `sha256:${createHash('sha256').update(payload).digest('hex')}`;
    });
    const a = jsonOut(gov(w, ['audit', 'verify', '--json'])) as { exit: number; failures: { code: string; ids: string[] }[] };
    expect(a.exit).not.toBe(0);
    expect(a.failures.some((f) => f.code === 'predicate_invalid' && f.ids.includes('egress.transcript.head'))).toBe(true);
  });
});

function readDbSeq(receiptId: string): number {
  const db = new Database(join(w.home, 'governed.db'), { readonly: true });
  try {
    const rows = db.prepare("SELECT seq, payload FROM log WHERE type = 'run_receipt'").all() as { seq: number; payload: Buffer }[];
    const row = rows.find((x) => JSON.parse(x.payload.toString('utf8')).receipt === receiptId);
    if (row === undefined) throw new Error('receipt not logged');
    return row.seq;
  } finally {
    db.close();
  }
}

