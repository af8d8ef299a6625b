// Runs an attestor (docs/formats.md#attestors): only from pinned bytes whose sha256 — and whose config's sha256 —
// are on the allowlist it is given; from a sealed copy in a fresh private 0700 directory; with an
// empty environment plus PATH, a timeout and an output cap. The signature it returns is verified
// here with node:crypto under the key the caller expects before anyone sees it.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fail } from '../src/core/errors.js';
import { pae } from '../src/core/dsse.js';
import { decodeBase64Strict } from '../src/core/base64.js';
import { verifyEd25519, type PublicKey } from '../src/core/ed25519.js';
import { ATTESTOR_EXIT_REFUSED } from '../src/core/attestor-protocol.js';
import { attestorResponseSchema } from '../src/core/attestor-protocol-schema.js';
import { ATTESTOR_CONFIG_FORMAT } from '../src/core/attestor-protocol.js';
import { checkFormat } from '../src/core/format/interpret.js';
import { readPinned } from './pinned-file.js';
import { ATTESTOR_CONFIG_MAX_BYTES, ATTESTOR_PROGRAM_MAX_BYTES } from '../src/core/limits.js';

export interface AttestorAllowlist {
  /** hex sha256 values of attestor programs allowed for this credential */
  readonly attestorSha256: readonly string[];
  /** hex sha256 values of attestor config files allowed for this credential */
  readonly configSha256: readonly string[];
}

export interface AttestorRun {
  readonly attestorPath: string;
  readonly configPath: string;
  readonly allow: AttestorAllowlist;
  /** The key the signature must verify under (from the trust root). */
  readonly expectedKey: PublicKey;
  readonly payloadType: string;
  readonly payload: Uint8Array;
  /** The bytes the signature must verify over; default the DSSE PAE of payloadType and payload
   * (a C2SP note's signer signs the note body itself: runner/tlog-attestor-host.ts). */
  readonly signedBytes?: Uint8Array;
  readonly timeoutMs?: number;
  readonly maxOutputBytes?: number;
}

export interface AttestorSignature {
  readonly keyid: string;
  readonly sig: Buffer;
  readonly attestorSha256: string;
}

export interface PinnedAttestor {
  readonly program: Buffer;
  readonly programSha256: string;
  readonly config: Buffer;
  readonly configSha256: string;
}

/** The largest attestor program and attestor config accepted (src/core/limits.ts). */
export { ATTESTOR_CONFIG_MAX_BYTES, ATTESTOR_PROGRAM_MAX_BYTES };

/** Hash and allowlist-check an attestor and its config. Nothing is executed here. */
export function pinAttestor(attestorPath: string, configPath: string, allow: AttestorAllowlist): PinnedAttestor {
  const program = readPinned(attestorPath, ATTESTOR_PROGRAM_MAX_BYTES);
  const config = readPinned(configPath, ATTESTOR_CONFIG_MAX_BYTES);
  if (!allow.attestorSha256.includes(program.sha256)) fail('attestor_not_allowlisted', ['attestor']);
  if (!allow.configSha256.includes(config.sha256)) fail('attestor_not_allowlisted', ['attestor_config']);
  let parsed: unknown;
  try {
    parsed = JSON.parse(config.bytes.toString('utf8'));
  } catch {
    fail('attestor_config_invalid', []);
  }
  if (!checkFormat(ATTESTOR_CONFIG_FORMAT, parsed).success) fail('attestor_config_invalid', []);
  return { program: program.bytes, programSha256: program.sha256, config: config.bytes, configSha256: config.sha256 };
}

/** Run a pinned attestor once and return its verified signature. */
export async function runPinnedAttestor(
  pinned: PinnedAttestor,
  run: Omit<AttestorRun, 'attestorPath' | 'configPath' | 'allow'>,
): Promise<AttestorSignature> {
  const dir = mkdtempSync(join(realpathSync(tmpdir()), 'governed-attestor-'));
  try {
    // Sealed copy: the bytes that were hashed, in a directory only we can write.
    const program = join(dir, 'attestor.mjs');
    const config = join(dir, 'config.json');
    writeFileSync(program, pinned.program, { mode: 0o500, flag: 'wx' });
    writeFileSync(config, pinned.config, { mode: 0o400, flag: 'wx' });
    const request = JSON.stringify({ payloadType: run.payloadType, payload: Buffer.from(run.payload).toString('base64') });
    const { code, stdout } = await spawnCapped(process.execPath, [program, config], request, {
      timeoutMs: run.timeoutMs ?? 10_000,
      maxOutputBytes: run.maxOutputBytes ?? 4096,
      cwd: dir,
    });
    if (code === ATTESTOR_EXIT_REFUSED) fail('attestor_refused', []);
    if (code !== 0) fail('attestor_failed', []);
    let value: unknown;
    try {
      value = JSON.parse(stdout.toString('utf8'));
    } catch {
      fail('attestor_failed', []);
    }
    const res = attestorResponseSchema.safeParse(value);
    if (!res.success) fail('attestor_failed', []);
    const sig = decodeBase64Strict(res.data.sig, 'attestor_failed', 'sig');
    if (res.data.keyid !== run.expectedKey.keyId) fail('attestor_signature_invalid', [res.data.keyid]);
    if (!verifyEd25519(run.expectedKey, run.signedBytes ?? pae(run.payloadType, run.payload), sig)) {
      fail('attestor_signature_invalid', [res.data.keyid]);
    }
    return { keyid: res.data.keyid, sig, attestorSha256: pinned.programSha256 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Pin, then run: the attestor is executed only if both digests are allowlisted. */
export async function runAttestor(run: AttestorRun): Promise<AttestorSignature> {
  const pinned = pinAttestor(run.attestorPath, run.configPath, run.allow);
  return runPinnedAttestor(pinned, run);
}

interface SpawnResult {
  readonly code: number | null;
  readonly stdout: Buffer;
}

/** Spawn with an empty environment (plus PATH), stdin fed, stdout capped, a hard timeout. */
function spawnCapped(
  file: string,
  args: readonly string[],
  input: string,
  opts: { timeoutMs: number; maxOutputBytes: number; cwd: string },
): Promise<SpawnResult> {
  return new Promise((resolve) => {
    const child = spawn(file, [...args], {
      cwd: opts.cwd,
      env: { PATH: '/usr/bin:/bin' },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: false,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let overflow = false;
    let timedOut = false;
    // docs/formats.md#attestors "a hard timeout": a process the attestor started may hold its stdout/stderr after the
    // attestor exited ('close' would wait for it, and SIGKILL of the attestor does not reach it), so
    // the timeout also destroys our ends of the pipes and the run fails closed on time.
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
      child.stdout.destroy();
      child.stderr.destroy();
    }, opts.timeoutMs);
    child.stdout.on('data', (c: Buffer) => {
      size += c.length;
      if (size > opts.maxOutputBytes) {
        overflow = true;
        child.kill('SIGKILL');
        return;
      }
      chunks.push(c);
    });
    // stderr carries only a closed refusal code; it is drained and never echoed.
    child.stderr.resume();
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
    child.on('error', () => {
      clearTimeout(timer);
      resolve({ code: null, stdout: Buffer.alloc(0) });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: overflow || timedOut ? null : code, stdout: Buffer.concat(chunks) });
    });
  });
}
