import { isoSecondsOf } from '../../core/trust-root.js';
import { acquireLeaseFlow, listLeasesFlow, releaseLeaseFlow } from '../../flows/lease.js';
import { resolveHome } from '../options.js';
import type { CommandResult } from '../output.js';
import type { LeaseAcquireOutput, LeaseListOutput, LeaseReleaseOutput } from '../../core/command-output-records.js';

const now = (): number => Math.floor(Date.now() / 1000);
const iso = (seconds: number): string => isoSecondsOf(new Date(seconds * 1000));

export async function leaseAcquireCommand(opts: { unit: string; writerSession: string; ttl: string; home?: string }): Promise<CommandResult> {
  const r = await acquireLeaseFlow({ home: resolveHome(opts.home), unit: opts.unit, writerSession: opts.writerSession, ttl: opts.ttl, now: now() });
  return {
    exit: 0,
    json: { ok: true, lease: r.leaseId, unit: r.unit, writer_session: opts.writerSession, expires_at: iso(r.expiresAt) } satisfies LeaseAcquireOutput,
    human: `${r.leaseId} (expires ${iso(r.expiresAt)})`,
  };
}

export async function leaseReleaseCommand(opts: { lease: string; writerSession: string; home?: string }): Promise<CommandResult> {
  const r = releaseLeaseFlow({ home: resolveHome(opts.home), leaseId: opts.lease, writerSession: opts.writerSession, now: now() });
  return {
    exit: 0,
    json: { ok: true, lease: r.leaseId, unit: r.unit, work_revision: r.workRevision } satisfies LeaseReleaseOutput,
    human: `released ${r.leaseId} of ${r.unit} (work revision ${r.workRevision})`,
  };
}

export async function leaseListCommand(opts: { unit?: string; home?: string }, visible: (unit: string) => boolean = () => true): Promise<CommandResult> {
  const leases = listLeasesFlow({ home: resolveHome(opts.home), unit: opts.unit, now: now() }).filter((l) => visible(l.unit));
  const rows = leases.map((l) => ({
    lease: l.leaseId,
    unit: l.unit,
    writer_session: l.writerSession,
    state: l.state,
    acquired_at: iso(l.acquiredAt),
    expires_at: iso(l.expiresAt),
    ended_at: l.endedAt === null ? null : iso(l.endedAt),
  }));
  return {
    exit: 0,
    json: { ok: true, leases: rows } satisfies LeaseListOutput,
    human: rows.length === 0 ? 'no leases' : rows.map((r) => `${r.lease} ${r.state.padEnd(8)} ${r.unit} ${r.writer_session} expires ${r.expires_at}`).join('\n'),
  };
}
