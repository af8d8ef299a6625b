// `governed keygen` (docs/commands.md#what-each-command-guarantees): an Ed25519 key pair for one credential. The private key is
// written with exclusive create and mode 0600 (never overwritten, never world-readable even for
// an instant); the public key is SPKI PEM. Nothing is left half-written on failure.
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, writeFileSync, existsSync, unlinkSync, chmodSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fail } from '../core/errors.js';
import { CREDENTIAL_RE } from '../core/attestor-protocol.js';
import { publicKeyFromSpkiDer } from '../core/ed25519.js';

export interface KeygenResult {
  readonly credential: string;
  readonly keyId: string;
  readonly privateKeyPath: string;
  readonly publicKeyPath: string;
}

export function keygen(credential: string, outDir: string): KeygenResult {
  if (!CREDENTIAL_RE.test(credential)) fail('credential_id_invalid', []);
  const dir = resolve(outDir);
  // docs/commands.md#exit-codes: every refusal is a coded error (an --out that is a file, or under one, used to end
  // in internal_error).
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    fail('key_output_unwritable', [credential]);
  }
  const privateKeyPath = join(dir, `${credential}.key`);
  const publicKeyPath = join(dir, `${credential}.pub`);
  if (existsSync(privateKeyPath) || existsSync(publicKeyPath)) fail('key_output_exists', [credential]);

  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const spki = publicKey.export({ format: 'der', type: 'spki' });
  const pub = publicKeyFromSpkiDer(spki); // the same acceptance rule as every verifier
  const pkcs8Pem = privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  const spkiPem = publicKey.export({ format: 'pem', type: 'spki' }) as string;

  try {
    writeFileSync(privateKeyPath, pkcs8Pem, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    // EEXIST: someone else's file, left alone. Anything else (ENOSPC, EIO, EISDIR…): the exclusive
    // create may have made a partial key file of OURS — removed, so nothing is half-written (docs/threat-model.md#rules-that-hold-everywhere).
    if (errnoOf(e) === 'EEXIST') fail('key_output_exists', [credential]);
    removeOwn(privateKeyPath);
    fail('key_output_unwritable', [credential]);
  }
  chmodSync(privateKeyPath, 0o600); // the umask cannot widen it, but make the intent explicit
  try {
    writeFileSync(publicKeyPath, spkiPem, { mode: 0o644, flag: 'wx' });
  } catch (e) {
    removeOwn(privateKeyPath);
    if (errnoOf(e) === 'EEXIST') fail('key_output_exists', [credential]);
    removeOwn(publicKeyPath);
    fail('key_output_unwritable', [credential]);
  }
  return { credential, keyId: pub.keyId, privateKeyPath, publicKeyPath };
}

const errnoOf = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | null)?.code;

/** Remove a file this call created (best effort: a failure to remove must not hide the refusal). */
function removeOwn(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Not there (the create itself failed): nothing to remove.
  }
}
