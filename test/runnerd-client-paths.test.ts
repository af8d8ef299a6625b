// The writer-side client (docs/runnerd.md "The client") ships the working tree as one commit built
// with `git fast-import`. A repository path fast-import cannot take unquoted — one with a newline, or
// one starting with a double quote — is refused with runnerd_path_unsupported and NOTHING is sent:
// skipping it would have the daemon review a tree without that file. A stand-in socket counts what
// reaches it; the same repository without the file does reach it (positive control).
import { execFileSync, spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from './helpers/cli.js';
import { makeTempDir } from './helpers/temp.js';

const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t', HOME: '/nonexistent', PATH: '/usr/bin:/bin' };
const UNIT = `UNIT-${'a'.repeat(32)}`;

let dir: string;
let repo: string;
let socket: string;
let server: Server;
let requests = 0;

function status(): Promise<{ code: number | null; stdout: string }> {
  // Asynchronous: the stand-in server answers in this same process.
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [CLI, 'status', '--unit', UNIT, '--runner', socket, '--json'], { cwd: repo, env: { PATH: '/usr/bin:/bin', NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    c.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    c.on('close', (code) => resolve({ code, stdout }));
  });
}

const codeOf = (stdout: string): string => (JSON.parse(stdout.trim()) as { error: { code: string } }).error.code;

beforeAll(async () => {
  dir = makeTempDir('gvd-sep3-client-');
  repo = join(dir, 'repo');
  execFileSync('git', ['init', '-q', repo], { env: GIT_ENV });
  writeFileSync(join(repo, 'a.ts'), 'export const a = 1;\n');
  execFileSync('git', ['add', '.'], { cwd: repo, env: GIT_ENV });
  execFileSync('git', ['commit', '-qm', 'base'], { cwd: repo, env: GIT_ENV });
  socket = join(dir, 's.sock');
  // A stand-in daemon: counts each request line, answers with a line that is no protocol reply.
  server = createServer((s) => {
    s.on('data', (b: Buffer) => {
      if (b.includes(10)) {
        requests++;
        s.end('not a reply\n');
      }
    });
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(socket, () => r()));
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

describe('runnerd client: a path it cannot name is refused, never skipped', () => {
  for (const [label, name] of [
    ['a newline', 'two\nlines.ts'],
    ['a leading double quote', '"quoted.ts'],
  ] as const) {
    it(`an untracked file with ${label}: runnerd_path_unsupported (exit 2), nothing sent`, async () => {
      const file = join(repo, name);
      writeFileSync(file, 'x\n');
      try {
        const before = requests;
        const r = await status();
        expect({ code: r.code, error: codeOf(r.stdout) }).toEqual({ code: 2, error: 'runnerd_path_unsupported' });
        // The refusal never echoes the path.
        expect(r.stdout).not.toContain('quoted');
        expect(r.stdout).not.toContain('lines.ts');
        expect(requests).toBe(before);
      } finally {
        rmSync(file);
      }
    });
  }

  it('positive control: without such a file the same command sends its request', async () => {
    const before = requests;
    const r = await status();
    // Sent, and the stand-in's answer is no reply: the client says the daemon may have acted.
    expect({ code: r.code, error: codeOf(r.stdout) }).toEqual({ code: 1, error: 'runnerd_answer_invalid' });
    expect(requests).toBe(before + 1);
  });
});
