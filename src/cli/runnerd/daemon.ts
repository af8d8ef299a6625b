// `governed runnerd` (docs/runnerd.md): the trusted runner of separated mode, long-lived and out of
// the writer's reach. In order, while still root:
//  1. check every owner and mode of the layout (flows/runnerd/doctor-checks.ts; any finding: refuse);
//  2. load the peer-credential addon (build/peercred.node): the client's uid and pid come from the
//     kernel (SO_PEERCRED), never from the client;
//  3. hash each attestor's program and config (root-owned 0444) and start it warm, under its own
//     uid, the only uid that can read its key (flows/runnerd/warm-attestor.ts);
//  4. bind the socket (root:<writers> 0660 in a root:<writers> 0750 directory);
//  5. drop privileges for good: no supplementary groups, then the governed gid and uid (real,
//     effective and saved); a setuid(0) afterwards must fail, or the daemon exits.
// Then: reap claims a previous daemon left (→ ABORTED, logged), and serve. Each connection carries one
// request line (size-capped, timed), answered with one line; the connection is then closed.
// SIGTERM/SIGINT drain: no new requests (runnerd_draining), running ones finish, attestors are
// closed, exit 0.
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, lstatSync, readFileSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { fail, GovernedError, isGovernedError } from '../../core/errors.js';
import { parseJsonStrict } from '../../core/strict-json.js';
import {
  RUNNERD_MAX_CONNECTIONS,
  RUNNERD_MAX_REQUEST_BYTES,
  RUNNERD_REQUEST_TIMEOUT_MS,
  runnerdRequestSchema,
  type RunnerdResponse,
} from '../../core/runnerd-protocol.js';
import { closeStore, openStore, readProcessIdentity } from '../../store/index.js';
import { RunnerdOwners } from '../../store/runnerd-owners.js';
import { RUNNERD_MAX_BUFFERED_BYTES, RUNNERD_MAX_CONNECTIONS_PER_UID } from '../../core/limits.js';
import { reapAndClean } from '../../flows/run/reap.js';
import { installRoot } from '../../flows/run/locations.js';
import { requireGroup, requireUser } from '../../flows/runnerd/accounts.js';
import { expectedLayout, runnerdDoctorChecks } from '../../flows/runnerd/doctor-checks.js';
import { attestorUidsOf, layoutOf, usersOf, WARM_CREDENTIALS, type RunnerdLayout, type WarmCredential } from '../../flows/runnerd/layout.js';
import { statFact } from '../../flows/runnerd/stat-fact.js';
import { WarmAttestor } from '../../flows/runnerd/warm-attestor.js';
import { SandboxHost, SANDBOX_HOST_READY_MS } from '../../flows/runnerd/sandbox-host.js';
import { prepareEgressSocketDir } from '../../flows/runnerd/sandbox-host-egress.js';
import { prepareSealedDir } from '../../flows/runnerd/sandbox-host-check.js';
import { pinnedSandboxUid } from '../../flows/runnerd/sandbox-uid.js';
import { boundYoungGeneration } from '../../flows/runnerd/young-generation.js';
import { realpathSync } from 'node:fs';
import { dispatch, type DaemonContext, type Peer } from './dispatch.js';
import { daemonCheckpointer } from './daemon-checkpoint.js';
import { withCheckpoint } from '../run-action.js';

export interface RunnerdOptions {
  readonly base: string;
  readonly socket: string;
  readonly user: string;
  readonly writers: string;
  readonly maxRuns: number;
}

type PeerCred = (fd: number) => { pid: number; uid: number; gid: number };

