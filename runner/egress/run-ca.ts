// The per-run certificate authority of the TLS-terminating mode (docs/egress.md#tls-terminating-mode).
// A client that only honours HTTPS_PROXY opens a CONNECT tunnel and speaks TLS to the host it names;
// the broker ends that TLS itself, so the client must trust a certificate the broker holds. This makes,
// per run and offline, with node:crypto keys and the system's openssl(1):
//   - a CA (P-256, one day, basicConstraints CA:TRUE pathlen:0, nameConstraints permitted;DNS:<host>),
//   - one leaf for exactly the policy host, signed by it (serverAuth, CA:FALSE).
// The CA's private key exists only in a private 0700 directory while openssl signs the leaf and is
// removed before this function returns: nothing can mint a second certificate from it, and the leaf
// it did sign names only the policy host. The CA certificate goes into the sandbox (the only place
// that trusts it), the leaf and its key go to the broker over stdin (never argv, never a file the
// sandbox can see). openssl runs with an empty environment (no OPENSSL_CONF from the caller).
import { generateKeyPairSync, createHash, X509Certificate } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EGRESS_HOST_RE } from '../../src/core/egress-schema.js';

/** The openssl the runner uses (a root-owned system binary; not a policy choice). */
export const OPENSSL = '/usr/bin/openssl';

export interface RunCa {
  /** The CA certificate (PEM): what the sandbox trusts. */
  readonly caPem: string;
  /** sha256 (hex) of the CA certificate's DER, for the receipt. */
  readonly caSha256: string;
  /** The leaf for the policy host and its private key (PEM): what the broker serves. */
  readonly leafPem: string;
  readonly leafKeyPem: string;
}

/** A DNS name as the policy schema admits it (checked again: it is written into openssl's config). */
const HOST_RE = EGRESS_HOST_RE;

function config(host: string): string {
  return [
    '[req]',
    'distinguished_name = dn',
    'prompt = no',
    '[dn]',
    'CN = governed egress run CA',
    '[ca]',
    'basicConstraints = critical,CA:TRUE,pathlen:0',
    'keyUsage = critical,keyCertSign',
    `nameConstraints = critical,permitted;DNS:${host}`,
    'subjectKeyIdentifier = hash',
    '[leaf]',
    'basicConstraints = critical,CA:FALSE',
    'keyUsage = critical,digitalSignature',
    'extendedKeyUsage = serverAuth',
    `subjectAltName = DNS:${host}`,
    '',
  ].join('\n');
}

const keyPem = (): string => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;

/**
 * Before the claim (docs/egress.md#tls-terminating-mode): is `OPENSSL` a program this runner can run?
 * It is run once (`openssl version`, empty environment, offline), so a missing, non-executable or
 * broken binary is found here rather than after the challenge is claimed. Returns false, never throws.
 */
export function runCaUsable(): boolean {
  try {
    execFileSync(OPENSSL, ['version'], { cwd: '/', env: {}, stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/** Make the run's CA and its one leaf for `host`; throws when openssl is missing or fails. */
export function makeRunCa(host: string): RunCa {
  if (!HOST_RE.test(host)) throw new RangeError('run CA: host');
  const dir = mkdtempSync(join(realpathSync(tmpdir()), 'governed-runca-'));
  try {
    chmodSync(dir, 0o700);
    const leafKeyPem = keyPem();
    writeFileSync(join(dir, 'ca.key'), keyPem(), { mode: 0o600, flag: 'wx' });
    writeFileSync(join(dir, 'leaf.key'), leafKeyPem, { mode: 0o600, flag: 'wx' });
    writeFileSync(join(dir, 'openssl.cnf'), config(host), { mode: 0o600, flag: 'wx' });
    const run = (args: string[]): void => {
      execFileSync(OPENSSL, ['req', '-config', 'openssl.cnf', '-x509', '-new', '-days', '1', ...args], { cwd: dir, env: {}, stdio: 'ignore', timeout: 10_000 });
    };
    run(['-key', 'ca.key', '-extensions', 'ca', '-out', 'ca.pem']);
    run(['-key', 'leaf.key', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-extensions', 'leaf', '-subj', `/CN=${host}`, '-out', 'leaf.pem']);
    const caPem = readFileSync(join(dir, 'ca.pem'), 'utf8');
    const leafPem = readFileSync(join(dir, 'leaf.pem'), 'utf8');
    // What openssl made is what was asked for: the leaf verifies against the CA and names the host.
    const ca = new X509Certificate(caPem);
    const leaf = new X509Certificate(leafPem);
    if (!ca.ca || leaf.ca || !leaf.verify(ca.publicKey) || leaf.checkHost(host) !== host) throw new Error('run CA: openssl produced something else');
    return { caPem, caSha256: createHash('sha256').update(ca.raw).digest('hex'), leafPem, leafKeyPem };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
