// Sealed snapshots (docs/sandbox.md#sealed-snapshots, "Check profile"): the reviewed bytes copied
// into a private read-only tree whose manifest digest must be the expected workspace digest, a
// dependency root sealed the same way, re-verification after sealing, and the check profile's walls
// (read-only snapshot and dependency root, /tmp the only writable place, no network) tried from
// inside a real bwrap sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, closeSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { computeWorkspaceManifest } from '../src/workspace/index.js';
import { digestDirectory, makeSealRoot, openSealedDir, removeSealed, sealDirectory, sealWorkspace, verifySealed, type SealedTree } from '../src/workspace/snapshot.js';
import { runSandboxed } from '../runner/sandbox/run.js';
import { staticProfileSha256 } from '../runner/sandbox/profile.js';
import { isGovernedError } from '../src/core/errors.js';
import { realAllow, sha256, testLimits, NODE } from './sandbox-helpers.js';

const scope = { productRoots: ['.'], exclude: ['.governed', 'node_modules'] };
const dirs: string[] = [];
const tmp = (p: string): string => {
  const d = mkdtempSync(join(tmpdir(), `gvd-checks-${p}-`));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) {
    removeSealed(d);
    rmSync(d, { recursive: true, force: true });
  }
});

function codeOf(fn: () => unknown): { code: string; ids: readonly string[] } {
  try {
    fn();
  } catch (e) {
    if (isGovernedError(e)) return { code: e.code, ids: e.ids };
    throw e;
  }
  throw new Error('expected a refusal');
}
async function codeOfAsync(fn: () => Promise<unknown>): Promise<{ code: string; ids: readonly string[] }> {
  try {
    await fn();
  } catch (e) {
    if (isGovernedError(e)) return { code: e.code, ids: e.ids };
    throw e;
  }
  throw new Error('expected a refusal');
}

