// The read-only repository sandbox of non-governed reviewers (runner/repo-sandbox.ts, docs/review-pass.md#review-protocols):
// the reviewer reads the repository and cannot write it, cannot reach the network (with a positive
// control outside, and inside with `network: true`), sees only its fixed environment, is killed at
// its timeout and at its output cap, and runs with no capabilities. Network probes target only
// 127.0.0.1 (a server this test starts): never an outside address.
import { createServer, connect, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRepoSandboxArgs, bwrapUsable, runInRepoSandbox, type RepoSandboxSpec } from '../runner/repo-sandbox.js';
import { scriptedRepo, treeDigest } from './review-pass-helpers.js';
import type { TempRepo } from './helpers/git-repo.js';

// A missing bwrap must fail this suite, never skip it (docs/sandbox.md#the-invocation).
it('bubblewrap is usable on this machine', () => expect(bwrapUsable()).toBe(true));

let repo: TempRepo;
beforeAll(() => {
  repo = scriptedRepo({ 'src/data.txt': 'hello from the repository\n' });
});
afterAll(() => repo.cleanup());

function spec(script: string, over: Partial<RepoSandboxSpec> = {}): RepoSandboxSpec {
  return {
    repoDir: repo.root,
    toolsDir: null,
    argv: ['/usr/bin/node', '-e', script],
    env: {},
    network: false,
    stdin: null,
    promptFile: null,
    timeoutMs: 20_000,
    maxOutputBytes: 1024 * 1024,
    ...over,
  };
}
async function run(script: string, over: Partial<RepoSandboxSpec> = {}): Promise<{ status: string; exitCode: number | null; out: unknown }> {
  const r = await runInRepoSandbox(spec(script, over));
  const text = r.stdout.toString('utf8');
  return { status: r.status, exitCode: r.exitCode, out: text.length > 0 ? JSON.parse(text) : null };
}

describe('argument list (docs/sandbox.md#the-invocation)', () => {
  it('has every isolation flag, the read-only repository, and "--" before the command', () => {
    const args = buildRepoSandboxArgs(spec('1'), { statusFd: 3, promptFd: null });
    for (const flag of ['--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--new-session', '--as-pid-1', '--clearenv']) {
      expect(args).toContain(flag);
    }
    expect(args.join(' ')).toContain('--cap-drop ALL');
    expect(args.join(' ')).toContain(`--ro-bind ${repo.root} /repo`);
    expect(args.join(' ')).toContain('--ro-bind /usr /usr');
    expect(args.join(' ')).toContain('--remount-ro /');
    expect(args).not.toContain('--share-net');
    expect(args).not.toContain('--bind');
    expect(args.indexOf('--')).toBe(args.length - 4);
  });
  it('network: true is the documented egress path: --share-net plus DNS/TLS files only', () => {
    const args = buildRepoSandboxArgs(spec('1', { network: true }), { statusFd: 3, promptFd: null });
    expect(args).toContain('--share-net');
    expect(args.join(' ')).toContain('--ro-bind-try /etc/resolv.conf /etc/resolv.conf');
  });
  it.each([
    ['relative program', { argv: ['node', '-e', '1'] }],
    ['NUL in an argument', { argv: ['/usr/bin/node', 'a\0b'] }],
    ['environment overriding PATH', { env: { PATH: '/tmp' } }],
    ['bad environment name', { env: { 'A-B': 'x' } }],
    ['relative repository path', { repoDir: 'repo' }],
  ])('refuses %s', (_n, over) => {
    expect(() => buildRepoSandboxArgs(spec('1', over as Partial<RepoSandboxSpec>), { statusFd: 3, promptFd: null })).toThrow(RangeError);
  });
});

describe('filesystem', () => {
  it('reads the repository at /repo and cannot write it in any way', async () => {
    const before = treeDigest(repo.root);
    const r = await run(`
      const fs = require('fs');
      const t = (f) => { try { f(); return 'ok'; } catch (e) { return e.code; } };
      console.log(JSON.stringify({
        read: fs.readFileSync('/repo/src/data.txt', 'utf8'),
        cwd: process.cwd(),
        create: t(() => fs.writeFileSync('/repo/new.txt', 'x')),
        append: t(() => fs.appendFileSync('/repo/src/app.js', 'x')),
        mkdir: t(() => fs.mkdirSync('/repo/dir')),
        unlink: t(() => fs.unlinkSync('/repo/src/app.js')),
        rename: t(() => fs.renameSync('/repo/src/app.js', '/repo/src/b.js')),
        chmod: t(() => fs.chmodSync('/repo/src/app.js', 0o777)),
        git: t(() => fs.writeFileSync('/repo/.git/HEAD', 'x')),
        usr: t(() => fs.writeFileSync('/usr/x', 'x')),
        root: t(() => fs.writeFileSync('/x', 'x')),
        tmp: t(() => fs.writeFileSync('/tmp/x', 'x')),
        home: t(() => fs.readdirSync('/root')),
        work: t(() => fs.readdirSync('/work')),
      }));`);
    expect(r.status).toBe('exited');
    expect(r.out).toEqual({
      read: 'hello from the repository\n',
      cwd: '/repo',
      create: 'EROFS',
      append: 'EROFS',
      mkdir: 'EROFS',
      unlink: 'EROFS',
      rename: 'EROFS',
      chmod: 'EROFS',
      git: 'EROFS',
      usr: 'EROFS',
      root: 'EROFS',
      tmp: 'ok',
      home: 'ENOENT',
      work: 'ENOENT',
    });
    expect(treeDigest(repo.root)).toBe(before);
  });
  it('a prompt file is delivered read-only at /prompt/prompt.md; stdin carries the stdin prompt', async () => {
    const r = await run(
      `const fs = require('fs');
       let w; try { fs.writeFileSync('/prompt/prompt.md', 'x'); w = 'ok'; } catch (e) { w = e.code; }
       console.log(JSON.stringify({ file: fs.readFileSync('/prompt/prompt.md', 'utf8'), stdin: fs.readFileSync(0, 'utf8'), write: w }));`,
      { promptFile: Buffer.from('PROMPT-FILE'), stdin: Buffer.from('PROMPT-STDIN') },
    );
    expect(r.out).toEqual({ file: 'PROMPT-FILE', stdin: 'PROMPT-STDIN', write: 'EROFS' });
  });
});