export function loadPeercred(): PeerCred {
  try {
    const req = createRequire(import.meta.url);
    const mod = req(join(installRoot(), 'build', 'peercred.node')) as { peercred?: PeerCred };
    if (typeof mod.peercred !== 'function') throw new Error('no export');
    return mod.peercred;
  } catch (e) {
    return fail('runnerd_peercred_unavailable', [], e);
  }
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

function semaphore(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((r) => waiting.push(r));
    active++;
    try {
      return await fn();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

function unitLocks(): <T>(unit: string, fn: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>();
  return async <T>(unit: string, fn: () => Promise<T>): Promise<T> => {
    const prev = tails.get(unit) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    tails.set(unit, tail);
    try {
      return await next;
    } finally {
      if (tails.get(unit) === tail) tails.delete(unit);
    }
  };
}

function errorReply(e: unknown): RunnerdResponse {
  const err = isGovernedError(e) ? e : new GovernedError('internal_error', { cause: e });
  return { ok: false, error: { code: err.code, exit: err.exit, message: err.message, ids: [...err.ids] } };
}

/** Reap every claim a previous daemon left behind (its process is gone): ABORTED, logged. */
function reapAll(home: string): string[] {
  const store = openStore(home);
  try {
    const units = store.db.prepare("SELECT DISTINCT unit FROM runs WHERE status = 'claimed'").pluck().all() as string[];
    const now = Math.floor(Date.now() / 1000);
    return units.flatMap((u) => reapAndClean(store, now, u));
  } finally {
    closeStore(store);
  }
}

export interface StartedDaemon {
  readonly layout: RunnerdLayout;
  readonly closed: Promise<number>;
}

type Account = ReturnType<typeof requireUser>;
type AttestorAccounts = Record<WarmCredential, Account>;

export async function startRunnerd(o: RunnerdOptions, log: (line: Record<string, unknown>) => void): Promise<StartedDaemon> {
  const { layout, daemon, writers, att } = checkStart(o);
  const peercred = loadPeercred();
  const warm = await startWarmAttestors(layout, att);
  const stopWarm = (): Promise<unknown> => Promise.all(WARM_CREDENTIALS.map((c) => warm[c].close()));
  const { startUid, sandboxHost } = await startSandboxHost(layout, daemon, att, stopWarm);
  const state: ServerState = { conns: new Set(), buffered: 0, perUid: new Map(), draining: false, inflight: 0, ctx: null, checkpoint: async () => null };
  const server = createServer({ allowHalfOpen: false }, (sock) => onConnection(state, peercred, sock));
  await listenOnSocket(server, layout, writers.gid);
  dropPrivileges(daemon.uid, daemon.gid, layout);
  const serving = await startServing(o, layout, daemon.uid, att, warm, startUid, sandboxHost);
  state.checkpoint = serving.checkpoint;
  state.ctx = serving.ctx;
  log({
    ready: true,
    pid: process.pid,
    socket: layout.socket,
    ...serving.ctx.identity,
    sandbox_uid: startUid,
    sandbox_host_pid: sandboxHost?.pid ?? null,
    reaped: serving.reaped,
    checkpoint: { written: serving.started.written, error: serving.started.error === null ? null : serving.started.error.code },
  });
  const closed = drainOnSignals(state, server, () => Promise.all([stopWarm(), sandboxHost?.close()]), () => {
    serving.ctx.owners.close();
    log({ stopped: true });
  });
  return { layout, closed };
}

// Step 1, as root: every owner and mode of the layout as `runnerd doctor` judges it; any finding
// refuses the start (docs/runnerd.md#layout).
function checkStart(o: RunnerdOptions): { layout: RunnerdLayout; daemon: Account; writers: ReturnType<typeof requireGroup>; att: AttestorAccounts } {
  if (process.geteuid?.() !== 0) fail('runnerd_not_root');
  // Its memory over many runs (docs/performance.md#the-daemons-memory-over-many-runs).
  boundYoungGeneration();
  const layout = layoutOf(o.base, o.socket);
  const users = usersOf(o.user, o.writers);
  const daemon = requireUser(users.daemon);
  const writers = requireGroup(users.writersGroup);
  const att = Object.fromEntries(WARM_CREDENTIALS.map((c) => [c, requireUser(users.attestors[c])])) as unknown as AttestorAccounts;
  const findings = runnerdDoctorChecks(
    expectedLayout(layout, { daemonUid: daemon.uid, daemonGid: daemon.gid, attestorUids: attestorUidsOf(att), writersGid: writers.gid }, { socket: false }),
    statFact,
  );
  if (findings.length > 0) fail('runnerd_state_unsafe', findings.map((f) => `${f.path}:${f.problem}`));
  return { layout, daemon, writers, att };
}

// Step 3: the warm attestors, each under its own uid, hashed as they start (docs/runnerd.md#warm-attestors).
async function startWarmAttestors(layout: RunnerdLayout, att: AttestorAccounts): Promise<Record<WarmCredential, WarmAttestor>> {
  const warm = {} as Record<WarmCredential, WarmAttestor>;
  for (const c of WARM_CREDENTIALS) {
    const programPath = join(layout.attestorsDir, `${c}.mjs`);
    const configPath = join(layout.attestorsDir, `${c}.json`);
    warm[c] = new WarmAttestor({
      credential: c,
      programPath,
      configPath,
      programSha256: sha256(readFileSync(programPath)),
      configSha256: sha256(readFileSync(configPath)),
      uid: att[c].uid,
      gid: att[c].gid,
    });
  }
  const ready = await Promise.all(WARM_CREDENTIALS.map((c) => warm[c].waitReady(15_000)));
  if (ready.some((r) => !r)) {
    await Promise.all(WARM_CREDENTIALS.map((c) => warm[c].close()));
    fail('runnerd_attestor_unavailable', WARM_CREDENTIALS.filter((_, i) => !ready[i]));
  }
  return warm;
}

// Step 3b: the sandbox host under the sandbox uid of the policy pinned now (read as the governed
// user: files the store creates stay the governed user's), and the directories its egress and check
// slots use (docs/runnerd.md#the-sandbox-host). A failure stops what started and refuses.
async function startSandboxHost(layout: RunnerdLayout, daemon: Account, att: AttestorAccounts, stopWarm: () => Promise<unknown>): Promise<{ startUid: number | null; sandboxHost: SandboxHost | null }> {
  process.setegid?.(daemon.gid);
  process.seteuid?.(daemon.uid);
  let startUid: number | null;
  try {
    startUid = pinnedSandboxUid(layout.home);
  } finally {
    process.seteuid?.(0);
    process.setegid?.(0);
  }
  if (startUid !== null && [0, daemon.uid, ...WARM_CREDENTIALS.map((c) => att[c].uid)].includes(startUid)) {
    await stopWarm();
    fail('runnerd_sandbox_uid_unsafe', [`uid:${startUid}`]);
  }
  const sandboxHost = startUid === null ? null : new SandboxHost(startUid, startUid, realpathSync(process.argv[1] ?? ''));
  if (sandboxHost !== null && !(await sandboxHost.waitReady(SANDBOX_HOST_READY_MS))) {
    await Promise.all([stopWarm(), sandboxHost.close()]);
    fail('runnerd_sandbox_unavailable', [`uid:${startUid}`]);
  }
  // 3c. the directory the brokers' sockets go in, so egress slots run on the host too
  // (docs/runnerd.md#model-reviewers-and-the-egress-broker): daemon uid, sandbox gid, 0710.
  if (sandboxHost !== null && startUid !== null) {
    try {
      sandboxHost.egressSocketDir = prepareEgressSocketDir(layout.base, daemon.uid, startUid);
      // …and the one check slots' sealed trees go in (docs/runnerd.md#check-slots-on-the-sandbox-host).
      sandboxHost.sealedDir = prepareSealedDir(layout.base, daemon.uid, startUid);
    } catch (e) {
      await Promise.all([stopWarm(), sandboxHost.close()]);
      throw e;
    }
  }
  return { startUid, sandboxHost };
}

// Step 4: the socket, bound before the drop (its directory is root's), root:<writers> 0660
// (docs/runnerd.md#layout).
async function listenOnSocket(server: Server, layout: RunnerdLayout, writersGid: number): Promise<void> {
  try {
    if (lstatSync(layout.socket).isSocket()) unlinkSync(layout.socket);
  } catch {
    // absent
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(layout.socket, () => resolve());
  });
  chownSync(layout.socket, 0, writersGid);
  chmodSync(layout.socket, 0o660);
}

// Step 5: the drop, for good — no supplementary groups, then the governed gid and uid; a setuid(0)
// afterwards must fail, or the daemon exits (docs/runnerd.md#processes-and-users).
function dropPrivileges(uid: number, gid: number, layout: RunnerdLayout): void {
  process.setgroups?.([]);
  process.setgid?.(gid);
  process.setuid?.(uid);
  let regained = false;
  try {
    process.setuid?.(0);
    regained = true;
  } catch {
    regained = false;
  }
  if (regained || process.geteuid?.() !== uid || process.getuid?.() !== uid) {
    process.stderr.write('governed runnerd: the privilege drop did not hold; exiting\n');
    process.exit(1);
  }
  process.env.HOME = layout.stateDir;
  process.env.TMPDIR = layout.tmpDir;
}

// After the drop: the daemon's identity, claims a previous daemon left reaped (→ ABORTED), the
// checkpoint due at start, and the context every request is served with (docs/runnerd.md#reliability,
// docs/runnerd.md#checkpoints).
async function startServing(
  o: RunnerdOptions,
  layout: RunnerdLayout,
  daemonUid: number,
  att: AttestorAccounts,
  warm: Record<WarmCredential, WarmAttestor>,
  startUid: number | null,
  sandboxHost: SandboxHost | null,
): Promise<{ ctx: DaemonContext; reaped: string[]; started: Awaited<ReturnType<ReturnType<typeof daemonCheckpointer>['atStart']>>; checkpoint: ServerState['checkpoint'] }> {
  const me = readProcessIdentity(process.pid);
  const identity = {
    boot_id: me.bootId,
    daemon_pid: me.pid,
    daemon_start_time: String(me.startTime),
    daemon_uid: daemonUid,
    attestor_uids: attestorUidsOf(att),
  };
  const reaped = reapAll(layout.home);
  // Checkpoints sign through the warm log attestor, under the log uid (docs/runnerd.md#checkpoints).
  const checkpoints = daemonCheckpointer(layout.home, layout.attestorsDir, (pinned) => warm.log.noteSignerFor(pinned));
  const started = await checkpoints.atStart();
  const owners = new RunnerdOwners(layout.ownersDb);
  const fixedUids = [0, daemonUid, ...WARM_CREDENTIALS.map((c) => att[c].uid), ...(startUid === null ? [] : [startUid])];
  const ctx: DaemonContext = {
    layout,
    owners,
    // Re-read for every request: the sandbox uid of the policy pinned NOW (and the host's).
    governedUids: () => {
      const now = pinnedSandboxUid(layout.home);
      return new Set([...fixedUids, ...(now === null ? [] : [now])]);
    },
    sandbox: sandboxHost,
    identity,
    signers: (programs) => ({ reviewer: warm.reviewer.signerFor(programs.reviewerSigner), runner: warm.runner.signerFor(programs.runnerSigner) }),
    probeSigner: (pinned) => warm.probe.signerFor(pinned),
    withUnit: unitLocks(),
    withRunSlot: semaphore(o.maxRuns),
  };
  return { ctx, reaped, started, checkpoint: checkpoints.afterRequest };
}

// SIGTERM/SIGINT drain: no new requests (runnerd_draining), running ones finish, then every
// connection, attestor and the sandbox host are closed, exit 0 (docs/runnerd.md#reliability).
function drainOnSignals(state: ServerState, server: Server, stopChildren: () => Promise<unknown>, stopped: () => void): Promise<number> {
  return new Promise<number>((resolve) => {
    const drain = (): void => {
      if (state.draining) return;
      state.draining = true;
      server.close();
      const wait = (): void => {
        if (state.inflight > 0) {
          setTimeout(wait, 50);
          return;
        }
        for (const s of state.conns) s.destroy();
        void stopChildren().then(() => {
          stopped();
          resolve(0);
        });
      };
      wait();
    };
    process.on('SIGTERM', drain);
    process.on('SIGINT', drain);
  });
}

/** What the connections share: the memory the clients can make the daemon hold (request bytes
 * buffered across all connections, connections per client uid; docs/runnerd.md#the-socket-protocol),
 * the drain, the requests in flight, and — once the daemon serves — its context and checkpoint step. */
interface ServerState {
  readonly conns: Set<Socket>;
  buffered: number;
  readonly perUid: Map<number, number>;
  draining: boolean;
  inflight: number;
  ctx: DaemonContext | null;
  checkpoint: () => Promise<Parameters<typeof withCheckpoint>[1] | null>;
}

// One connection: admitted within the bounds, its peer from the kernel, one request line read
// (size-capped, timed) and answered (docs/runnerd.md#the-socket-protocol).
function onConnection(state: ServerState, peercred: PeerCred, sock: Socket): void {
  if (state.conns.size >= RUNNERD_MAX_CONNECTIONS) {
    sock.destroy();
    return;
  }
  state.conns.add(sock);
  sock.on('close', () => state.conns.delete(sock));
  sock.on('error', () => undefined);
  let peer: Peer;
  try {
    const fd = (sock as unknown as { _handle: { fd: number } })._handle.fd;
    peer = peercred(fd);
  } catch {
    sock.destroy();
    return;
  }
  const reply = (r: RunnerdResponse): void => {
    if (!sock.destroyed) sock.end(`${JSON.stringify(r)}\n`);
  };
  const open = (state.perUid.get(peer.uid) ?? 0) + 1;
  state.perUid.set(peer.uid, open);
  sock.on('close', () => {
    const n = (state.perUid.get(peer.uid) ?? 1) - 1;
    if (n === 0) state.perUid.delete(peer.uid);
    else state.perUid.set(peer.uid, n);
  });
  if (open > RUNNERD_MAX_CONNECTIONS_PER_UID) {
    reply(errorReply(new GovernedError('runnerd_busy')));
    setTimeout(() => sock.destroy(), 2000).unref();
    return;
  }
  readRequestLine(state, sock, reply, (text) => void answerRequest(state, peer, sock, text, reply));
}

// The request line: buffered within the connection's and the daemon's caps until its newline, or
// refused (too large, busy, timed out, ended early); what follows the newline is dropped.
function readRequestLine(state: ServerState, sock: Socket, reply: (r: RunnerdResponse) => void, whole: (text: string) => void): void {
  // This connection's share of `buffered`, given back once its request is whole or refused, or it closes.
  let held = 0;
  const release = (): void => {
    state.buffered -= held;
    held = 0;
  };
  sock.on('close', release);
  const timer = setTimeout(() => {
    done = true;
    reply(errorReply(new GovernedError('runnerd_request_timeout')));
    setTimeout(() => sock.destroy(), 2000).unref();
  }, RUNNERD_REQUEST_TIMEOUT_MS);
  const chunks: Buffer[] = [];
  let size = 0;
  let done = false;
  sock.on('data', (chunk: Buffer) => {
    if (done) return;
    const nl = chunk.indexOf(10);
    const adding = nl === -1 ? chunk.length : nl;
    size += adding;
    const refuse = (code: 'runnerd_request_too_large' | 'runnerd_busy'): void => {
      // Refuse, stop buffering (what follows is read and dropped), close shortly after.
      done = true;
      clearTimeout(timer);
      chunks.length = 0;
      release();
      reply(errorReply(new GovernedError(code)));
      setTimeout(() => sock.destroy(), 2000).unref();
    };
    if (size > RUNNERD_MAX_REQUEST_BYTES) return refuse('runnerd_request_too_large');
    if (state.buffered + adding > RUNNERD_MAX_BUFFERED_BYTES) return refuse('runnerd_busy');
    state.buffered += adding;
    held += adding;
    if (nl === -1) {
      chunks.push(chunk);
      return;
    }
    chunks.push(chunk.subarray(0, nl));
    done = true;
    clearTimeout(timer);
    release();
    whole(Buffer.concat(chunks).toString('utf8'));
  });
  sock.on('end', () => {
    if (!done) {
      done = true;
      clearTimeout(timer);
      reply(errorReply(new GovernedError('runnerd_request_invalid')));
    }
  });
}

// One whole request: parsed strictly, dispatched, then the checkpoint its entries made due, and one
// answer line (docs/runnerd.md#the-socket-protocol, docs/runnerd.md#checkpoints).
async function answerRequest(state: ServerState, peer: Peer, sock: Socket, text: string, reply: (r: RunnerdResponse) => void): Promise<void> {
  if (state.draining) return reply(errorReply(new GovernedError('runnerd_draining')));
  let parsed: ReturnType<typeof runnerdRequestSchema.safeParse>;
  try {
    parsed = runnerdRequestSchema.safeParse(parseJsonStrict(text));
  } catch {
    return reply(errorReply(new GovernedError('runnerd_request_invalid')));
  }
  if (!parsed.success || state.ctx === null) return reply(errorReply(new GovernedError('runnerd_request_invalid')));
  state.inflight++;
  try {
    const r = await dispatch(state.ctx, peer, parsed.data, (frame) => {
      if (!sock.destroyed) sock.write(`${JSON.stringify(frame)}\n`);
    });
    // The request's entries are committed: its due checkpoint now (docs/runnerd.md "Checkpoints").
    const cp = await state.checkpoint();
    const result = cp === null ? r.result : withCheckpoint(r.result, cp);
    reply({
      ok: true,
      exit: result.exit,
      json: result.json,
      human: result.human,
      ...(r.diagnostic === undefined ? {} : { diagnostic: { ...r.diagnostic.toJSON(), ids: [...r.diagnostic.ids] } }),
      ...(r.envelope === undefined ? {} : { envelope_b64: r.envelope.toString('base64') }),
      ...(r.presentation === undefined ? {} : { presentation_b64: r.presentation.toString('base64') }),
      ...(r.storeCopy === undefined
        ? {}
        : {
            store_copy: {
              db_gz_b64: r.storeCopy.dbGz.toString('base64'),
              ...(r.storeCopy.checkpoint === null ? {} : { checkpoint: { size: r.storeCopy.checkpoint.size, note_b64: r.storeCopy.checkpoint.note.toString('base64') } }),
            },
          }),
    });
  } catch (e) {
    // A refused request may still have appended (a run recorded ABORTED): its checkpoint too.
    await state.checkpoint().catch(() => null);
    reply(errorReply(e));
  } finally {
    state.inflight--;
  }
}
