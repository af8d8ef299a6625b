// Egress slots on the sandbox host (docs/runnerd.md#model-reviewers-and-the-egress-broker). The daemon
// keeps the API key and runs the broker under its own uid; only the reviewer moves to the host, so it
// runs under the policy's sandbox uid like every other reviewer. The one thing the host's uid must
// reach is the broker's socket, so the broker listens in a directory made for that at daemon start,
// while still root: `<dir>/egress`, owner the daemon's uid, group the sandbox gid, mode 0710 — the
// daemon and the sandbox uid can enter it, a writer cannot. Each broker's own directory inside is
// 0711 and its socket 0666 (reachable through that directory only).
import { join } from 'node:path';
import { prepareHostReachableDir } from './sandbox-host-dir.js';
import type { SandboxHostJob } from '../../core/sandbox-host-protocol.js';
import type { SandboxRequest } from '../../../runner/sandbox/index.js';

/** The hosted broker-socket directory of a daemon whose layout base is `base`. */
export const egressSocketDirOf = (base: string): string => join(base, 'egress');

/**
 * As root, before the drop: make (or reset) `<base>/egress` — a real directory (never a symlink),
 * owned by the daemon's uid, group `sandboxGid`, mode 0710, emptied of what a previous daemon left.
 */
export function prepareEgressSocketDir(base: string, daemonUid: number, sandboxGid: number): string {
  return prepareHostReachableDir(egressSocketDirOf(base), daemonUid, sandboxGid);
}

/** Does `req` use a broker whose socket is directly inside a per-run directory of `dir`? */
export function hostsEgressSocket(dir: string | null, req: SandboxRequest): boolean {
  if (dir === null || req.egress === undefined) return false;
  const rest = req.egress.socket.startsWith(`${dir}/`) ? req.egress.socket.slice(dir.length + 1) : null;
  return rest !== null && /^governed-egress-[A-Za-z0-9]{1,32}\/egress\.sock$/.test(rest);
}

/** The egress part of a host job (absent for a reviewer without egress). */
export function egressJobPart(req: SandboxRequest): Pick<SandboxHostJob, 'egress' | 'relay'> {
  if (req.egress === undefined) return {};
  const e = req.egress;
  return {
    egress: { socket: e.socket, env: { ...e.env }, ...(e.relay === undefined ? {} : { relay: e.relay }), ...(e.terminate === true ? { terminate: true as const } : {}) },
    ...(req.relay === undefined ? {} : { relay: { bytes_b64: req.relay.bytes.toString('base64'), sha256: [...req.relay.sha256] } }),
  };
}

/** The host's side: the sandbox request's egress fields from a job (checked again by the sandbox layer). */
export function egressRequestPart(job: SandboxHostJob): Pick<SandboxRequest, 'egress' | 'relay'> {
  if (job.egress === undefined) return {};
  return {
    egress: { socket: job.egress.socket, env: job.egress.env, ...(job.egress.relay === undefined ? {} : { relay: job.egress.relay }), ...(job.egress.terminate === true ? { terminate: true } : {}) },
    ...(job.relay === undefined ? {} : { relay: { bytes: Buffer.from(job.relay.bytes_b64, 'base64'), sha256: job.relay.sha256 } }),
  };
}