describe('network (positive controls outside and with network: true)', () => {
  let server: Server;
  let port = 0;
  let connections = 0;
  beforeAll(async () => {
    server = createServer((s) => {
      connections++;
      s.on('error', () => undefined);
      s.end('hi');
    });
    await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((res) => server.close(() => res())));

  const probe = (p: number): string => `
    const s = require('net').connect(${p}, '127.0.0.1');
    s.on('connect', () => { console.log(JSON.stringify('connected')); s.destroy(); });
    s.on('error', (e) => console.log(JSON.stringify(e.code)));`;

  it('outside the sandbox the test server is reachable (control)', async () => {
    const before = connections;
    await new Promise<void>((res, rej) => {
      const c = connect(port, '127.0.0.1');
      c.on('error', () => undefined);
      c.on('connect', () => {
        c.destroy();
        res();
      });
      c.once('close', (hadError) => (hadError ? rej(new Error('control connection failed')) : undefined));
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(connections).toBe(before + 1);
  });
  it('a reviewer cannot reach it (own network namespace)', async () => {
    const before = connections;
    const r = await run(probe(port));
    expect(r.out).toBe('ECONNREFUSED');
    expect(connections).toBe(before);
  });
  it('with network: true the same reviewer reaches it (control inside)', async () => {
    const before = connections;
    const r = await run(probe(port), { network: true });
    expect(r.out).toBe('connected');
    await new Promise((res) => setTimeout(res, 50));
    expect(connections).toBe(before + 1);
  });
});

describe('process', () => {
  it('sees only its fixed environment, no capabilities, no new privileges', async () => {
    process.env.GOVERNED_TEST_CANARY = 'canary-7f3a9';
    try {
      const r = await run(
        `const fs = require('fs');
         const st = fs.readFileSync('/proc/self/status', 'utf8');
         console.log(JSON.stringify({
           env: process.env, pid1: fs.readFileSync('/proc/1/environ', 'utf8').split('\\0').filter(Boolean).sort(),
           capEff: /CapEff:\\s*(\\w+)/.exec(st)[1], noNewPrivs: /NoNewPrivs:\\s*(\\d)/.exec(st)[1], pid: process.pid,
         }));`,
        { env: { REVIEW_MODEL: 'm1' } },
      );
      const out = r.out as { env: Record<string, string>; pid1: string[]; capEff: string; noNewPrivs: string; pid: number };
      expect(Object.keys(out.env).sort()).toEqual(['HOME', 'LANG', 'PATH', 'PWD', 'REVIEW_MODEL', 'TMPDIR']);
      expect(out.env.PATH).toBe('/usr/local/bin:/usr/bin:/bin');
      expect(JSON.stringify(out)).not.toContain('canary-7f3a9');
      expect(out.pid).toBe(1); // --as-pid-1: no bwrap process inside to leak its environment
      expect(out.capEff).toBe('0000000000000000');
      expect(out.noNewPrivs).toBe('1');
    } finally {
      delete process.env.GOVERNED_TEST_CANARY;
    }
  });
  it('is killed at its timeout', async () => {
    const t0 = Date.now();
    const r = await runInRepoSandbox(spec('setTimeout(() => {}, 60000)', { timeoutMs: 500 }));
    expect(r.status).toBe('timeout');
    expect(r.exitCode).toBeNull();
    expect(Date.now() - t0).toBeLessThan(5000);
  });
  it('is killed at its output cap, and its output is dropped', async () => {
    const r = await runInRepoSandbox(spec('for (;;) process.stdout.write("x".repeat(65536))', { maxOutputBytes: 100_000 }));
    expect(r.status).toBe('output_cap');
    expect(r.stdout.length).toBe(0);
  });
  it('reports the reviewer\'s exit code; a command that cannot start is a sandbox failure', async () => {
    expect((await runInRepoSandbox(spec('process.exit(3)'))).exitCode).toBe(3);
    const r = await runInRepoSandbox({ ...spec('1'), argv: ['/usr/bin/governed-no-such-program'] });
    expect(r.status).toBe('sandbox_failed');
  });
  it('stderr is drained and never kept', async () => {
    const r = await runInRepoSandbox(spec('process.stderr.write("secret-stderr".repeat(1000)); console.log(1)'));
    expect(r.stderrBytes).toBe(13000);
    expect(JSON.stringify(r)).not.toContain('secret-stderr');
  });
});

describe('governed\'s own tools inside the sandbox', () => {
  it('tsc from /opt/governed/node_modules runs read-only', async () => {
    const { governedToolsDir } = await import('../src/flows/review-pass/index.js');
    const r = await runInRepoSandbox({ ...spec('1'), toolsDir: governedToolsDir(), argv: ['/opt/governed/node_modules/.bin/tsc', '--version'] });
    expect(r.status).toBe('exited');
    expect(r.stdout.toString()).toMatch(/^Version 5\./);
  });
});
