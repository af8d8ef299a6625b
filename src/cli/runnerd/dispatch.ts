// One request of the runnerd protocol (docs/runnerd.md#the-socket-protocol), for one client whose uid and
// pid the KERNEL reported. Each operation runs the very command function co-located mode runs —
// with the daemon's own state directory, its own copy of the content and its own programs — and
// returns that command's result, so the writer-side client prints exactly what co-located mode
// prints. Ownership: a unit belongs to the uid that created it; every operation naming a unit (or a
// lease, challenge or receipt of one) from another uid is refused (runnerd_not_owner) before
// anything is read or written.
import type { RunnerdHelloOutput } from '../../core/command-output-areas.js';
import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fail, GovernedError } from '../../core/errors.js';
import type { RunnerdProgressFrame, RunnerdRequest } from '../../core/runnerd-protocol.js';
import type { ProgressCommand, ProgressSink } from '../../core/progress.js';
import type { Separation } from '../../core/receipt-predicate.js';
import { closeStore, openStore } from '../../store/index.js';
import type { RunnerdOwners } from '../../store/runnerd-owners.js';
import type { CommandResult } from '../output.js';
import { requireChallenge } from '../../flows/run/load-challenge.js';
import { listLeasesFlow } from '../../flows/lease.js';
import { showReceiptFlow } from '../../flows/run/receipt-show.js';
import type { PinnedPrograms } from '../../flows/run/pin.js';
import type { Signers } from '../../flows/run/sign.js';
import type { ProbeSigner } from '../../flows/preservation/probe.js';
import { parentPid, processUid } from '../../flows/runnerd/accounts.js';
import { importContent } from '../../flows/runnerd/content.js';
import type { RunnerdLayout } from '../../flows/runnerd/layout.js';
import { takeStoreCopy, type StoreCopy } from '../../flows/runnerd/store-copy.js';
import type { SandboxHost } from '../../flows/runnerd/sandbox-host.js';
import { assertSandboxHostFor } from './sandbox-gate.js';
import { assertReceiptVisible } from './receipt-visible.js';

export interface Peer {
  readonly uid: number;
  readonly gid: number;
  readonly pid: number;
}

export interface DaemonContext {
  readonly layout: RunnerdLayout;
  readonly owners: RunnerdOwners;
  /** uids that may never be a client: root, the daemon, the attestors, the sandbox (re-read per request). */
  readonly governedUids: () => ReadonlySet<number>;
  /** The sandbox host, under the sandbox uid pinned at daemon start (null: no policy then). */
  readonly sandbox: SandboxHost | null;
  /** Every attestor uid, the probe attestor's too (a daemon of this version always has one). */
  readonly identity: Omit<Separation, 'client_uid' | 'client_pid' | 'attestor_uids'> & { readonly attestor_uids: Required<Separation['attestor_uids']> };
  readonly signers: (programs: PinnedPrograms) => Signers;
  /** The warm probe attestor, under the probe uid (docs/runnerd.md#probes-through-the-daemon). */
  readonly probeSigner: ProbeSigner;
  /** Serialises everything that touches one unit's checkout. */
  readonly withUnit: <T>(unit: string, fn: () => Promise<T>) => Promise<T>;
  /** Bounds parallel review runs. */
  readonly withRunSlot: <T>(fn: () => Promise<T>) => Promise<T>;
}

export interface Reply {
  readonly result: CommandResult;
  readonly diagnostic?: GovernedError;
  readonly envelope?: Buffer;
  readonly storeCopy?: StoreCopy;
  /** authority-request: the presentation bytes for the client's --out. */
  readonly presentation?: Buffer;
}

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

function assertOwner(ctx: DaemonContext, peer: Peer, unit: string): void {
  const owner = ctx.owners.ownerOf(unit);
  // An unknown unit is left to the command (unit_unknown), but only for a unit nobody owns: a unit
  // created before the daemon (co-located) has no owner and no client may touch it.
  if (owner === null) {
    const store = openStore(ctx.layout.home);
    let exists = false;
    try {
      exists = store.db.prepare('SELECT 1 FROM units WHERE id = ?').pluck().get(unit) !== undefined;
    } finally {
      closeStore(store);
    }
    if (exists) fail('runnerd_not_owner', [unit]);
    return;
  }
  if (owner !== peer.uid) fail('runnerd_not_owner', [unit]);
}