function project(): string {
  const repo = tmp('repo');
  mkdirSync(join(repo, 'src'));
  mkdirSync(join(repo, 'node_modules', 'dep'), { recursive: true });
  writeFileSync(join(repo, 'src', 'a.js'), 'export const a = 1;\n');
  writeFileSync(join(repo, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
  symlinkSync('src/a.js', join(repo, 'link.js'));
  writeFileSync(join(repo, 'node_modules', 'dep', 'index.js'), 'module.exports = 1;\n');
  return repo;
}

describe('sealWorkspace', () => {
  it('copies exactly the workspace manifest, read-only, with the same digest', async () => {
    const repo = project();
    const work = await computeWorkspaceManifest(repo, scope);
    const into = join(tmp('seal'), 'snapshot');
    const t = await sealWorkspace({ repo, scope, into, expectedDigest: work.digest, mountPoints: ['node_modules'] });
    expect(t.digest).toBe(work.digest);
    expect(t.entries.map((e) => e.path)).toEqual(['link.js', 'run.sh', 'src/a.js']);
    expect(readFileSync(join(into, 'src', 'a.js'), 'utf8')).toBe('export const a = 1;\n');
    expect(statSync(join(into, 'src', 'a.js')).mode & 0o7777).toBe(0o444);
    expect(statSync(join(into, 'run.sh')).mode & 0o7777).toBe(0o555);
    expect(statSync(join(into, 'src')).mode & 0o7777).toBe(0o555);
    // the dependency root is not copied into the snapshot: only its empty mount point
    expect(existsSync(join(into, 'node_modules', 'dep'))).toBe(false);
    verifySealed(t); // positive control
  });

  it('refuses (review_post_launch_drift [workspace]) when the bytes are not the expected digest, leaving nothing', async () => {
    const repo = project();
    const work = await computeWorkspaceManifest(repo, scope);
    writeFileSync(join(repo, 'src', 'a.js'), 'export const a = 2;\n'); // the writer moved on after issuance
    const into = join(tmp('seal'), 'snapshot');
    const e = await codeOfAsync(() => sealWorkspace({ repo, scope, into, expectedDigest: work.digest }));
    expect(e).toEqual({ code: 'review_post_launch_drift', ids: ['workspace'] });
    expect(existsSync(into)).toBe(false);
  });

  it('refuses a mount point that holds workspace files', async () => {
    const repo = project();
    const work = await computeWorkspaceManifest(repo, scope);
    const into = join(tmp('seal'), 'snapshot');
    const e = await codeOfAsync(() => sealWorkspace({ repo, scope, into, expectedDigest: work.digest, mountPoints: ['src'] }));
    expect(e.code).toBe('check_dependency_root_in_workspace');
    expect(existsSync(into)).toBe(false);
  });

  it('verifySealed refuses a snapshot altered after sealing (changed, added, removed, re-moded)', async () => {
    const repo = project();
    const work = await computeWorkspaceManifest(repo, scope);
    const attacks: ((t: SealedTree) => void)[] = [
      (t) => {
        chmodSync(join(t.dir, 'src', 'a.js'), 0o644);
        writeFileSync(join(t.dir, 'src', 'a.js'), 'export const a = 666;\n');
        chmodSync(join(t.dir, 'src', 'a.js'), 0o444);
      },
      (t) => {
        chmodSync(join(t.dir, 'src'), 0o755);
        writeFileSync(join(t.dir, 'src', 'extra.js'), '');
        chmodSync(join(t.dir, 'src'), 0o555);
      },
      (t) => {
        chmodSync(join(t.dir, 'src'), 0o755);
        rmSync(join(t.dir, 'src', 'a.js'));
        chmodSync(join(t.dir, 'src'), 0o555);
      },
      (t) => chmodSync(join(t.dir, 'src', 'a.js'), 0o666),
      (t) => {
        chmodSync(join(t.dir, 'node_modules'), 0o755);
        writeFileSync(join(t.dir, 'node_modules', 'planted.js'), '');
      },
    ];
    for (const attack of attacks) {
      const t = await sealWorkspace({ repo, scope, into: join(tmp('seal'), 'snapshot'), expectedDigest: work.digest, mountPoints: ['node_modules'] });
      verifySealed(t);
      attack(t);
      expect(codeOf(() => verifySealed(t)).code).toBe('snapshot_altered');
    }
  });
});

describe('dependency roots', () => {
  it('digestDirectory equals the digest of the sealed copy; a changed tree is drift [dependency_root]', () => {
    const repo = project();
    const bound = digestDirectory(join(repo, 'node_modules'));
    const t = sealDirectory({ source: join(repo, 'node_modules'), into: join(tmp('dep'), 'deps'), expectedDigest: bound.digest, driftId: 'dependency_root' });
    expect(t.digest).toBe(bound.digest);
    verifySealed(t);
    writeFileSync(join(repo, 'node_modules', 'dep', 'index.js'), 'module.exports = 2;\n');
    const into = join(tmp('dep'), 'deps');
    expect(codeOf(() => sealDirectory({ source: join(repo, 'node_modules'), into, expectedDigest: bound.digest, driftId: 'dependency_root' }))).toEqual({
      code: 'review_post_launch_drift',
      ids: ['dependency_root'],
    });
    expect(existsSync(into)).toBe(false);
  });

  it('refuses a dependency root that is a symlink or missing', () => {
    const repo = project();
    symlinkSync(join(repo, 'node_modules'), join(repo, 'nm-link'));
    expect(codeOf(() => digestDirectory(join(repo, 'nm-link'))).code).toBe('check_dependency_root_invalid');
    expect(codeOf(() => digestDirectory(join(repo, 'absent'))).code).toBe('check_dependency_root_invalid');
  });
});

// The walls of the check profile, from inside: a node program in the real sandbox.
const WALLS = `
import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
const out = {};
const tryW = (p) => { try { writeFileSync(p, 'x'); return 'written'; } catch (e) { return e.code; } };
out.read = readFileSync('/snapshot/src/a.js', 'utf8');
out.dep = readFileSync('/snapshot/node_modules/dep/index.js', 'utf8');
out.ls = readdirSync('/snapshot').sort();
out.snapshot = tryW('/snapshot/src/a.js');
out.snapshotNew = tryW('/snapshot/new.js');
out.dep = [out.dep, tryW('/snapshot/node_modules/dep/index.js')];
out.tmp = tryW('/tmp/scratch.txt');
out.home = process.env.HOME;
out.net = await new Promise((r) => { const s = connect(Number(process.env.PORT), '127.0.0.1'); s.on('connect', () => r('connected')); s.on('error', (e) => r(e.code)); });
process.stdout.write(JSON.stringify(out));
`;

describe('check profile walls', () => {
  let server: Server;
  let connections = 0;
  let port = 0;
  beforeAll(async () => {
    server = createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => server.close());

  it('snapshot and dependency root are read-only, /tmp is writable, the loopback server sees zero connections', async () => {
    const repo = project();
    const work = await computeWorkspaceManifest(repo, scope);
    const priv = makeSealRoot('test');
    dirs.push(priv);
    const snap = await sealWorkspace({ repo, scope, into: join(priv, 'snapshot'), expectedDigest: work.digest, mountPoints: ['node_modules'] });
    const deps = sealDirectory({ source: join(repo, 'node_modules'), into: join(priv, 'deps'), expectedDigest: digestDirectory(join(repo, 'node_modules')).digest, driftId: 'dependency_root' });
    const script = Buffer.from(WALLS);
    const allow = { ...(await realAllow(sha256(script))), profileSha256: [staticProfileSha256('check')] };
    const snapshotFd = openSealedDir(snap);
    const dependencyFd = openSealedDir(deps);
    let r;
    try {
      r = await runSandboxed({
        allow,
        interpreter: NODE,
        reviewer: { bytes: script },
        bundleBytes: Buffer.from('{}'),
        env: { PORT: String(port) },
        uid: 64500,
        gid: 64500,
        limits: testLimits(),
        check: { snapshotFd, dependencyFd, dependencyRoot: 'node_modules' },
      });
    } finally {
      closeSync(snapshotFd);
      closeSync(dependencyFd);
    }
    expect(r.exitCode).toBe(0);
    const out = JSON.parse(r.stdout.toString('utf8')) as Record<string, unknown>;
    expect(out.read).toBe('export const a = 1;\n');
    expect(out.ls).toEqual(['link.js', 'node_modules', 'run.sh', 'src']);
    expect(out.snapshot).toBe('EROFS');
    expect(out.snapshotNew).toBe('EROFS');
    expect(out.dep).toEqual(['module.exports = 1;\n', 'EROFS']);
    expect(out.tmp).toBe('written');
    expect(out.home).toBe('/tmp');
    expect(['EAFNOSUPPORT', 'ENETUNREACH', 'ECONNREFUSED']).toContain(out.net);
    expect(connections).toBe(0);
    verifySealed(snap);
    verifySealed(deps);
  });

  it('positive control: the same program outside the sandbox reaches the loopback server', async () => {
    const { spawnSync } = await import('node:child_process');
    const before = connections;
    spawnSync(NODE, ['--input-type=module', '-e', `import { connect } from 'node:net'; const s = connect(${port}, '127.0.0.1'); s.on('connect', () => process.exit(0)); s.on('error', () => process.exit(1));`], { timeout: 10_000 });
    await new Promise((r) => setTimeout(r, 100));
    expect(connections).toBe(before + 1);
  });

  it('the check profile is refused unless its own digest is allowlisted', async () => {
    const repo = project();
    const work = await computeWorkspaceManifest(repo, scope);
    const snap = await sealWorkspace({ repo, scope, into: join(tmp('priv'), 'snapshot'), expectedDigest: work.digest });
    const script = Buffer.from('process.stdout.write("x")');
    const fd = openSealedDir(snap);
    try {
      const e = await codeOfAsync(() =>
        runSandboxed({
          allow: { bwrapSha256: [], profileSha256: [], seccompSha256: [], reviewerSha256: sha256(script) },
          interpreter: NODE,
          reviewer: { bytes: script },
          bundleBytes: Buffer.from('{}'),
          env: {},
          uid: 64500,
          gid: 64500,
          limits: testLimits(),
          check: { snapshotFd: fd, dependencyFd: null, dependencyRoot: null },
        }),
      );
      expect(e.code).toBe('bwrap_not_allowlisted');
      const real = await realAllow(sha256(script));
      const e2 = await codeOfAsync(() =>
        runSandboxed({
          allow: real, // the reviewer profile's digest only
          interpreter: NODE,
          reviewer: { bytes: script },
          bundleBytes: Buffer.from('{}'),
          env: {},
          uid: 64500,
          gid: 64500,
          limits: testLimits(),
          check: { snapshotFd: fd, dependencyFd: null, dependencyRoot: null },
        }),
      );
      expect(e2.code).toBe('sandbox_profile_not_allowlisted');
    } finally {
      closeSync(fd);
    }
  });
});
