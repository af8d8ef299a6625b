// A warm attestor (docs/runnerd.md "Warm attestors"): one long-lived process per credential, under
// that credential's own uid, started by the daemon while it is still root. It is the very pinned
// program of the one-shot mode run with `--serve`: one request line, one response line, each request
// judged whole (not blind: a statement of its kind naming its own sha256).
//
// Its keeper is `/bin/sh` running as the same uid: when the attestor dies (crash, kill) the keeper
// starts it again after a back-off (1, 2, 4, 8 s, then 8 s), on the SAME pipes, and the new process
// announces itself with a `ready` line. A request in flight when that happens — or when no answer
// comes within the timeout — fails closed (runnerd_attestor_unavailable: the run is ABORTED). When
// the daemon closes the attestor's stdin (shutdown, or the daemon died) the attestor exits 0 and the
// keeper ends too.
//
// Pinning: the daemon hashed the program and config bytes (root-owned 0444 files) before starting
// them; each run first compares those digests with the ones the run pinned under the CURRENT policy
// (so a policy or trust change that drops them stops signing: runnerd_attestor_pin_mismatch), and
// the `ready` line must name the same program digest. Every signature is verified with node:crypto
// under the key the policy names before anyone sees it: over DSSE's PAE for a receipt or probe, over
// the body's bytes for the log attestor's checkpoints (docs/runnerd.md#checkpoints).
import { spawn, type ChildProcess } from 'node:child_process';
import { attestorReadySchema, attestorServeLineSchema } from '../../core/attestor-protocol-schema.js';
import { decodeBase64Strict } from '../../core/base64.js';
import { pae } from '../../core/dsse.js';
import { verifyEd25519 } from '../../core/ed25519.js';
import { fail } from '../../core/errors.js';
import type { AttestorSignatureOut, StartedAttestor } from '../run/attestor-session.js';
import type { PinnedSigner } from '../run/pin.js';
import { ATTESTOR_REPLY_MAX_BYTES } from '../../core/limits.js';
import { TLOG_CHECKPOINT_PAYLOAD_TYPE } from '../../core/tlog-attestor.js';

export const WARM_TIMEOUT_MS = 10_000;

/** What a run pinned for one credential: the digests under the current policy and the key to verify with. */
export type WarmSigner = Pick<PinnedSigner, 'programSha256' | 'configSha256' | 'key'> & { readonly credential: string };
const MAX_LINE = ATTESTOR_REPLY_MAX_BYTES;

export interface WarmSpec {
  readonly credential: string;
  readonly programPath: string;
  readonly configPath: string;
  readonly programSha256: string;
  readonly configSha256: string;
  readonly uid: number;
  readonly gid: number;
}

interface Pending {
  readonly resolve: (line: string) => void;
  readonly reject: (e: unknown) => void;
  readonly timer: NodeJS.Timeout;
  /** Timed out: its caller was answered already; the line the attestor still owes it is dropped. */
  abandoned: boolean;
}

export class WarmAttestor {
  private child: ChildProcess;
  private buf = '';
  private queue: Pending[] = [];
  /** The program digest the running process announced (null until ready, or after a crash). */
  private readySelf: string | null = null;
  private readyWaiters: (() => void)[] = [];
  private closed = false;
  restarts = 0;

  constructor(readonly spec: WarmSpec) {
    // The keeper loop: restart with back-off after a failure; end on a clean exit (stdin closed).
    const script =
      'n=1; while :; do "$0" "$1" --serve "$2"; rc=$?; [ "$rc" -eq 0 ] && exit 0; echo \'{"restart":true}\'; sleep "$n"; [ "$n" -lt 8 ] && n=$((n*2)); done';
    this.child = spawn('/bin/sh', ['-c', script, process.execPath, spec.programPath, spec.configPath], {
      cwd: '/',
      env: { PATH: '/usr/bin:/bin' },
      stdio: ['pipe', 'pipe', 'ignore'],
      uid: spec.uid,
      gid: spec.gid,
    });
    this.child.stdin?.on('error', () => undefined);
    this.child.stdout?.setEncoding('utf8');
    this.child.stdout?.on('data', (s: string) => this.onData(s));
    this.child.on('close', () => {
      this.closed = true;
      this.readySelf = null;
      this.failAll();
    });
    this.child.on('error', () => undefined);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get ready(): boolean {
    return this.readySelf !== null;
  }

  /** Resolves when the attestor announced itself (or after `ms`, whichever first). */
  waitReady(ms: number): Promise<boolean> {
    if (this.readySelf !== null) return Promise.resolve(true);
    return new Promise((resolve) => {
      const t = setTimeout(() => resolve(this.readySelf !== null), ms);
      this.readyWaiters.push(() => {
        clearTimeout(t);
        resolve(true);
      });
    });
  }

  private failAll(): void {
    const q = this.queue;
    this.queue = [];
    for (const p of q) {
      clearTimeout(p.timer);
      p.reject(new Error('attestor gone'));
    }
  }

  private onData(s: string): void {
    this.buf += s;
    if (this.buf.length > MAX_LINE * 4) {
      // Never a line this long from an honest attestor: treat it as dead until it restarts.
      this.buf = '';
      this.readySelf = null;
      this.failAll();
      return;
    }
    for (let i = this.buf.indexOf('\n'); i !== -1; i = this.buf.indexOf('\n')) {
      const line = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 1);
      this.onLine(line);
    }
  }