/** Stricter: the unit must exist and be the caller's (unit_unknown for an id nobody owns), so nothing is imported or copied for it otherwise. */
export function assertOwned(ctx: DaemonContext, peer: Peer, unit: string): void {
  assertOwner(ctx, peer, unit);
  if (ctx.owners.ownerOf(unit) === null) fail('unit_unknown', [unit]);
}

function unitOfChallenge(ctx: DaemonContext, challenge: string): string | null {
  const store = openStore(ctx.layout.home);
  try {
    return requireChallenge(store.db, challenge).unit;
  } catch {
    return null;
  } finally {
    closeStore(store);
  }
}

const checkout = (ctx: DaemonContext, unit: string): string => join(ctx.layout.workDir, unit);

/** A progress sink that writes frames to the client (phase ids and counts, never words). */
function frameSink<C extends ProgressCommand>(emit: ((frame: RunnerdProgressFrame) => void) | undefined): ProgressSink<C> | undefined {
  if (emit === undefined) return undefined;
  return (phase, count) => emit(count === undefined ? { progress: phase } : { progress: phase, count });
}

type Op<K extends RunnerdRequest['op']> = Extract<RunnerdRequest, { op: K }>;
type Emit = ((frame: RunnerdProgressFrame) => void) | undefined;

/** `emit` writes one progress frame to the client (only asked for by review-challenge and review-run).
 * A client of a governed uid is refused before anything is read (docs/runnerd.md#the-socket-protocol). */
export async function dispatch(ctx: DaemonContext, peer: Peer, req: RunnerdRequest, emit?: (frame: RunnerdProgressFrame) => void): Promise<Reply> {
  if (ctx.governedUids().has(peer.uid)) fail('runnerd_client_uid_forbidden', [`uid:${peer.uid}`]);
  switch (req.op) {
    case 'hello':
      return hello(ctx, peer);
    case 'unit-create':
      return unitCreate(ctx, peer, req);
    case 'writer-register':
      return writerRegister(ctx, peer, req);
    case 'lease-acquire':
    case 'lease-release':
    case 'lease-list':
      return lease(ctx, peer, req);
    case 'review-challenge':
      return reviewChallenge(ctx, peer, req, emit);
    case 'review-run':
      return reviewRun(ctx, peer, req, emit);
    case 'status':
      return status(ctx, peer, req);
    case 'unit-bind':
      return unitBind(ctx, peer, req);
    case 'store-copy':
      // The unit's owner only: an unknown unit is unit_unknown here (the copy is never sent for an id
      // nobody owns). The copy is the whole store: docs/runnerd.md says what that shows.
      assertOwned(ctx, peer, req.unit);
      return { result: { exit: 0, json: { ok: true }, human: '' }, storeCopy: takeStoreCopy(ctx.layout.home) };
    case 'authority-request':
    case 'authority-record':
    case 'unit-dismiss':
    case 'pin-update':
      return (await import('./dispatch-authority.js')).dispatchAuthority(ctx, peer, req);
    case 'preservation-set':
    case 'preservation-probe':
      return (await import('./dispatch-preservation.js')).dispatchPreservation(ctx, peer, req);
    case 'receipt-show':
      return receiptShow(ctx, peer, req);
  }
}

// The daemon's identity and the client's, as the kernel reported it (docs/runnerd.md#the-client).
function hello(ctx: DaemonContext, peer: Peer): Reply {
  return {
    result: {
      exit: 0,
      json: { ok: true, trust_mode: 'separated', daemon: ctx.identity, client: { uid: peer.uid, pid: peer.pid } } satisfies RunnerdHelloOutput,
      human: `runnerd ${ctx.identity.boot_id} pid ${ctx.identity.daemon_pid} uid ${ctx.identity.daemon_uid}; you are uid ${peer.uid} pid ${peer.pid}`,
    },
  };
}

