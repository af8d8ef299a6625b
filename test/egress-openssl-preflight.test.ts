// TLS-terminating mode needs /usr/bin/openssl to make the run's CA (docs/egress.md#tls-terminating-mode).
// The runner names openssl by its absolute path (never PATH: a writer's PATH cannot choose it), so a
// PATH without openssl changes nothing; what can happen is that the binary is absent. This test makes
// it absent for one `review-run` process only — a private mount namespace (`unshare --mount`) in
// which an empty, non-executable file is bind-mounted over /usr/bin/openssl — and asserts the run
// is refused BEFORE the claim: `egress_openssl_unavailable` (exit 2), no log entry, the challenge
// still open, the model endpoint never contacted. Positive control: the very same wrapper without
// the bind mount runs the challenge to a CLEAN receipt. A second loopback server sees zero
// connections throughout.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI, jsonOut, type CliResult } from './helpers/cli.js';
import { makeTestPki, startForbidden, startModelServer, type ModelServer, type TestPki } from './helpers/model-server.js';
import { cleanupDirs, govOk, tempDir } from './state-helpers.js';
import { egressEntry, KEY_ENV, makeModelWorld, REAL_KEY, RELAY, sha256 } from './model-helpers.js';
import { challengeStatus, headSeq, logSince, runArgs, type RunWorld } from './run-helpers.js';

const OPENSSL = '/usr/bin/openssl';
const canRun = process.getuid?.() === 0 && existsSync('/usr/bin/unshare') && existsSync(OPENSSL);

let pki: TestPki;
let server: ModelServer;
let forbidden: ModelServer;
let w: RunWorld;
let empty: string;
/** The challenge the refusal leaves open, which the positive control then runs. */
let refused: string;

/** `review-run --json` in its own mount namespace; with `hideOpenssl`, /usr/bin/openssl is an empty 0644 file there. */
function runInNamespace(challenge: string, hideOpenssl: boolean): Promise<CliResult> {
  const script = hideOpenssl ? '/usr/bin/mount --bind "$0" /usr/bin/openssl && exec "$@"' : 'exec "$@"';
  const child = spawn(
    '/usr/bin/unshare',
    ['--mount', '--propagation', 'private', '--', '/bin/sh', '-c', script, empty, process.execPath, CLI, ...runArgs(w, challenge), '--json', '--home', w.home],
    // PATH without any directory that holds openssl: it must not matter either way.
    { cwd: w.repo.root, env: { PATH: '/nonexistent', NO_COLOR: '1', [KEY_ENV]: REAL_KEY }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

function challenge(): string {
  return govOk(w, ['review-challenge', '--unit', w.unit, '--writer-session', 'agent-1', '--stage', 'development', '--slot', 'claude']).challenge_id as string;
}

describe.skipIf(!canRun)('review-run in TLS-terminating mode without openssl (a private mount namespace)', () => {
  beforeAll(async () => {
    pki = makeTestPki();
    forbidden = await startForbidden();
    server = await startModelServer({ script: () => ({ text: '{"verdict":"CLEAN","findings":[]}' }), tls: pki.leaf });
    const tls = { transport: 'tls', allow_loopback: true, ca: { file: pki.caFile, sha256: sha256(pki.caPem) }, relay: { sha256: [sha256(readFileSync(RELAY))], terminate: true } };
    w = await makeModelWorld(server.port, { relay: true, egress: (p) => egressEntry(p, server.port, tls) });
    empty = join(tempDir('governed-no-openssl-'), 'openssl');
    writeFileSync(empty, '', { mode: 0o644 });
  }, 120_000);
  afterEach(() => {
    expect(forbidden.connections()).toBe(0);
  });
  afterAll(async () => {
    await server?.close();
    await forbidden?.close();
    pki?.cleanup();
    if (empty !== undefined) rmSync(empty, { force: true });
    cleanupDirs();
  });

  it('openssl absent: egress_openssl_unavailable (exit 2) before the claim — nothing logged, the challenge still open, no request sent', async () => {
    const c = challenge();
    refused = c;
    const before = headSeq(w);
    const r = await runInNamespace(c, true);
    const out = jsonOut(r) as { error?: { code: string; ids: string[] }; run_id?: unknown };
    expect({ exit: r.code, code: out.error?.code }).toEqual({ exit: 2, code: 'egress_openssl_unavailable' });
    expect(out.run_id ?? null).toBeNull();
    expect(r.stdout + r.stderr).not.toContain(REAL_KEY);
    expect(logSince(w, before)).toEqual([]);
    expect(headSeq(w)).toBe(before);
    expect(challengeStatus(w, c)).toBe('open');
    expect(server.requests).toHaveLength(0);
    // The binary outside the namespace was never touched.
    expect(readFileSync(OPENSSL).length).toBeGreaterThan(0);
  }, 120_000);

  it('positive control: the challenge left open, the same wrapper with openssl present, runs to CLEAN through the tunnel', async () => {
    const c = refused;
    const r = await runInNamespace(c, false);
    expect(r.code, r.stdout).toBe(0);
    expect(jsonOut(r).verdict).toBe('CLEAN');
    expect(challengeStatus(w, c)).toBe('consumed');
    expect(server.requests.length).toBe(1);
    expect(server.requests[0]!.headers['x-api-key']).toBe(REAL_KEY);
  }, 120_000);
});
