// Pinned attestors started AHEAD of the statement (docs/formats.md#attestors, docs/runner.md#the-run-step-by-step step 9). An attestor spends most of
// its time loading its one bundled file and reading its config and key, and only then reads the
// request from stdin; starting both right after pinning lets that start-up overlap the sandboxed
// review and the drift re-hash, instead of adding to the run's wall time (bench/runner.ts).
//
// The rules are exactly runner/attestor-host.ts's (whose one-shot `runPinnedAttestor` cannot start a
// process before its payload exists): the program and config bytes that were hashed and allowlisted
// at step 4 are written to a fresh private 0700 directory and only that sealed copy runs; empty
// environment plus PATH; stdout capped at 4 KiB; stderr drained, never echoed; a hard timeout that
// starts when the request is written; exit 3 = refused; the returned signature is verified with
// node:crypto under the key the policy names for the credential before anyone sees it. An attestor
// that is never asked (the run failed first) is killed and its directory removed.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ATTESTOR_EXIT_REFUSED } from '../../core/attestor-protocol.js';
import { attestorResponseSchema } from '../../core/attestor-protocol-schema.js';
import { decodeBase64Strict } from '../../core/base64.js';
import { pae } from '../../core/dsse.js';
import { verifyEd25519 } from '../../core/ed25519.js';
import { fail } from '../../core/errors.js';
import type { PinnedSigner } from './pin.js';
import { ATTESTOR_REPLY_MAX_BYTES } from '../../core/limits.js';

export const ATTESTOR_TIMEOUT_MS = 10_000;
export const ATTESTOR_MAX_OUTPUT = ATTESTOR_REPLY_MAX_BYTES;

export interface AttestorSignatureOut {
  readonly keyid: string;
  readonly sig: Buffer;
}

export interface StartedAttestor {
  /** Send the one request this process will ever get and return its verified signature. */
  sign(payloadType: string, payload: Buffer): Promise<AttestorSignatureOut>;
  /** Kill the process (if still running); resolves once it exited and its sealed directory is gone. */
  stop(): Promise<void>;
}

/** Start `signer` from a sealed copy in a fresh 0700 directory under `parentDir` (the run's scratch). */
export function startAttestor(signer: PinnedSigner, parentDir: string): StartedAttestor {
  const dir = mkdtempSync(join(parentDir, `${signer.credential}-`));
  let child: ChildProcess;
  try {
    const program = join(dir, 'attestor.mjs');
    const config = join(dir, 'config.json');
    writeFileSync(program, signer.program, { mode: 0o500, flag: 'wx' });
    writeFileSync(config, signer.config, { mode: 0o400, flag: 'wx' });
    child = spawn(process.execPath, [program, config], { cwd: dir, env: { PATH: '/usr/bin:/bin' }, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let overflow = false;
  let timedOut = false;
  // docs/formats.md#attestors "a hard timeout": 'close' waits for every holder of the attestor's stdout/stderr, and a
  // process the attestor started (an agent, a daemon) may hold them after the attestor itself exited,
  // where SIGKILL of the attestor does not reach. Cutting off also destroys our ends of the pipes, so
  // the session ends when the timeout (or stop) says so, never when such a helper lets go.
  const cutOff = (): void => {
    child.kill('SIGKILL');
    child.stdout?.destroy();
    child.stderr?.destroy();
  };
  child.stdout?.on('data', (c: Buffer) => {
    size += c.length;
    if (size > ATTESTOR_MAX_OUTPUT) {
      overflow = true;
      child.kill('SIGKILL');
      return;
    }
    chunks.push(c);
  });
  child.stderr?.resume();
  child.stdin?.on('error', () => undefined);
  const exited = new Promise<number | null>((resolve) => {
    child.on('error', () => resolve(null));
    child.on('close', (code) => resolve(overflow || timedOut ? null : code));
  });
  let stopped: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    if (stopped === null) {
      cutOff();
      stopped = exited.then(() => rmSync(dir, { recursive: true, force: true }));
    }
    return stopped;
  };

  const sign = async (payloadType: string, payload: Buffer): Promise<AttestorSignatureOut> => {
    const timer = setTimeout(() => {
      timedOut = true;
      cutOff();
    }, ATTESTOR_TIMEOUT_MS);
    try {
      child.stdin?.end(JSON.stringify({ payloadType, payload: payload.toString('base64') }));
      const code = await exited;
      if (code === ATTESTOR_EXIT_REFUSED) fail('attestor_refused', [signer.credential]);
      if (code !== 0) fail('attestor_failed', [signer.credential]);
      let value: unknown;
      try {
        value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return fail('attestor_failed', [signer.credential]);
      }
      const parsed = attestorResponseSchema.safeParse(value);
      if (!parsed.success) fail('attestor_failed', [signer.credential]);
      const res = parsed.data;
      const sig = decodeBase64Strict(res.sig, 'attestor_failed', 'sig');
      if (res.keyid !== signer.key.keyId) fail('attestor_signature_invalid', [res.keyid]);
      if (!verifyEd25519(signer.key, pae(payloadType, payload), sig)) fail('attestor_signature_invalid', [res.keyid]);
      return { keyid: res.keyid, sig };
    } finally {
      clearTimeout(timer);
      await stop();
    }
  };
  return { sign, stop };
}