// A new unit from the commit the client sent; the client becomes its owner and the daemon keeps the
// checkout (docs/runnerd.md#content-crosses-as-git-objects).
async function unitCreate(ctx: DaemonContext, peer: Peer, req: Op<'unit-create'>): Promise<Reply> {
  const { unitCreateCommand } = await import('../commands/unit.js');
  const tmp = join(ctx.layout.workDir, `new-${randomBytes(8).toString('hex')}`);
  const contract = join(ctx.layout.tmpDir, `contract-${randomBytes(8).toString('hex')}`);
  try {
    await importContent(tmp, req.content);
    writeFileSync(contract, Buffer.from(req.contract_b64, 'base64'), { mode: 0o600, flag: 'wx' });
    const result = await unitCreateCommand({ contract, baseline: req.baseline, repo: tmp, home: ctx.layout.home });
    const unit = result.json.unit as string;
    ctx.owners.record(unit, peer.uid);
    renameSync(tmp, checkout(ctx, unit));
    return { result };
  } finally {
    rmSync(contract, { force: true });
    rmSync(tmp, { recursive: true, force: true });
  }
}

// The writer process: by default the client's parent (the agent or shell that ran governed, as in
// co-located mode), else the pid named — which must be a live process of the client's own uid: a
// client cannot register someone else's process (docs/runnerd.md#the-socket-protocol).
async function writerRegister(ctx: DaemonContext, peer: Peer, req: Op<'writer-register'>): Promise<Reply> {
  assertOwner(ctx, peer, req.unit);
  const pid = req.pid ?? parentPid(peer.pid) ?? fail('runnerd_pid_not_client', [`pid:${peer.pid}`]);
  if (processUid(pid) !== peer.uid) fail('runnerd_pid_not_client', [`pid:${pid}`]);
  const { writerRegisterCommand } = await import('../commands/writer.js');
  return { result: await writerRegisterCommand({ unit: req.unit, writerSession: req.writer_session, home: ctx.layout.home }, { pid }) };
}

// Leases of the client's own units only; the list shows only its units (docs/runnerd.md#the-socket-protocol).
async function lease(ctx: DaemonContext, peer: Peer, req: Op<'lease-acquire' | 'lease-release' | 'lease-list'>): Promise<Reply> {
  const home = ctx.layout.home;
  const { leaseAcquireCommand, leaseReleaseCommand, leaseListCommand } = await import('../commands/lease.js');
  switch (req.op) {
    case 'lease-acquire':
      assertOwner(ctx, peer, req.unit);
      return { result: await leaseAcquireCommand({ unit: req.unit, writerSession: req.writer_session, ttl: req.ttl, home }) };
    case 'lease-release': {
      const found = listLeasesFlow({ home, now: nowSeconds() }).find((l) => l.leaseId === req.lease);
      if (found !== undefined) assertOwner(ctx, peer, found.unit);
      return { result: await leaseReleaseCommand({ lease: req.lease, writerSession: req.writer_session, home }) };
    }
    case 'lease-list':
      if (req.unit !== undefined) assertOwner(ctx, peer, req.unit);
      return { result: await leaseListCommand({ unit: req.unit, home }, (u) => ctx.owners.ownerOf(u) === peer.uid) };
  }
}

// A challenge over the daemon's copy of the commit the client sent, one unit at a time
// (docs/runnerd.md#content-crosses-as-git-objects).
async function reviewChallenge(ctx: DaemonContext, peer: Peer, req: Op<'review-challenge'>, emit: Emit): Promise<Reply> {
  assertOwned(ctx, peer, req.unit);
  const { reviewChallengeCommand } = await import('../commands/challenge.js');
  return ctx.withUnit(req.unit, async () => {
    const repo = await importContent(checkout(ctx, req.unit), req.content);
    const progress = frameSink<'review-challenge'>(req.progress === true ? emit : undefined);
    return { result: await reviewChallengeCommand({ unit: req.unit, writerSession: req.writer_session, stage: req.stage, slot: req.slot, repo, home: ctx.layout.home }, progress) };
  });
}

