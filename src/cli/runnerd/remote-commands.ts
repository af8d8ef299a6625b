// Each writer command in separated mode (docs/runnerd.md "The client"): the request it sends, and
// the daemon's answer returned as the command's own result. Options that name files of the runner
// machine (--home, --policy, --trust, --reviewers-dir, --attestors, --bwrap) are refused: the daemon
// uses its own. --repo names the writer's own repository, snapshotted here.
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { RUNNERD_STORE_COPY_MAX_RESPONSE_BYTES } from '../../core/limits.js';
import { materializeStoreCopy } from '../../flows/runnerd/store-copy.js';
import { fail } from '../../core/errors.js';
import { writeNewFile } from '../../flows/run/receipt-show.js';
import type { CommandResult } from '../output.js';
import { progressSink } from '../progress.js';
import { progressFrames, refuseLocalOnly, remoteResult, snapshotContent } from './client.js';
import { GIT_OID_RE, RECORD_ID_RE } from '../../core/ids.js';
import { PID_TEXT_RE } from '../../core/ids.js';

const repoOf = (o: { repo?: string }): string => o.repo ?? process.cwd();

// review-challenge and review-run show the daemon's phases as co-located mode shows its own
// (docs/commands.md#progress-on-stderr): the request asks for frames only when progress is on here.
export async function remoteReviewChallenge(
  socket: string,
  o: { unit: string; writerSession: string; stage: string; slot: string; repo?: string; policy?: string; trust?: string; home?: string; json?: boolean; progress?: boolean },
): Promise<CommandResult> {
  refuseLocalOnly(o, ['home', 'policy', 'trust']);
  const sink = progressSink('review-challenge', o);
  const content = await snapshotContent(repoOf(o));
  const req = { v: 1 as const, op: 'review-challenge' as const, unit: o.unit, writer_session: o.writerSession, stage: o.stage, slot: o.slot, content };
  return sink === undefined ? remoteResult(socket, req, o) : remoteResult(socket, { ...req, progress: true }, o, undefined, progressFrames('review-challenge', sink));
}

export async function remoteReviewRun(
  socket: string,
  o: { challenge: string; repo?: string; reviewersDir?: string; attestors?: string; bwrap?: string; policy?: string; trust?: string; home?: string; json?: boolean; progress?: boolean },
): Promise<CommandResult> {
  refuseLocalOnly(o, ['home', 'policy', 'trust', 'reviewersDir', 'attestors', 'bwrap', 'repo']);
  const sink = progressSink('review-run', o);
  const req = { v: 1 as const, op: 'review-run' as const, challenge: o.challenge };
  return sink === undefined ? remoteResult(socket, req, o) : remoteResult(socket, { ...req, progress: true }, o, undefined, progressFrames('review-run', sink));
}

export async function remoteStatus(socket: string, o: { unit: string; repo?: string; home?: string; json?: boolean }): Promise<CommandResult> {
  refuseLocalOnly(o, ['home']);
  const content = await snapshotContent(repoOf(o));
  return remoteResult(socket, { v: 1, op: 'status', unit: o.unit, content }, o);
}

export async function remoteUnitCreate(socket: string, o: { contract: string; baseline: string; repo?: string; home?: string; json?: boolean }): Promise<CommandResult> {
  refuseLocalOnly(o, ['home']);
  if (!GIT_OID_RE.test(o.baseline)) fail('runnerd_request_invalid', ['--baseline']);
  let contract: Buffer;
  try {
    contract = readFileSync(o.contract);
  } catch {
    return fail('input_unreadable', ['contract']);
  }
  const content = await snapshotContent(repoOf(o));
  return remoteResult(socket, { v: 1, op: 'unit-create', contract_b64: contract.toString('base64'), baseline: o.baseline, content }, o);
}

export async function remoteWriterRegister(socket: string, o: { unit: string; writerSession: string; pid?: string; home?: string; json?: boolean }): Promise<CommandResult> {
  refuseLocalOnly(o, ['home']);
  // The writer is this command's parent unless --pid says otherwise; the daemon reads both from the
  // kernel and checks the process belongs to this uid.
  const pid = o.pid === undefined ? undefined : PID_TEXT_RE.test(o.pid) ? Number(o.pid) : fail('process_identity_invalid', ['pid']);
  return remoteResult(socket, { v: 1, op: 'writer-register', unit: o.unit, writer_session: o.writerSession, ...(pid === undefined ? {} : { pid }) }, o);
}

