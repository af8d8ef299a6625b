// Progress through the daemon (docs/runnerd.md#the-socket-protocol, docs/commands.md#progress-on-stderr):
// the built CLI as the writer-side client of `review-run --runner`, against a scripted daemon on a
// real unix socket that writes exactly the lines each case needs. The client asks for progress frames
// only when progress is on, prints a frame's phase in its OWN words, and treats any other line before
// the response (an unknown phase id, a frame carrying text, a frame it never asked for) as a malformed
// answer: `runnerd_answer_invalid`, the daemon's text never on the writer's terminal. The real daemon's
// frames are in test/runnerd-separated.test.ts.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROGRESS_PHASES } from '../src/core/progress.js';
import { CLI } from './helpers/cli.js';
import { makeTempDir } from './helpers/temp.js';

const CHALLENGE = `CHL-${'a'.repeat(32)}`;
const RESULT = { ok: true, verdict: 'CLEAN', run_id: `RUN-${'b'.repeat(32)}`, receipt_id: `sha256:${'c'.repeat(64)}` };
const RESPONSE = { ok: true, exit: 0, json: RESULT, human: `verdict CLEAN\nrun_id ${RESULT.run_id}\nreceipt_id ${RESULT.receipt_id}` };
const INJECTED = 'INJECTED-BY-DAEMON /home/writer/.ssh/id_ed25519';

let dir: string;
let socket: string;
let server: Server;
/** What the scripted daemon writes for the next request, and the requests it received. */
let script: unknown[] = [];
const requests: Record<string, unknown>[] = [];

beforeAll(async () => {
  dir = makeTempDir('gvd-eco4-frames-');
  socket = join(dir, 'runnerd.sock');
  server = createServer((sock) => {
    let buf = '';
    sock.on('data', (c: Buffer) => {
      buf += c.toString('utf8');
      const nl = buf.indexOf('\n');
      if (nl === -1) return;
      requests.push(JSON.parse(buf.slice(0, nl)) as Record<string, unknown>);
      for (const line of script) sock.write(`${typeof line === 'string' ? line : JSON.stringify(line)}\n`);
      sock.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

/** `governed review-run --runner SOCK ...` (async: the scripted daemon lives in this process). */
function client(extra: readonly string[], lines: unknown[]): Promise<{ code: number | null; stdout: string; stderr: string; request: Record<string, unknown> | undefined }> {
  script = lines;
  const before = requests.length;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'review-run', '--challenge', CHALLENGE, '--runner', socket, ...extra], { env: { PATH: '/usr/bin:/bin', NO_COLOR: '1' }, cwd: dir });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr, request: requests[before] }));
  });
}

const errorCode = (stdout: string): string => (JSON.parse(stdout) as { error: { code: string } }).error.code;

describe('review-run --runner progress frames', () => {
  it('positive control: asked with --progress, the daemon\'s phases print in the client\'s words, then the result', async () => {
    const r = await client(['--progress', '--json'], [{ progress: 'load' }, { progress: 'claim' }, { progress: 'review' }, { progress: 'commit', count: 3 }, RESPONSE]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.request).toEqual({ v: 1, op: 'review-run', challenge: CHALLENGE, progress: true });
    const w = PROGRESS_PHASES['review-run'];
    expect(r.stderr).toBe(`governed review-run [1/8] ${w.load}\ngoverned review-run [2/8] ${w.claim}\ngoverned review-run [5/8] ${w.review}\ngoverned review-run [8/8] ${w.commit} 3\n`);
    expect(JSON.parse(r.stdout)).toMatchObject(RESULT);
  });

  it('progress off (piped stderr, no --progress): the request asks for no frames and nothing but the result is printed', async () => {
    const r = await client(['--json'], [RESPONSE]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.request).toEqual({ v: 1, op: 'review-run', challenge: CHALLENGE });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject(RESULT);
  });

  it.each([
    ['a phase id the client\'s table lacks', [{ progress: 'load' }, { progress: 'injected' }, RESPONSE]],
    ['a frame carrying text', [{ progress: 'load', text: INJECTED }, RESPONSE]],
    ['a frame whose count is not a non-negative integer', [{ progress: 'load', count: -1 }, RESPONSE]],
    ['words in place of the phase id', [{ progress: INJECTED }, RESPONSE]],
    ['a raw text line', [INJECTED, RESPONSE]],
  ])('refused: %s makes the answer malformed (runnerd_answer_invalid), the daemon\'s text never printed', async (_name, lines) => {
    const r = await client(['--progress', '--json'], lines);
    expect(r.code).toBe(1);
    expect(errorCode(r.stdout)).toBe('runnerd_answer_invalid');
    for (const leak of [INJECTED, 'injected', 'INJECTED']) {
      expect(r.stderr).not.toContain(leak);
      expect(r.stdout).not.toContain(leak);
    }
    expect(r.stdout).not.toContain(RESULT.receipt_id);
  });

  it('refused: frames the client did not ask for are not skipped (the first line must be the response)', async () => {
    const r = await client(['--json'], [{ progress: 'load' }, RESPONSE]);
    expect(r.code).toBe(1);
    expect(errorCode(r.stdout)).toBe('runnerd_answer_invalid');
    expect(r.stderr).not.toContain('governed review-run [');
  });
});
