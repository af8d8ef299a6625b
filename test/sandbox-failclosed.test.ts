// Fail closed (docs/sandbox.md#the-invocation; docs/runner.md#the-run-step-by-step step 4): a missing, non-executable,
// setuid, writable, too old or unusable bwrap, a bwrap/profile/seccomp/reviewer digest not on the
// allowlist, an untrusted interpreter, bad arguments, an unsupported architecture, and a real
// namespace setup failure — each refused with its own code and NOTHING executed: stub bwraps log
// every invocation to a marker file, so "not even `--version` ran" is observable.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareSandbox, runSandboxed, type SandboxRequest } from '../runner/sandbox/run.js';
import { isGovernedError } from '../src/core/errors.js';
import { jsonOut, runCli } from './helpers/cli.js';
import {
  assertToolchain, BWRAP, buildDriver, cleanup, driverRequest, NODE, pidsOfUid, realAllow, sha256, startDriver, tempDir, testLimits, waitFor, writeJob,
} from './sandbox-helpers.js';

const SANDBOX_UID = 64503;
const dirs: string[] = [];
let work: string;
let marks: string;
let driver: string;
const reviewer = Buffer.from('process.stdout.write("REVIEWER-RAN")');
const canary = 'fail-closed-canary-7f3a';

async function codeOf(p: Promise<unknown>): Promise<{ code: string; text: string }> {
  try {
    await p;
  } catch (e) {
    if (isGovernedError(e)) return { code: e.code, text: `${e.message} ${e.ids.join(' ')} ${JSON.stringify(e.toJSON())}` };
    throw e;
  }
  return { code: 'no error', text: '' };
}

/** A bwrap stand-in that logs every invocation (and its uid) to a marker file. */
function stub(name: string, body: string): string {
  const p = join(work, name);
  writeFileSync(p, `#!/bin/sh\necho "$(id -u) $*" >> ${join(marks, name)}\n${body}\n`, { mode: 0o755 });
  chmodSync(p, 0o755);
  writeFileSync(join(marks, name), '');
  chmodSync(join(marks, name), 0o666); // appended to by root (--version) and by the sandbox uid
  return p;
}
const invocations = (name: string): string[] => readFileSync(join(marks, name), 'utf8').split('\n').filter((l) => l !== '');

async function req(over: Partial<SandboxRequest> & { bwrapForAllow?: string } = {}): Promise<SandboxRequest> {
  const allow = await realAllow(sha256(reviewer));
  const extra = over.bwrapForAllow ? [sha256(readFileSync(over.bwrapForAllow))] : [];
  const { bwrapForAllow: _unused, ...rest } = over;
  return {
    allow: { ...allow, bwrapSha256: [...allow.bwrapSha256, ...extra] },
    interpreter: NODE,
    reviewer: { bytes: reviewer },
    bundleBytes: Buffer.from(`{"secret":"${canary}"}`),
    env: { POLICY_TOKEN: canary },
    uid: SANDBOX_UID,
    gid: SANDBOX_UID,
    limits: testLimits(),
    ...rest,
  };
}

beforeAll(async () => {
  assertToolchain();
  work = tempDir('fail');
  dirs.push(work);
  marks = join(work, 'marks');
  mkdirSync(marks);
  chmodSync(marks, 0o777); // stubs run as the sandbox uid
  driver = await buildDriver(work);
}, 60_000);

afterAll(() => cleanup(dirs));

