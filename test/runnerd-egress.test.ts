// A model reviewer in separated mode (docs/runnerd.md#model-reviewers-and-the-egress-broker): the
// writer runs `review-run` with GOVERNED_RUNNER; the DAEMON loads the API key (a 0600 file owned by
// the daemon's uid), starts the pinned egress broker under its own uid with its socket in the hosted
// directory (`<dir>/egress`: daemon uid, sandbox gid, 0710), and the sandbox host runs the pinned
// model reviewer under the policy's sandbox uid against a real loopback HTTPS model server (a test
// CA pinned by the policy). Real users, real daemon, real bwrap. What this file shows:
//  - the receipt is `trust_mode: separated`, carries the broker's transcript (head, one `forwarded`
//    record with the endpoint's certificate fingerprint), says `uid_separated: true` with the
//    policy's uid, and verifies offline;
//  - the endpoint saw the real key, and the writer's output never contains it;
//  - while the request is in flight, the broker process is the daemon's uid and the reviewer the
//    sandbox uid (the kernel's view); as the writer's uid the broker's /proc environ, its
//    descriptors (its record pipe) and its socket are refused — positive controls: root lists the
//    descriptors, the sandbox uid connects to the socket;
//  - the key file is refused to the writer's uid and to the sandbox uid, read by the daemon's;
//  - a credential file owned by the writer (not the daemon) is refused before the claim
//    (`egress_credential_unavailable`, exit 2, nothing recorded, the challenge still open).
// A second loopback server sees zero connections throughout.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { inspectBwrap } from '../runner/sandbox/bwrap.js';
import { staticProfileSha256 } from '../runner/sandbox/profile.js';
import { seccompBlob } from '../runner/seccomp/index.js';
import { CLI, jsonOut } from './helpers/cli.js';
import { makeTempDir } from './helpers/temp.js';
import { makeTestPki, startForbidden, startModelServer, type ModelServer, type TestPki } from './helpers/model-server.js';
import { egressEntry, MODEL_REVIEWER, REAL_KEY, RELAY, sha256 } from './model-helpers.js';
import { asUser, idsOf, IS_ROOT, makeSepWorld, namesFor, removeSepUsers, root, runAs, startDaemon, type Daemon, type SepWorld } from './runnerd-helpers.js';

const NAMES = namesFor('gvd-m4e');
const SANDBOX_UID = 64521;

/** Everything the test saw of the broker while the endpoint held its request. */
interface InFlight {
  brokerPid: number | null;
  brokerUid: number | null;
  socket: string | null;
  writerReadsEnviron: { code: number | null; stderr: string } | null;
  writerListsFds: { code: number | null; stderr: string } | null;
  rootListsFds: number | null;
  writerConnects: string | null;
  sandboxConnects: string | null;
  reviewerUids: number[];
}

function payloadOf(envelopeB64: string): Record<string, unknown> {
  const envelope = JSON.parse(Buffer.from(envelopeB64, 'base64').toString('utf8')) as { payload: string };
  return (JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as { predicate: Record<string, unknown> }).predicate;
}