  private onLine(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = null;
    }
    if (value !== null && typeof value === 'object' && 'restart' in value) {
      // The keeper restarts the attestor: whatever was in flight is lost.
      this.restarts++;
      this.readySelf = null;
      this.failAll();
      return;
    }
    const ready = attestorReadySchema.safeParse(value);
    if (ready.success) {
      this.failAll(); // a fresh process never answers an older request
      this.readySelf = ready.data.self;
      for (const w of this.readyWaiters.splice(0)) w();
      return;
    }
    const p = this.queue.shift();
    if (p === undefined || p.abandoned) return;
    clearTimeout(p.timer);
    p.resolve(line);
  }

  /** One request, one line back (FIFO: the attestor answers in order). */
  private request(text: string): Promise<string> {
    return new Promise((resolve, reject) => {
      if (this.closed || this.readySelf === null) {
        reject(new Error('attestor not ready'));
        return;
      }
      // On timeout the entry STAYS in the queue (abandoned): the attestor answers in order, so its
      // late answer to this request must not be taken for the next one's.
      const timer = setTimeout(() => {
        pending.abandoned = true;
        reject(new Error('attestor timeout'));
      }, WARM_TIMEOUT_MS);
      const pending: Pending = { resolve, reject, timer, abandoned: false };
      this.queue.push(pending);
      this.child.stdin?.write(`${text}\n`);
    });
  }

  /**
   * A signer for ONE run, after checking that this process runs exactly the program and config the
   * run pinned under the current policy (docs/runnerd.md "Warm attestors").
   */
  signerFor(signer: WarmSigner): StartedAttestor {
    this.checkPinned(signer);
    const sign = (payloadType: string, payload: Buffer): Promise<AttestorSignatureOut> => this.signWith(signer, payloadType, payload, pae(payloadType, payload));
    return { sign, stop: async () => undefined };
  }

  /**
   * The warm log attestor's signer of one checkpoint body (docs/runnerd.md#checkpoints): the same
   * pin checks; the signature is over the body's bytes (the note format's, not DSSE's PAE).
   */
  noteSignerFor(signer: WarmSigner): (body: Buffer) => Promise<Buffer> {
    this.checkPinned(signer);
    return async (body) => (await this.signWith(signer, TLOG_CHECKPOINT_PAYLOAD_TYPE, body, body)).sig;
  }

  private checkPinned(signer: WarmSigner): void {
    if (signer.programSha256 !== this.spec.programSha256 || signer.configSha256 !== this.spec.configSha256) {
      fail('runnerd_attestor_pin_mismatch', [signer.credential]);
    }
  }

  /** One request; the answer's signature verified with node:crypto over `signedBytes` under the pinned key. */
  private async signWith(signer: WarmSigner, payloadType: string, payload: Buffer, signedBytes: Buffer): Promise<AttestorSignatureOut> {
    if (this.readySelf !== this.spec.programSha256) fail(this.readySelf === null ? 'runnerd_attestor_unavailable' : 'runnerd_attestor_pin_mismatch', [signer.credential]);
    let line: string;
    try {
      line = await this.request(JSON.stringify({ payloadType, payload: payload.toString('base64') }));
    } catch {
      return fail('runnerd_attestor_unavailable', [signer.credential]);
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return fail('attestor_failed', [signer.credential]);
    }
    const parsed = attestorServeLineSchema.safeParse(value);
    if (!parsed.success) return fail('attestor_failed', [signer.credential]);
    const r = parsed.data;
    if ('refused' in r) return fail('attestor_refused', [signer.credential]);
    if (!('sig' in r)) return fail('attestor_failed', [signer.credential]);
    const sig = decodeBase64Strict(r.sig, 'attestor_failed', 'sig');
    if (r.keyid !== signer.key.keyId) fail('attestor_signature_invalid', [r.keyid]);
    if (!verifyEd25519(signer.key, signedBytes, sig)) fail('attestor_signature_invalid', [r.keyid]);
    return { keyid: r.keyid, sig };
  }

  /** Close stdin: the attestor exits 0 and its keeper ends. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed) return resolve();
      this.child.once('close', () => resolve());
      this.child.stdin?.end();
    });
  }
}