// A run observed by the daemon: its separation identity, its warm signers, the sandbox host; within
// the run slots and the unit's lock (docs/runnerd.md#the-sandbox-host, docs/runnerd.md#warm-attestors).
async function reviewRun(ctx: DaemonContext, peer: Peer, req: Op<'review-run'>, emit: Emit): Promise<Reply> {
  const home = ctx.layout.home;
  const unit = unitOfChallenge(ctx, req.challenge);
  if (unit !== null) assertOwner(ctx, peer, unit);
  assertSandboxHostFor(ctx.sandbox, home);
  const { reviewRunCommand } = await import('../commands/review-run.js');
  let diagnostic: GovernedError | undefined;
  const run = async (): Promise<CommandResult> =>
    reviewRunCommand(
      { challenge: req.challenge },
      {
        home,
        repo: unit === null ? ctx.layout.workDir : checkout(ctx, unit),
        reviewersDir: ctx.layout.reviewersDir,
        attestorsDir: ctx.layout.attestorsDir,
        separated: {
          separation: { ...ctx.identity, client_uid: peer.uid, client_pid: peer.pid },
          signers: ctx.signers,
          sandbox: ctx.sandbox?.delegate(),
          egressSocketDir: ctx.sandbox?.egressSocketDir ?? null,
          sealedDir: ctx.sandbox?.sealedDir ?? null,
        },
        diagnostic: (e) => {
          diagnostic = e;
        },
        progress: frameSink<'review-run'>(req.progress === true ? emit : undefined),
      },
    );
  const result = await ctx.withRunSlot(() => (unit === null ? run() : ctx.withUnit(unit, run)));
  return diagnostic === undefined ? { result } : { result, diagnostic };
}

// The unit's status on the daemon's copy of the commit the client sent (docs/runnerd.md#content-crosses-as-git-objects).
async function status(ctx: DaemonContext, peer: Peer, req: Op<'status'>): Promise<Reply> {
  assertOwned(ctx, peer, req.unit);
  const { statusCommand } = await import('../commands/status.js');
  return ctx.withUnit(req.unit, async () => {
    const repo = await importContent(checkout(ctx, req.unit), req.content);
    return { result: await statusCommand({ unit: req.unit, repo, home: ctx.layout.home }) };
  });
}

// A contract bound to the unit: its bytes as the client sent them, the content the daemon's copy
// (docs/runnerd.md#content-crosses-as-git-objects).
async function unitBind(ctx: DaemonContext, peer: Peer, req: Op<'unit-bind'>): Promise<Reply> {
  assertOwned(ctx, peer, req.unit);
  const { unitBindCommand } = await import('../commands/unit.js');
  return ctx.withUnit(req.unit, async () => {
    const repo = await importContent(checkout(ctx, req.unit), req.content);
    const contract = join(ctx.layout.tmpDir, `contract-${randomBytes(8).toString('hex')}`);
    try {
      writeFileSync(contract, Buffer.from(req.contract_b64, 'base64'), { mode: 0o600, flag: 'wx' });
      return { result: await unitBindCommand({ unit: req.unit, contract, authority: [...req.authority], dryRun: req.dry_run, repo, home: ctx.layout.home }) };
    } finally {
      rmSync(contract, { force: true });
    }
  });
}

// A receipt of a unit the client owns: its summary and exact envelope bytes (docs/runnerd.md#the-socket-protocol).
function receiptShow(ctx: DaemonContext, peer: Peer, req: Op<'receipt-show'>): Reply {
  assertReceiptVisible(ctx.layout.home, ctx.owners, peer.uid, req.receipt);
  const r = showReceiptFlow({ home: ctx.layout.home, receiptId: req.receipt });
  const summary = { receipt_id: r.receiptId, run_id: r.runId, unit: r.unit, stage: r.stage, slot: r.slot, verdict: r.verdict };
  return { result: { exit: 0, json: summary, human: '' }, envelope: r.envelope };
}
