// The in-sandbox relay (docs/egress.md#the-in-sandbox-relay): the first program of the relay
// profile, PID 1 of the reviewer's sandbox. It listens on 127.0.0.1:<port> in the sandbox's OWN,
// otherwise empty network namespace, and copies the bytes of every TCP connection to the egress
// broker's Unix socket bound into the sandbox — nothing else. It starts the reviewer only once it
// listens (no first-request race), passes the reviewer's exit status through, and never writes to
// stdout (the reviewer's output is the run's output).
//
// It is NOT a trust boundary: it runs as the reviewer's uid beside it, parses nothing and holds
// nothing. Every rule (one endpoint, routes, body allowlist, phantom, caps, transcript) is the
// broker's, outside the sandbox. If the relay dies, the kernel ends the whole PID namespace (it is
// PID 1): the sandbox loses its way out, it never gains one.
//
// argv: <port> <broker socket path> <program> [args…]   (fixed by the relay profile's template)
// Built by scripts/build.mjs into runner/egress/relay.mjs, one self-contained file whose sha256 the
// policy's egress.relay_sha256 lists and the receipt's egress section names.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { constants } from 'node:os';
import { EGRESS_RELAY_MAX_CONNECTIONS } from '../../../src/core/limits.js';

/** Connections at once (src/core/limits.ts). */
const MAX_CONNECTIONS = EGRESS_RELAY_MAX_CONNECTIONS;

function fatal(code: number): never {
  process.stderr.write(`relay: cannot start (${code})\n`);
  process.exit(code);
}

function relayConnection(client: Socket, socketPath: string): void {
  client.setNoDelay(true);
  const up = connect({ path: socketPath, allowHalfOpen: true });
  // Either side failing ends both at once; a clean end is passed on as a half-close (pipe), so the
  // response still flows after the client finished sending.
  const kill = (): void => {
    client.destroy();
    up.destroy();
  };
  client.on('error', kill);
  up.on('error', kill);
  client.on('close', (hadError) => {
    if (hadError || !up.writableEnded) up.destroy();
  });
  up.on('close', (hadError) => {
    if (hadError) client.destroy();
  });
  client.pipe(up);
  up.pipe(client);
}

/** TLS-terminating mode (docs/egress.md#tls-terminating-mode): the run CA's certificate arrives as
 * a variable (it is public: a certificate, never a key) and is written where NODE_EXTRA_CA_CERTS,
 * SSL_CERT_FILE and CURL_CA_BUNDLE point, in the sandbox's own /tmp, before the reviewer starts.
 * Literals, not imports: the relay's bytes stay independent of the rules file. */
const CA_ENV = 'GOVERNED_EGRESS_CA_PEM';
const CA_PATH = '/tmp/governed-egress-ca.pem';

function writeRunCa(): void {
  const pem = process.env[CA_ENV];
  if (pem === undefined) return;
  if (!/^-----BEGIN CERTIFICATE-----\n[A-Za-z0-9+/=\n]+-----END CERTIFICATE-----\n?$/.test(pem)) fatal(65);
  try {
    writeFileSync(CA_PATH, pem, { mode: 0o444, flag: 'wx' });
  } catch {
    fatal(73);
  }
}

function main(): void {
  writeRunCa();
  const [portText, socketPath, program, ...args] = process.argv.slice(2);
  const port = Number(portText);
  if (!Number.isSafeInteger(port) || port < 1 || port > 65535) fatal(64);
  if (socketPath === undefined || !socketPath.startsWith('/') || program === undefined || !program.startsWith('/')) fatal(64);
  const server = createServer({ allowHalfOpen: true, noDelay: true }, (client) => relayConnection(client, socketPath));
  server.maxConnections = MAX_CONNECTIONS;
  server.once('error', () => fatal(71));
  // The literal address, never `localhost`: the sandbox has no /etc/hosts and no resolver.
  server.listen({ host: '127.0.0.1', port, exclusive: true }, () => {
    server.removeAllListeners('error');
    server.on('error', () => undefined);
    const child = spawn(program, args, { stdio: 'inherit', env: process.env });
    child.once('error', () => process.exit(127));
    child.once('exit', (code, signal) => {
      const n = signal === null ? null : (constants.signals as Record<string, number>)[signal];
      process.exit(code ?? (n === undefined || n === null ? 255 : 128 + n));
    });
  });
}

main();