describe('property 17: a bad bwrap is refused and nothing runs', () => {
  it('missing → bwrap_missing', async () => {
    expect((await codeOf(prepareSandbox(await req({ bwrapPath: join(work, 'no-such-bwrap') })))).code).toBe('bwrap_missing');
  });

  it('relative, unnormalized or symlinked path → bwrap_path_invalid', async () => {
    const link = join(work, 'bwrap-link');
    symlinkSync(BWRAP, link);
    for (const bwrapPath of ['bwrap', '/usr/bin/../bin/bwrap', `${BWRAP}/`, link]) {
      expect((await codeOf(prepareSandbox(await req({ bwrapPath })))).code, bwrapPath).toBe('bwrap_path_invalid');
    }
  });

  it('not executable → bwrap_not_executable (even with its digest allowlisted)', async () => {
    const p = join(work, 'bwrap-noexec');
    copyFileSync(BWRAP, p);
    chmodSync(p, 0o644);
    expect((await codeOf(prepareSandbox(await req({ bwrapPath: p, bwrapForAllow: p })))).code).toBe('bwrap_not_executable');
  });

  it('setuid or setgid → bwrap_setuid; writable by group/others → bwrap_insecure_mode', async () => {
    for (const [mode, code] of [[0o4755, 'bwrap_setuid'], [0o2755, 'bwrap_setuid'], [0o775, 'bwrap_insecure_mode'], [0o757, 'bwrap_insecure_mode']] as const) {
      const p = join(work, `bwrap-${mode.toString(8)}`);
      copyFileSync(BWRAP, p);
      chmodSync(p, mode);
      expect((await codeOf(prepareSandbox(await req({ bwrapPath: p, bwrapForAllow: p })))).code, mode.toString(8)).toBe(code);
    }
  });

  it('too old (0.7.1) → bwrap_too_old; unrecognised version → bwrap_unusable; only --version ever ran', async () => {
    const old = stub('bwrap-old', 'echo "bubblewrap 0.7.1"; exit 0');
    expect((await codeOf(prepareSandbox(await req({ bwrapPath: old, bwrapForAllow: old })))).code).toBe('bwrap_too_old');
    expect(invocations('bwrap-old')).toEqual(['0 --version']);
    const odd = stub('bwrap-odd', 'echo "firejail 0.9"; exit 0');
    expect((await codeOf(prepareSandbox(await req({ bwrapPath: odd, bwrapForAllow: odd })))).code).toBe('bwrap_unusable');
    expect(invocations('bwrap-odd')).toEqual(['0 --version']);
  });

  it('a bwrap that fails to set up the sandbox (stub exiting 1) → sandbox_setup_failed, no reviewer output', async () => {
    const failing = stub('bwrap-fails', 'if [ "$1" = "--version" ]; then echo "bubblewrap 0.8.0"; exit 0; fi\necho "bwrap: setting up uid map: Permission denied" >&2; exit 1');
    const r = await codeOf(runSandboxed(await req({ bwrapPath: failing, bwrapForAllow: failing })));
    expect(r.code).toBe('sandbox_setup_failed');
    const calls = invocations('bwrap-fails');
    expect(calls[0]).toBe('0 --version');
    expect(calls[1]).toMatch(new RegExp(`^${SANDBOX_UID} --unshare-all `)); // spawned as the sandbox uid
    expect(calls.length).toBe(2);
  });

  it('a REAL namespace setup failure (user namespaces exhausted) → sandbox_setup_failed', async () => {
    // The governed side runs in a user namespace whose max_user_namespaces is 0 (ids mapped 1:1,
    // so root-owned files stay root-owned): real bwrap then cannot create its namespace.
    const fifo = join(work, 'go.fifo');
    const job = writeJob(work, 'job-nsfail.json', driverRequest({
      allow: await realAllow(sha256(reviewer)),
      reviewerB64: reviewer.toString('base64'),
      bundleB64: Buffer.from('{}').toString('base64'),
      uid: SANDBOX_UID,
      gid: SANDBOX_UID,
    }));
    execFileSync('/usr/bin/mkfifo', [fifo]);
    const inner = `echo 0 > /proc/sys/user/max_user_namespaces && exec ${NODE} ${driver} ${job}`;
    const child = spawn('/usr/bin/unshare', ['--user', '/bin/sh', '-c', `read x < ${fifo}; exec /bin/sh -c '${inner}'`], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin' } });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.resume();
    const own = readlinkSync('/proc/self/ns/user');
    expect(await waitFor(() => { try { return readlinkSync(`/proc/${child.pid}/ns/user`) !== own; } catch { return false; } }, 5000)).toBe(true);
    writeFileSync(`/proc/${child.pid}/uid_map`, '0 0 65536\n');
    writeFileSync(`/proc/${child.pid}/gid_map`, '0 0 65536\n');
    writeFileSync(fifo, 'go\n');
    await new Promise((r) => child.on('close', r));
    const events = out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events).toEqual([expect.objectContaining({ event: 'error', code: 'sandbox_setup_failed' })]);
    expect(out).not.toContain('REVIEWER-RAN');
  });
});

