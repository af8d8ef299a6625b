// Preservation through the daemon (docs/runnerd.md#probes-through-the-daemon): `preservation set` and
// `preservation probe` with --runner. Each runs the very command function co-located mode runs, on
// the daemon's own store, checkout and attestors, so its checks, result and error codes are the same.
// What this file adds is WHO may ask (the unit's owner, else runnerd_not_owner / unit_unknown before
// anything is read or written) and WHERE things come from:
//   - the contract and the adapter arrive as bytes; the contract is written to the daemon's private
//     scratch directory under a name of its own (no extension: its format is read from its content,
//     as co-located mode reads stored contracts); the adapter is never written anywhere — it runs
//     only when its sha256 is on the pinned policy's allowlist, exactly as a file's bytes would;
//   - the probed tree is the daemon's copy of the writer's commit (content), sealed by the daemon in
//     its sealed directory; the adapter runs on the sandbox host under the policy's sandbox uid
//     (docs/runnerd.md#probes-through-the-daemon), the daemon re-walks the trees after the run;
//   - the probe receipt is signed with the probe key (<base>/keys/probe, the probe attestor uid's,
//     0400; the daemon cannot read it) through the daemon's warm probe attestor, checked against the
//     digests the policy pins in <base>/attestors, and states trust_mode separated with the daemon's
//     identity and the client's uid and pid as the kernel reported them.
// There is no operation that accepts a probe result: the daemon records only what its own sandbox run
// of the adapter printed.
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunnerdRequest } from '../../core/runnerd-protocol.js';
import { importContent } from '../../flows/runnerd/content.js';
import type { DaemonContext, Peer, Reply } from './dispatch.js';
import { assertOwned } from './dispatch.js';

export type PreservationOp = Extract<RunnerdRequest, { op: 'preservation-set' | 'preservation-probe' }>;

export async function dispatchPreservation(ctx: DaemonContext, peer: Peer, req: PreservationOp): Promise<Reply> {
  const home = ctx.layout.home;
  assertOwned(ctx, peer, req.unit);
  switch (req.op) {
    case 'preservation-set': {
      const { preservationSetCommand } = await import('../commands/preservation.js');
      return ctx.withUnit(req.unit, async () => {
        const contract = join(ctx.layout.tmpDir, `preservation-${randomBytes(8).toString('hex')}`);
        try {
          writeFileSync(contract, Buffer.from(req.contract_b64, 'base64'), { mode: 0o600, flag: 'wx' });
          return { result: await preservationSetCommand({ unit: req.unit, contract, authority: [...req.authority], incidentHistory: req.incident_history, home }) };
        } finally {
          rmSync(contract, { force: true });
        }
      });
    }
    case 'preservation-probe': {
      const { preservationProbeCommand } = await import('../commands/preservation.js');
      const checkout = join(ctx.layout.workDir, req.unit);
      const hosted = ctx.sandbox?.probeRunner() ?? null;
      return ctx.withRunSlot(() =>
        ctx.withUnit(req.unit, async () => {
          const repo = await importContent(checkout, req.content);
          const result = await preservationProbeCommand(
            { unit: req.unit, phase: req.phase, adapter: 'adapter', ...(req.surface === undefined ? {} : { surface: req.surface }), repo, attestors: ctx.layout.attestorsDir, home },
            {
              adapterBytes: Buffer.from(req.adapter_b64, 'base64'),
              separation: { ...ctx.identity, client_uid: peer.uid, client_pid: peer.pid },
              signer: ctx.probeSigner,
              // The adapter runs on the sandbox host, under the policy's sandbox uid.
              ...(hosted === null ? {} : { sandbox: hosted }),
            },
          );
          return { result };
        }),
      );
    }
  }
}