export async function remoteLeaseAcquire(socket: string, o: { unit: string; writerSession: string; ttl: string; home?: string; json?: boolean }): Promise<CommandResult> {
  refuseLocalOnly(o, ['home']);
  return remoteResult(socket, { v: 1, op: 'lease-acquire', unit: o.unit, writer_session: o.writerSession, ttl: o.ttl }, o);
}

export async function remoteLeaseRelease(socket: string, o: { lease: string; writerSession: string; home?: string; json?: boolean }): Promise<CommandResult> {
  refuseLocalOnly(o, ['home']);
  return remoteResult(socket, { v: 1, op: 'lease-release', lease: o.lease, writer_session: o.writerSession }, o);
}

export async function remoteLeaseList(socket: string, o: { unit?: string; home?: string; json?: boolean }): Promise<CommandResult> {
  refuseLocalOnly(o, ['home']);
  return remoteResult(socket, { v: 1, op: 'lease-list', ...(o.unit === undefined ? {} : { unit: o.unit }) }, o);
}

/** As review-run-receipt.ts prints: the bytes, --out to a new file, or --json with envelope_b64. */
export async function remoteReceiptShow(socket: string, o: { receipt: string; out?: string; home?: string; json?: boolean }): Promise<CommandResult> {
  refuseLocalOnly(o, ['home']);
  const r = await remoteResult(socket, { v: 1, op: 'receipt-show', receipt: o.receipt }, o);
  const envelope = r.envelope ?? fail('runnerd_answer_invalid');
  const summary = r.json;
  if (o.out !== undefined) writeNewFile(o.out, envelope);
  if (!o.json && o.out === undefined) {
    process.stdout.write(envelope);
    return { exit: 0, json: summary, human: '' };
  }
  return {
    exit: 0,
    json: { ...summary, envelope_b64: envelope.toString('base64') },
    human: `receipt ${String(summary.receipt_id)} ${String(summary.verdict)} ${String(summary.stage)}/${String(summary.slot)} ${String(summary.unit)}\nwritten ${o.out ?? ''}`,
  };
}

export async function remoteUnitBind(
  socket: string,
  o: { unit: string; contract: string; authority?: string[]; dryRun?: boolean; repo?: string; home?: string; json?: boolean },
): Promise<CommandResult> {
  refuseLocalOnly(o, ['home']);
  const authority = o.authority ?? [];
  // Record ids only; the records themselves are in the daemon's store (authority record).
  for (const a of authority) if (!RECORD_ID_RE.test(a)) fail('runnerd_request_invalid', ['--authority']);
  let contract: Buffer;
  try {
    contract = readFileSync(o.contract);
  } catch {
    return fail('input_unreadable', ['contract']);
  }
  const content = await snapshotContent(repoOf(o));
  return remoteResult(socket, { v: 1, op: 'unit-bind', unit: o.unit, contract_b64: contract.toString('base64'), content, authority, dry_run: o.dryRun === true }, o);
}

/**
 * `gate --runner`: the daemon's store, copied into a private directory of this process, for the
 * gate to judge exactly as in co-located mode (docs/runnerd.md "The deploy side"). The caller
 * disposes of it. A unit id the protocol cannot carry is not sent: the gate's own preflight names it.
 */
export async function remoteStoreCopy(socket: string, unit: string): Promise<{ home: string; dispose: () => void }> {
  const r = await remoteResult(socket, { v: 1, op: 'store-copy', unit }, {}, RUNNERD_STORE_COPY_MAX_RESPONSE_BYTES);
  const copy = r.storeCopy ?? fail('runnerd_answer_invalid');
  return materializeStoreCopy(process.env.TMPDIR || tmpdir(), {
    dbGz: Buffer.from(copy.db_gz_b64, 'base64'),
    checkpoint: copy.checkpoint === undefined ? null : { size: copy.checkpoint.size, note: Buffer.from(copy.checkpoint.note_b64, 'base64') },
  });
}