describe('allowlists: nothing is executed unless every digest is on the policy allowlist', () => {
  let probe: string;
  beforeAll(() => {
    probe = stub('bwrap-probe', 'if [ "$1" = "--version" ]; then echo "bubblewrap 0.8.0"; exit 0; fi\nexit 1');
  });

  it('bwrap digest not allowlisted → bwrap_not_allowlisted; the binary was not even asked its version', async () => {
    expect((await codeOf(prepareSandbox(await req({ bwrapPath: probe })))).code).toBe('bwrap_not_allowlisted');
    expect(invocations('bwrap-probe')).toEqual([]);
  });

  it('profile digest not allowlisted → sandbox_profile_not_allowlisted; nothing ran', async () => {
    const r = await req({ bwrapPath: probe, bwrapForAllow: probe });
    expect((await codeOf(prepareSandbox({ ...r, allow: { ...r.allow, profileSha256: ['0'.repeat(64)] } }))).code).toBe('sandbox_profile_not_allowlisted');
    expect(invocations('bwrap-probe')).toEqual([]);
  });

  it('seccomp digest not allowlisted → seccomp_not_allowlisted; nothing ran', async () => {
    const r = await req({ bwrapPath: probe, bwrapForAllow: probe });
    expect((await codeOf(prepareSandbox({ ...r, allow: { ...r.allow, seccompSha256: ['1'.repeat(64)] } }))).code).toBe('seccomp_not_allowlisted');
    expect(invocations('bwrap-probe')).toEqual([]);
  });

  it('pinned reviewer bytes not allowlisted → reviewer_not_allowlisted; nothing ran', async () => {
    const r = await req({ bwrapPath: probe, bwrapForAllow: probe });
    expect((await codeOf(prepareSandbox({ ...r, reviewer: { bytes: Buffer.from('process.stdout.write("EVIL")') } }))).code).toBe('reviewer_not_allowlisted');
    expect(invocations('bwrap-probe')).toEqual([]);
  });

  it('interpreter missing, not a file, or outside /usr → refused; nothing ran', async () => {
    for (const [interpreter, code] of [
      ['/usr/bin/governed-no-such-interpreter', 'sandbox_interpreter_invalid'],
      ['/usr/bin', 'sandbox_interpreter_invalid'],
      ['/tmp/node', 'sandbox_argument_invalid'],
      ['/usr/../tmp/node', 'sandbox_argument_invalid'],
    ] as const) {
      expect((await codeOf(prepareSandbox(await req({ bwrapPath: probe, bwrapForAllow: probe, interpreter })))).code, interpreter).toBe(code);
    }
    expect(invocations('bwrap-probe')).toEqual([]);
  });

  it('bad arguments (reserved env, uid 0, bad limits, allowlist shape) → sandbox_argument_invalid; nothing ran', async () => {
    const cases: Partial<SandboxRequest>[] = [
      { env: { PATH: '/tmp' } },
      { env: { LD_PRELOAD_: canary, 'BAD NAME': canary } as Record<string, string> },
      { uid: 0 },
      { gid: -1 },
      { limits: testLimits({ timeoutMs: 10 }) },
      { allow: { bwrapSha256: ['XYZ'], profileSha256: [], seccompSha256: [], reviewerSha256: sha256(reviewer) } },
      { reviewer: { path: 'relative/reviewer' } },
    ];
    for (const c of cases) {
      const r = await codeOf(prepareSandbox(await req({ bwrapPath: probe, bwrapForAllow: probe, ...c })));
      expect(r.code, JSON.stringify(Object.keys(c))).toBe('sandbox_argument_invalid');
      expect(r.text).not.toContain(canary);
    }
    expect(invocations('bwrap-probe')).toEqual([]);
  });

  it('errors never carry a rejected value: bundle, env values and paths stay out of messages', async () => {
    const r = await codeOf(prepareSandbox(await req({ reviewer: { bytes: Buffer.from(`// ${canary}`) } })));
    expect(r.code).toBe('reviewer_not_allowlisted');
    expect(r.text).not.toContain(canary);
    const missing = await codeOf(prepareSandbox(await req({ bwrapPath: `/nonexistent/${canary}` })));
    expect(missing.code).toBe('bwrap_missing');
    expect(missing.text).not.toContain(canary);
  });
});

