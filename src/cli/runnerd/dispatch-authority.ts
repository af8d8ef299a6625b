// Human authority through the daemon (docs/runnerd.md "Human authority through the daemon"): the
// operations that issue, record and consume signed authority records in the daemon's store. Each
// runs the very command function co-located mode runs, on the daemon's own store, so its checks,
// result and error codes are the same; what this file adds is WHO may ask:
//   - authority-request: for a unit operation, the unit must be the caller's (runnerd_not_owner /
//     unit_unknown, before anything is issued); the daemon remembers the uid that asked;
//   - authority-record: the record's request must be one this uid asked for (runnerd_not_owner);
//     its signature is judged by the daemon against the trust root pinned in ITS store;
//   - unit-dismiss, pin-update: the unit (dismissals) must be the caller's, and the record consumed
//     must come from a request this uid asked for.
// The signing itself never happens here: `authority sign` runs where the authority key lives.
// Documents and contracts arrive as bytes and are written to the daemon's private scratch
// directory under a name of its own; nothing is read from a path the client names.
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fail } from '../../core/errors.js';
import { AUTHORITY_RECORD_MAX_BYTES } from '../../core/limits.js';
import { parseAuthorityStatement } from '../../core/authority/index.js';
import { parseEnvelopeBytes } from '../../core/dsse.js';
import { decodeCanonicalPayload } from '../../core/verify-receipt.js';
import type { RunnerdRequest } from '../../core/runnerd-protocol.js';
import { closeStore, openStore } from '../../store/index.js';
import type { DaemonContext, Peer, Reply } from './dispatch.js';
import { assertOwned } from './dispatch.js';

export type AuthorityOp = Extract<RunnerdRequest, { op: 'authority-request' | 'authority-record' | 'unit-dismiss' | 'pin-update' }>;

const scratchName = (ctx: DaemonContext, what: string): string => join(ctx.layout.tmpDir, `${what}-${randomBytes(8).toString('hex')}`);

/** Bytes as a private file of the daemon's scratch directory, removed after `fn`. */
async function withScratchFile<T>(ctx: DaemonContext, what: string, b64: string | undefined, fn: (path: string | undefined) => Promise<T>): Promise<T> {
  if (b64 === undefined) return fn(undefined);
  const path = scratchName(ctx, what);
  try {
    writeFileSync(path, Buffer.from(b64, 'base64'), { mode: 0o600, flag: 'wx' });
    return await fn(path);
  } finally {
    rmSync(path, { force: true });
  }
}

function withStore<T>(ctx: DaemonContext, fn: (db: ReturnType<typeof openStore>['db']) => T): T {
  const store = openStore(ctx.layout.home);
  try {
    return fn(store.db);
  } finally {
    closeStore(store);
  }
}

/**
 * The request `request` must be this uid's. A request the store never issued is left to the
 * command (its own code, e.g. authority_nonce_unknown); one issued but not through this uid — by
 * another client, or before the daemon — is refused.
 */
function assertRequestOwned(ctx: DaemonContext, peer: Peer, request: string): void {
  const owner = ctx.owners.requesterOf(request);
  if (owner === peer.uid) return;
  const issued = withStore(ctx, (db) => db.prepare('SELECT 1 FROM authority_requests WHERE id = ?').pluck().get(request) !== undefined);
  if (owner !== null || issued) fail('runnerd_not_owner', [request]);
}

/** The record `recordId` (if the store has it) must come from a request of this uid. */
function assertRecordOwned(ctx: DaemonContext, peer: Peer, recordId: string): void {
  const request = withStore(ctx, (db) => db.prepare('SELECT request FROM authority_records WHERE id = ?').pluck().get(recordId) as string | undefined);
  if (request !== undefined) assertRequestOwned(ctx, peer, request);
}

/** The request id a signed record names, read exactly as `authority record` reads it; null when unreadable (the command then refuses it). */
function requestOfEnvelope(bytes: Buffer): string | null {
  try {
    return parseAuthorityStatement(decodeCanonicalPayload(parseEnvelopeBytes(bytes))).predicate.request_id;
  } catch {
    return null;
  }
}

export async function dispatchAuthority(ctx: DaemonContext, peer: Peer, req: AuthorityOp): Promise<Reply> {
  const home = ctx.layout.home;
  switch (req.op) {
    case 'authority-request': {
      if (req.unit !== undefined) assertOwned(ctx, peer, req.unit);
      const { authorityRequestCommand } = await import('../commands/authority-request.js');
      const out = scratchName(ctx, 'presentation');
      try {
        const result = await withScratchFile(ctx, 'document', req.document_b64, (document) =>
          withScratchFile(ctx, 'contract', req.contract_b64, (contract) =>
            authorityRequestCommand({
              operation: req.operation,
              ...(req.unit === undefined ? {} : { unit: req.unit }),
              ...(req.ids === undefined ? {} : { ids: req.ids }),
              ...(req.state_before === undefined ? {} : { stateBefore: req.state_before }),
              ...(req.state_after === undefined ? {} : { stateAfter: req.state_after }),
              ...(req.ttl === undefined ? {} : { ttl: req.ttl }),
              ...(document === undefined ? {} : { document }),
              ...(contract === undefined ? {} : { contract }),
              out,
              home,
            }),
          ),
        );
        // Committed: the request is this uid's from now on (a crash before this line leaves an
        // unowned request nobody can record, which expires).
        ctx.owners.recordRequester(String(result.json.request_id), peer.uid);
        return { result, presentation: readFileSync(out) };
      } finally {
        rmSync(out, { force: true });
      }
    }
    case 'authority-record': {
      const bytes = Buffer.from(req.record_b64, 'base64');
      // Over the record cap it is not even parsed: the command refuses it (input_too_large).
      const request = bytes.length <= AUTHORITY_RECORD_MAX_BYTES ? requestOfEnvelope(bytes) : null;
      if (request !== null) assertRequestOwned(ctx, peer, request);
      const { authorityRecordCommand } = await import('../commands/authority-record.js');
      return withScratchFile(ctx, 'record', req.record_b64, async (record) => ({ result: await authorityRecordCommand({ record: record as string, home }) }));
    }
    case 'unit-dismiss': {
      assertOwned(ctx, peer, req.unit);
      if (req.authority !== undefined) assertRecordOwned(ctx, peer, req.authority);
      const { unitDismissCommand } = await import('../commands/unit-dismiss.js');
      return ctx.withUnit(req.unit, async () => ({
        result: await unitDismissCommand(req.operation, {
          unit: req.unit,
          ...(req.authority === undefined ? {} : { authority: req.authority }),
          ...(req.ids === undefined ? {} : { ids: req.ids }),
          dryRun: req.dry_run,
          home,
        }),
      }));
    }
    case 'pin-update': {
      assertRecordOwned(ctx, peer, req.authority);
      const { pinUpdateCommand } = await import('../commands/authority-pin-update.js');
      return withScratchFile(ctx, req.kind, req.document_b64, async (file) => ({ result: await pinUpdateCommand(req.kind, { file: file as string, authority: req.authority, home }) }));
    }
  }
}
