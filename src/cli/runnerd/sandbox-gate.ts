// Before a review run is claimed (docs/runnerd.md#the-sandbox-host): the daemon's sandbox host is up
// and runs as the sandbox uid of the policy pinned NOW. Either refusal leaves the store unchanged.
import { fail } from '../../core/errors.js';
import type { SandboxHost } from '../../flows/runnerd/sandbox-host.js';
import { pinnedSandboxUid } from '../../flows/runnerd/sandbox-uid.js';

export function assertSandboxHostFor(host: SandboxHost | null, home: string): void {
  const now = pinnedSandboxUid(home);
  // No policy pinned: the run itself refuses (with the command's own code).
  if (now === null) return;
  if (host === null) fail('runnerd_sandbox_uid_changed', [`uid:${now}`]);
  if (host.uid !== now) fail('runnerd_sandbox_uid_changed', [`uid:${now}`]);
  if (host.pid === undefined) fail('runnerd_sandbox_unavailable');
}