describe('unsupported architecture', () => {
  it('any arch but x86_64 → sandbox_arch_unsupported before anything is checked or run', async () => {
    const probe = stub('bwrap-arch', 'if [ "$1" = "--version" ]; then echo "bubblewrap 0.8.0"; exit 0; fi\nexit 1');
    const job = writeJob(work, 'job-arch.json', driverRequest({
      bwrapPath: probe,
      allow: { ...(await realAllow(sha256(reviewer))), bwrapSha256: [sha256(readFileSync(probe))] },
      reviewerB64: reviewer.toString('base64'),
      bundleB64: Buffer.from('{}').toString('base64'),
      uid: SANDBOX_UID,
      gid: SANDBOX_UID,
    }));
    const preload = join(work, 'arm64.mjs');
    writeFileSync(preload, "Object.defineProperty(process, 'arch', { value: 'arm64' });\n");
    // Control: on x86_64 the same job gets past every check and reaches (the stub) bwrap.
    const d = startDriver(driver, job);
    expect(await d.next('result')).toMatchObject({ event: 'error', code: 'sandbox_setup_failed' });
    await d.exited;
    const reached = invocations('bwrap-arch').length;
    expect(reached).toBe(2); // --version, then the sandbox
    const armed = startDriver(driver, job, { nodeArgs: ['--import', preload] });
    const e = await armed.next('error');
    await armed.exited;
    expect(invocations('bwrap-arch').length).toBe(reached);
    expect(e).toMatchObject({ event: 'error', code: 'sandbox_arch_unsupported', exit: 2 });
  });
});

describe('governed sandbox profile refuses the same bwraps (built CLI)', () => {
  it('setuid → exit 6 bwrap_setuid; too old → exit 2 bwrap_too_old; not executable → exit 2', () => {
    const suid = join(work, 'cli-bwrap-suid');
    copyFileSync(BWRAP, suid);
    chmodSync(suid, 0o4755);
    const a = runCli(['sandbox', 'profile', '--json', '--bwrap', suid]);
    expect(a.code).toBe(6);
    expect((jsonOut(a).error as { code: string }).code).toBe('bwrap_setuid');
    const old = stub('cli-bwrap-old', 'echo "bubblewrap 0.6.2"; exit 0');
    const b = runCli(['sandbox', 'profile', '--json', '--bwrap', old]);
    expect(b.code).toBe(2);
    expect((jsonOut(b).error as { code: string }).code).toBe('bwrap_too_old');
    const noexec = join(work, 'cli-bwrap-noexec');
    copyFileSync(BWRAP, noexec);
    chmodSync(noexec, 0o644);
    const c = runCli(['sandbox', 'profile', '--json', '--bwrap', noexec]);
    expect(c.code).toBe(2);
    expect((jsonOut(c).error as { code: string }).code).toBe('bwrap_not_executable');
  });
});

describe('no stray processes', () => {
  it('nothing of the sandbox uid is left running after the refusals', async () => {
    expect(await waitFor(() => pidsOfUid(SANDBOX_UID).length === 0, 5000)).toBe(true);
  });
});