function statusOf(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/status`, 'latin1');
  } catch {
    return null;
  }
}

function uidOf(pid: number): number | null {
  const m = /^Uid:\s*(\d+)/m.exec(statusOf(pid) ?? '');
  return m === null ? null : Number(m[1]);
}

const ppidOf = (pid: number): number | null => {
  const m = /^PPid:\s*(\d+)/m.exec(statusOf(pid) ?? '');
  return m === null ? null : Number(m[1]);
};

/** Is `ancestor` among the first few ancestors of `pid`? (Other test files may run brokers and sandboxes at the same time.) */
function descendsFrom(pid: number, ancestor: number): boolean {
  let p: number | null = pid;
  for (let i = 0; i < 6 && p !== null && p > 1; i++) {
    p = ppidOf(p);
    if (p === ancestor) return true;
  }
  return false;
}

const pids = (): number[] => readdirSync('/proc').filter((e) => /^[0-9]+$/.test(e)).map(Number);

/** This daemon's live broker: its child whose argv runs a `governed-broker-*` copy of the pinned program. */
function findBroker(daemonPid: number): number | null {
  for (const pid of pids()) {
    try {
      if (ppidOf(pid) === daemonPid && readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('/governed-broker-')) return pid;
    } catch {
      // gone
    }
  }
  return null;
}

/** The listening broker socket under this daemon's `egress/` directory, from the kernel's table of Unix sockets. */
function brokerSocket(egressDir: string): string | null {
  for (const line of readFileSync('/proc/net/unix', 'latin1').split('\n')) {
    const path = line.trim().split(/\s+/)[7];
    if (path !== undefined && path.startsWith(`${egressDir}/`) && /\/governed-egress-[^/]+\/egress\.sock$/.test(path)) return path;
  }
  return null;
}

describe.skipIf(!IS_ROOT)('runnerd: the egress broker runs on the daemon side', () => {
  let w: SepWorld;
  let d: Daemon;
  let unit: string;
  let pki: TestPki;
  let server: ModelServer;
  let forbidden: ModelServer;
  let side: string;
  let credFile: string;
  let writerCred: string;
  const inFlight: InFlight = { brokerPid: null, brokerUid: null, socket: null, writerReadsEnviron: null, writerListsFds: null, rootListsFds: null, writerConnects: null, sandboxConnects: null, reviewerUids: [] };
  const env = (): Record<string, string> => ({ GOVERNED_RUNNER: w.socket });
  const W1 = NAMES.writer1;

  beforeAll(async () => {
    removeSepUsers(NAMES);
    pki = makeTestPki();
    forbidden = await startForbidden();
    server = await startModelServer({
      // Called while the broker holds the request open: look at it from outside, as root and as the writer.
      script: () => {
        const pid = findBroker(d.child.pid as number);
        inFlight.brokerPid = pid;
        if (pid !== null) {
          inFlight.brokerUid = uidOf(pid);
          const environ = runAs(W1, ['/bin/cat', `/proc/${pid}/environ`]);
          inFlight.writerReadsEnviron = { code: environ.code, stderr: environ.stderr };
          const fds = runAs(W1, ['/bin/ls', `/proc/${pid}/fd`]);
          inFlight.writerListsFds = { code: fds.code, stderr: fds.stderr };
          inFlight.rootListsFds = spawnSync('/bin/ls', [`/proc/${pid}/fd`]).status;
        }
        inFlight.socket = brokerSocket(join(w.base, 'egress'));
        if (inFlight.socket !== null) {
          const probe = `require('net').connect(process.argv[1]).on('connect',()=>{console.log('CONNECTED');process.exit(0)}).on('error',(e)=>{console.log(e.code);process.exit(0)})`;
          inFlight.writerConnects = runAs(W1, [process.execPath, '-e', probe, inFlight.socket]).stdout.trim();
          // Positive control: the sandbox uid (no supplementary group) reaches it.
          const asSandbox = spawnSync('setpriv', ['--reuid', String(SANDBOX_UID), '--regid', String(SANDBOX_UID), '--clear-groups', '--', process.execPath, '-e', probe, inFlight.socket], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
          inFlight.sandboxConnects = asSandbox.stdout.trim();
        }
        // The reviewer (the pinned model program, PID 1 of its sandbox, under this daemon's sandbox host) as the kernel sees it.
        const host = d.ready.sandbox_host_pid as number;
        for (const e of pids()) {
          try {
            if (!/^NSpid:\s*\d+\s+1\s*$/m.test(statusOf(e) ?? '')) continue;
            if (!readFileSync(`/proc/${e}/cmdline`, 'latin1').includes('/opt/reviewer/reviewer')) continue;
          } catch {
            continue;
          }
          if (!descendsFrom(e, host)) continue;
          const u = uidOf(e);
          if (u !== null) inFlight.reviewerUids.push(u);
        }
        return { text: '{"verdict":"CLEAN","findings":[]}' };
      },
      tls: pki.leaf,
    });
    // The operator's files for the egress entry, outside the daemon's layout: a directory only the
    // daemon can enter holds the key; the pinned CA is public.
    side = makeTempDir('gvd-m4e-egress-');
    chmodSync(side, 0o755);
    const caFile = join(side, 'ca.pem');
    copyFileSync(pki.caFile, caFile);
    chmodSync(caFile, 0o444);
    mkdirSync(join(side, 'daemon'), { mode: 0o700 });
    credFile = join(side, 'daemon', 'model.key');
    writeFileSync(credFile, `${REAL_KEY}\n`, { mode: 0o600 });
    writerCred = join(side, 'writer.key');
    writeFileSync(writerCred, `${REAL_KEY}\n`, { mode: 0o600 });
    const bw = await inspectBwrap('/usr/bin/bwrap');
    const reviewerSha = sha256(readFileSync(MODEL_REVIEWER));
    const tls = { transport: 'tls', allow_loopback: true, ca: { file: caFile, sha256: sha256(pki.caPem) } };
    w = await makeSepWorld({
      names: NAMES,
      modes: ['claude', 'mine', 'proxy'],
      reviewerSource: MODEL_REVIEWER,
      policy: {
        stages: { development: { required: false, streak: 2, slots: { claude: 'claude', mine: 'mine', proxy: 'proxy' } } },
        reviewers: {
          claude: { sha256: reviewerSha, interpreter: '/usr/bin/node', env: {}, egress: egressEntry('anthropic', server.port, { ...tls, credential: { file: credFile } }) },
          // The same entry with a key file the writer owns: the daemon must refuse it.
          mine: { sha256: reviewerSha, interpreter: '/usr/bin/node', env: {}, egress: egressEntry('anthropic', server.port, { ...tls, credential: { file: writerCred } }) },
          // TLS-terminating mode behind the relay: the relay's bytes cross to the host in the job too.
          proxy: {
            sha256: reviewerSha,
            interpreter: '/usr/bin/node',
            env: {},
            egress: egressEntry('anthropic', server.port, { ...tls, credential: { file: credFile }, relay: { sha256: [sha256(readFileSync(RELAY))], terminate: true } }),
          },
        },
        sandbox: {
          bwrap_sha256: [bw.sha256],
          profile_sha256: [staticProfileSha256(), staticProfileSha256('egress'), staticProfileSha256('relay')],
          seccomp_sha256: [sha256(seccompBlob()), sha256(seccompBlob('loopback-tcp'))],
          uid: SANDBOX_UID,
          timeout: '60s',
          memory: '2GiB',
          max_output: '64KiB',
          max_bundle: '64MiB',
        },
      },
    });
    const daemon = idsOf(NAMES.daemon);
    chownSync(join(side, 'daemon'), daemon.uid, daemon.gid);
    chownSync(credFile, daemon.uid, daemon.gid);
    const writer = idsOf(W1);
    chownSync(writerCred, writer.uid, writer.gid);
    d = await startDaemon(w);
    const created = asUser(W1, ['unit', 'create', '--contract', w.contractFile, '--baseline', w.baseline, '--json'], { cwd: w.repo.root, env: env() });
    if (created.code !== 0) throw new Error(created.stdout + created.stderr);
    unit = jsonOut(created).unit as string;
    const reg = asUser(W1, ['writer', 'register', '--unit', unit, '--writer-session', 'agent-1', '--json'], { cwd: w.repo.root, env: env() });
    if (reg.code !== 0) throw new Error(reg.stdout + reg.stderr);
  }, 240_000);
  afterEach(() => {
    expect(forbidden.connections()).toBe(0);
  });
  afterAll(async () => {
    await d?.stop();
    await server?.close();
    await forbidden?.close();
    pki?.cleanup();
    removeSepUsers(NAMES);
  });

  const challenge = (slot: string): string => {
    const ch = asUser(W1, ['review-challenge', '--unit', unit, '--writer-session', 'agent-1', '--stage', 'development', '--slot', slot, '--json'], { cwd: w.repo.root, env: env() });
    expect(ch.code, ch.stdout + ch.stderr).toBe(0);
    return jsonOut(ch).challenge_id as string;
  };

  /** The daemon store's log head and one challenge's status (read-only, as root). */
  const storeFacts = (c: string): { seq: number; status: string } => {
    const db = new Database(join(w.home, 'governed.db'), { readonly: true, fileMustExist: true });
    try {
      return {
        seq: db.prepare('SELECT COALESCE(MAX(seq), 0) FROM log').pluck().get() as number,
        status: db.prepare('SELECT status FROM challenges WHERE id = ?').pluck().get(c) as string,
      };
    } finally {
      db.close();
    }
  };

  /** review-run as the writer, in the background (the model server in this process must keep answering). */
  const runAsWriter = (c: string): Promise<{ code: number | null; stdout: string; stderr: string }> => {
    const child = spawn('setpriv', ['--reuid', W1, '--regid', W1, '--init-groups', '--', process.execPath, CLI, 'review-run', '--challenge', c, '--json'], {
      cwd: w.repo.root,
      env: { PATH: '/usr/bin:/bin', GOVERNED_RUNNER: w.socket },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  };

  it('CLEAN through the daemon: the receipt is separated, carries the transcript and says uid_separated true; the endpoint saw the real key, the writer never', async () => {
    const r = await runAsWriter(challenge('claude'));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toContain(REAL_KEY);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.headers['x-api-key']).toBe(REAL_KEY);
    const out = JSON.parse(r.stdout) as { verdict: string; receipt_id: string };
    expect(out.verdict).toBe('CLEAN');
    const shown = asUser(W1, ['receipt', 'show', '--receipt', out.receipt_id, '--json'], { cwd: w.repo.root, env: env() });
    expect(shown.code).toBe(0);
    const p = payloadOf(jsonOut(shown).envelope_b64 as string);
    expect(p.trust_mode).toBe('separated');
    const sep = p.separation as { daemon_uid: number; client_uid: number };
    expect(sep.daemon_uid).toBe(idsOf(NAMES.daemon).uid);
    expect(sep.client_uid).toBe(idsOf(W1).uid);
    // The egress slot is hosted: the reviewer ran under the policy's sandbox uid, not the daemon's.
    expect(p.sandbox).toMatchObject({ uid: SANDBOX_UID, uid_separated: true });
    const egress = p.egress as { broker_sha256: string; host: string; transcript: { head: string; records: { outcome: string; upstream_cert_sha256: string }[] } };
    expect(egress.host).toBe('localhost');
    expect(egress.transcript.head).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(egress.transcript.records.map((x) => x.outcome)).toEqual(['forwarded']);
    expect(egress.transcript.records[0]!.upstream_cert_sha256).toBe(sha256(new X509Certificate(pki.leaf.cert).raw));
    // Offline, by anyone with the trust root and the policy: the signed transcript verifies.
    const file = join(side, 'receipt.json');
    writeFileSync(file, Buffer.from(jsonOut(shown).envelope_b64 as string, 'base64'));
    const v = root(['verify', file, '--trust', w.trustFile, '--policy', w.policyFile, '--json']);
    expect(v.code, v.stdout).toBe(0);
  }, 180_000);

  it('while the request was in flight: the broker was the daemon uid and the reviewer the sandbox uid; as the writer, the broker environ, descriptors and socket were refused (root lists them, the sandbox uid connects)', () => {
    expect(inFlight.brokerPid).not.toBeNull();
    expect(inFlight.brokerUid).toBe(idsOf(NAMES.daemon).uid);
    expect(inFlight.brokerUid).not.toBe(idsOf(W1).uid);
    expect(inFlight.writerReadsEnviron?.code).not.toBe(0);
    expect(inFlight.writerReadsEnviron?.stderr).toMatch(/Permission denied/);
    expect(inFlight.writerListsFds?.code).not.toBe(0);
    expect(inFlight.writerListsFds?.stderr).toMatch(/Permission denied/);
    expect(inFlight.rootListsFds).toBe(0);
    expect(inFlight.socket).not.toBeNull();
    expect(inFlight.writerConnects).toBe('EACCES');
    expect(inFlight.sandboxConnects).toBe('CONNECTED');
    expect(inFlight.reviewerUids.length).toBeGreaterThan(0);
    for (const u of inFlight.reviewerUids) expect(u).toBe(SANDBOX_UID);
  });

  it('the credential file: refused to the writer uid and the sandbox uid (EACCES), read by the daemon uid (positive control)', () => {
    const asWriter = runAs(W1, ['/bin/cat', credFile]);
    expect(asWriter.code).not.toBe(0);
    expect(asWriter.stderr).toMatch(/Permission denied/);
    expect(asWriter.stdout).not.toContain(REAL_KEY);
    // The reviewer's uid, outside its walls, cannot read it either.
    const asSandbox = spawnSync('setpriv', ['--reuid', String(SANDBOX_UID), '--regid', String(SANDBOX_UID), '--clear-groups', '--', '/bin/cat', credFile], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
    expect(asSandbox.status).not.toBe(0);
    expect(asSandbox.stderr).toMatch(/Permission denied/);
    const asDaemon = runAs(NAMES.daemon, ['/bin/cat', credFile]);
    expect(asDaemon.code).toBe(0);
    expect(asDaemon.stdout).toContain(REAL_KEY);
  });

  it('TLS-terminating mode through the host: CLEAN over the CONNECT tunnel, the run CA and the tunnel mark in the separated receipt, uid_separated true', async () => {
    const before = server.requests.length;
    const r = await runAsWriter(challenge('proxy'));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toContain(REAL_KEY);
    expect(server.requests.length).toBe(before + 1);
    expect(server.requests[before]!.headers['x-api-key']).toBe(REAL_KEY);
    const shown = asUser(W1, ['receipt', 'show', '--receipt', (JSON.parse(r.stdout) as { receipt_id: string }).receipt_id, '--json'], { cwd: w.repo.root, env: env() });
    const p = payloadOf(jsonOut(shown).envelope_b64 as string);
    expect(p.trust_mode).toBe('separated');
    expect(p.sandbox).toMatchObject({ uid: SANDBOX_UID, uid_separated: true });
    const egress = p.egress as { relay_sha256: string; terminate_ca_sha256: string; transcript: { records: { outcome: string; tunnel?: true }[] } };
    expect(egress.relay_sha256).toBe(sha256(readFileSync(RELAY)));
    expect(egress.terminate_ca_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(egress.transcript.records.map((x) => [x.outcome, x.tunnel])).toEqual([['forwarded', true]]);
  }, 180_000);

  it("a key file the writer owns is not the daemon's: egress_credential_unavailable (exit 2) before the claim, nothing recorded, nothing sent", async () => {
    const c = challenge('mine');
    const before = server.requests.length;
    const headBefore = storeFacts(c);
    expect(headBefore.status).toBe('open');
    const r = await runAsWriter(c);
    const out = JSON.parse(r.stdout) as { error?: { code: string }; run_id?: unknown };
    expect({ exit: r.code, code: out.error?.code }).toEqual({ exit: 2, code: 'egress_credential_unavailable' });
    expect(out.run_id ?? null).toBeNull();
    expect(server.requests.length).toBe(before);
    // Nothing was claimed or logged: the daemon's store, read as root, is where it was.
    expect(storeFacts(c)).toEqual(headBefore);
  }, 180_000);
});
