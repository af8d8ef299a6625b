// bwrap's --json-status-fd stream (bwrap 0.8.0): one JSON object per line, first
// {"child-pid": N, "<ns>-namespace": inode, ...} when the sandbox child exists, then
// {"exit-code": N} when it has exited (128+signal when it died of a signal). The descriptor is
// closed inside the sandbox before the reviewer starts, so only bwrap writes it. A missing
// exit-code record means bwrap itself failed (setup, seccomp load, exec) (docs/sandbox.md#the-invocation).
import { fail } from '../../src/core/errors.js';
import type { NamespaceName } from './proc.js';

export interface BwrapStatus {
  childPid: number | null;
  /** Namespace inodes bwrap reported (it reports cgroup, ipc, mnt, net, pid, uts — not user). */
  namespaces: Partial<Record<NamespaceName, number>>;
  exitCode: number | null;
}

import { SANDBOX_STATUS_MAX_BYTES as MAX_STATUS_BYTES } from '../../src/core/limits.js';
const NS_KEY_RE = /^(cgroup|ipc|mnt|net|pid|uts|user)-namespace$/;

export class StatusParser {
  readonly status: BwrapStatus = { childPid: null, namespaces: {}, exitCode: null };
  private pending = '';
  private size = 0;

  /** Feed bytes; returns true when a complete child-pid record has been seen. */
  push(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > MAX_STATUS_BYTES) fail('sandbox_identity_mismatch', ['json-status']);
    this.pending += chunk.toString('utf8');
    let nl: number;
    while ((nl = this.pending.indexOf('\n')) >= 0) {
      const line = this.pending.slice(0, nl).trim();
      this.pending = this.pending.slice(nl + 1);
      if (line !== '') this.line(line);
    }
  }

  private line(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      fail('sandbox_identity_mismatch', ['json-status']);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) fail('sandbox_identity_mismatch', ['json-status']);
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) fail('sandbox_identity_mismatch', ['json-status']);
      const ns = NS_KEY_RE.exec(k);
      if (k === 'child-pid') {
        if (this.status.childPid !== null || v < 1) fail('sandbox_identity_mismatch', ['json-status']);
        this.status.childPid = v;
      } else if (k === 'exit-code') {
        this.status.exitCode = v;
      } else if (ns !== null) {
        this.status.namespaces[ns[1] as NamespaceName] = v;
      }
      // Other keys a newer bwrap may add are ignored: they are bwrap's, not the reviewer's.
    }
  }
}
