// A review run whose reviewer has an egress entry (docs/egress.md): the credential is loaded by the
// runner (a named environment variable of the runner, or a 0600 file it owns — never from the
// writer), the pinned broker is started with it, the sandbox gets the broker's socket and a per-run
// phantom token, and after the sandbox exited the broker's records become the receipt's transcript.
//
// Fail closed: a broker that did not start or crashed (`egress_broker_failed`), and any record that
// is not `forwarded` — a refused attempt to leave the lane, a cap, a truncated response — ends the
// run ABORTED with that record's code (src/core/egress-rules.ts EGRESS_OUTCOME_CODES), even when the
// reviewer itself then printed a valid output.
import { randomBytes } from 'node:crypto';
import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { digestOf } from '../../core/canonical.js';
import { parseDurationSeconds, parseSizeBytes } from '../../core/duration.js';
import { fail, isGovernedError, type ErrorCode } from '../../core/errors.js';
import { chainRecords, EGRESS_ENV, EGRESS_OUTCOME_CODES, EGRESS_SANDBOX_SOCKET, relayEnv, terminateEnv, transcriptTotals } from '../../core/egress-rules.js';
import type { EgressPolicy, EgressReceipt } from '../../core/egress-schema.js';
import { readPinned } from '../../../runner/pinned-file.js';
import { startBroker, type BrokerStartConfig, type StartedBroker } from '../../../runner/egress/host.js';
import { makeRunCa, runCaUsable, type RunCa } from '../../../runner/egress/run-ca.js';
import type { EgressWiring } from '../../../runner/sandbox/argv.js';
import { installRoot } from './locations.js';
import { EGRESS_BROKER_MAX_BYTES, EGRESS_CREDENTIAL_MAX_BYTES } from '../../core/limits.js';

const MAX_BROKER_BYTES = EGRESS_BROKER_MAX_BYTES;
const MAX_CREDENTIAL_BYTES = EGRESS_CREDENTIAL_MAX_BYTES;
/** The broker's deadline beyond the sandbox timeout (it must outlive the reviewer it serves). */
const DEADLINE_SLACK_MS = 2_000;

/** Where the pinned broker program is looked for (GOVERNED_EGRESS_BROKER overrides, for tests and installs). */
export function brokerFile(): string {
  const fromEnv = process.env.GOVERNED_EGRESS_BROKER;
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : join(installRoot(), 'runner', 'egress', 'broker.mjs');
}

/** Where the pinned in-sandbox relay is looked for (GOVERNED_EGRESS_RELAY overrides, for tests and installs). */
export function relayFile(): string {
  const fromEnv = process.env.GOVERNED_EGRESS_RELAY;
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : join(installRoot(), 'runner', 'egress', 'relay.mjs');
}

/** The API key, from the runner's environment variable or a 0600 regular file owned by the runner. */
export function loadCredential(e: EgressPolicy, env: Readonly<Record<string, string | undefined>> = process.env): string {
  if ('env' in e.credential) {
    const v = env[e.credential.env];
    if (v === undefined || v === '' || v.length > MAX_CREDENTIAL_BYTES || /[\r\n\0]/.test(v)) fail('egress_credential_unavailable', ['env']);
    return v;
  }
  let st;
  try {
    st = lstatSync(e.credential.file);
  } catch {
    return fail('egress_credential_unavailable', ['file']);
  }
  const euid = process.geteuid?.() ?? -1;
  if (!st.isFile() || (st.mode & 0o077) !== 0 || st.uid !== euid || st.size > MAX_CREDENTIAL_BYTES) fail('egress_credential_unavailable', ['file']);
  const key = readFileSync(e.credential.file, 'utf8').replace(/\r?\n$/, '');
  if (key === '' || /[\r\n\0]/.test(key)) fail('egress_credential_unavailable', ['file']);
  return key;
}

function loadCa(e: EgressPolicy): string | null {
  if (e.ca === undefined) return null;
  let pinned;
  try {
    pinned = readPinned(e.ca.file, 1024 * 1024);
  } catch {
    return fail('egress_ca_invalid', ['ca']);
  }
  if (pinned.sha256 !== e.ca.sha256) fail('egress_ca_invalid', ['ca']);
  return pinned.bytes.toString('utf8');
}

function pinBroker(e: EgressPolicy): { bytes: Buffer; sha256: string } {
  let pinned;
  try {
    pinned = readPinned(brokerFile(), MAX_BROKER_BYTES);
  } catch (err) {
    if (isGovernedError(err)) fail('egress_broker_not_allowlisted', ['broker']);
    throw err;
  }
  if (!e.broker_sha256.includes(pinned.sha256)) fail('egress_broker_not_allowlisted', ['broker']);
  return pinned;
}

/** The relay's bytes, for an entry behind the relay (docs/egress.md#the-in-sandbox-relay); null otherwise. */
function pinRelay(e: EgressPolicy): { bytes: Buffer; sha256: string } | null {
  if (e.relay === undefined) return null;
  let pinned;
  try {
    pinned = readPinned(relayFile(), MAX_BROKER_BYTES);
  } catch (err) {
    if (isGovernedError(err)) fail('egress_relay_not_allowlisted', ['relay']);
    throw err;
  }
  if (!e.relay.sha256.includes(pinned.sha256)) fail('egress_relay_not_allowlisted', ['relay']);
  return pinned;
}

/** Before the claim: everything the broker needs is present and allowlisted (nothing recorded). */
export function assertEgressUsable(e: EgressPolicy, env: Readonly<Record<string, string | undefined>> = process.env): void {
  loadCredential(e, env);
  loadCa(e);
  pinBroker(e);
  pinRelay(e);
  // TLS-terminating mode needs openssl for the run CA: found missing now, not after the claim.
  if (e.relay?.terminate === true && !runCaUsable()) fail('egress_openssl_unavailable', ['openssl']);
}

/** A phantom token shaped like the provider's keys (client-side format checks pass); valid only at this broker. */
function phantomFor(provider: EgressPolicy['provider']): string {
  const r = randomBytes(32).toString('hex');
  return provider === 'anthropic' ? `sk-ant-api03-gvd${r}` : `sk-gvd${r}`;
}

export interface EgressSession {
  readonly wiring: EgressWiring;
  /** Behind the relay: its pinned bytes and the entry's allowlist (the sandbox streams and re-checks them). */
  readonly relay: { readonly bytes: Buffer; readonly sha256: readonly string[] } | undefined;
  /** Stop the broker and turn its records into the receipt section; throws the run's egress code. */
  finish(): Promise<EgressReceipt>;
}

interface EgressStartOptions {
  readonly sandboxUid: number;
  readonly timeoutSeconds: number;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Separated mode: the daemon's hosted broker-socket directory (runner/egress/host.ts). */
  readonly socketParent?: string | undefined;
}

export async function startEgress(e: EgressPolicy, o: EgressStartOptions): Promise<EgressSession> {
  const key = loadCredential(e, o.env);
  const ca = loadCa(e);
  const broker = pinBroker(e);
  const relay = pinRelay(e);
  const phantom = phantomFor(e.provider);
  // TLS-terminating mode: a fresh CA per run, for the policy host only (docs/egress.md#tls-terminating-mode).
  let runCa: RunCa | null = null;
  if (relay !== null && e.relay?.terminate === true) {
    try {
      runCa = makeRunCa(e.host);
    } catch {
      return fail('egress_broker_failed', ['run_ca']);
    }
  }
  let started: StartedBroker;
  try {
    started = await startBroker(broker.bytes, brokerConfigOf(e, o, { key, ca, phantom, runCa }), { socketParent: o.socketParent });
  } catch {
    return fail('egress_broker_failed', ['start']);
  }
  let finished: Promise<EgressReceipt> | null = null;
  return {
    wiring: wiringOf(e, started.socket, phantom, relay !== null, runCa),
    relay: relay === null || e.relay === undefined ? undefined : { bytes: relay.bytes, sha256: e.relay.sha256 },
    finish(): Promise<EgressReceipt> {
      finished ??= egressReceiptOf(e, started, broker.sha256, relay?.sha256 ?? null, runCa);
      return finished;
    },
  };
}

// The broker's one configuration line: the policy's endpoint, routes and caps, the real key and the
// phantom the sandbox gets instead (docs/egress.md).
function brokerConfigOf(e: EgressPolicy, o: EgressStartOptions, x: { key: string; ca: string | null; phantom: string; runCa: RunCa | null }): BrokerStartConfig {
  const euid = process.geteuid?.() ?? -1;
  return {
    terminate: x.runCa === null ? null : { cert_pem: x.runCa.leafPem, key_pem: x.runCa.leafKeyPem },
    provider: e.provider,
    model: e.model,
    host: e.host,
    port: e.port,
    transport: e.transport,
    allow_loopback: e.allow_loopback === true,
    ca_pem: x.ca,
    routes: e.routes,
    key: x.key,
    phantom: x.phantom,
    socket_uid: euid === 0 ? o.sandboxUid : null,
    caps: {
      requests: e.caps.requests,
      request_bytes: parseSizeBytes(e.caps.request_bytes),
      response_bytes: parseSizeBytes(e.caps.response_bytes),
      total_up: parseSizeBytes(e.caps.total_up),
      total_down: parseSizeBytes(e.caps.total_down),
      request_timeout_ms: parseDurationSeconds(e.caps.request_timeout) * 1000,
      connections: e.caps.connections,
      deadline_ms: o.timeoutSeconds * 1000 + DEADLINE_SLACK_MS,
    },
  };
}

// What the sandbox is wired with: the broker's socket and the variables naming it, the phantom, and
// behind the relay or in terminate mode their own variables (docs/egress.md).
function wiringOf(e: EgressPolicy, socket: string, phantom: string, relayed: boolean, runCa: RunCa | null): EgressWiring {
  return {
    socket,
    env: {
      [EGRESS_ENV.socket]: EGRESS_SANDBOX_SOCKET,
      [EGRESS_ENV.token]: phantom,
      [EGRESS_ENV.provider]: e.provider,
      [EGRESS_ENV.model]: e.model,
      [EGRESS_ENV.path]: (e.routes[0] as { path: string }).path,
      // Behind the relay: its URL and the provider's own base-URL and key variables (the phantom).
      ...(relayed ? relayEnv(e.provider, phantom) : {}),
      // Terminate mode: the relay is also the HTTPS proxy, and the run CA is the sandbox's trust store.
      ...(runCa === null ? {} : terminateEnv(runCa.caPem, e.host, e.port)),
    },
    ...(relayed ? { relay: true } : {}),
    ...(runCa === null ? {} : { terminate: true }),
  };
}

// The broker stopped: its records chained into the receipt's transcript, or the run's egress code
// (docs/egress.md).
async function egressReceiptOf(e: EgressPolicy, started: StartedBroker, brokerSha256: string, relaySha256: string | null, runCa: RunCa | null): Promise<EgressReceipt> {
  const outcome = await started.stop();
  // A refusal names why the run failed more precisely than the crash it may have caused.
  const refused = outcome.records.find((r) => r.outcome !== 'forwarded');
  if (refused !== undefined && refused.outcome !== 'forwarded') fail(EGRESS_OUTCOME_CODES[refused.outcome] as ErrorCode, [refused.outcome]);
  if (outcome.crashed) fail('egress_broker_failed', ['crash']);
  if (outcome.records.length > e.caps.requests) fail('egress_cap_exceeded', ['requests']);
  const { records, head } = chainRecords(outcome.records);
  return {
    policy_digest: digestOf(e),
    provider: e.provider,
    model: e.model,
    host: e.host,
    port: e.port,
    transport: e.transport,
    broker_sha256: brokerSha256,
    ...(relaySha256 === null ? {} : { relay_sha256: relaySha256 }),
    ...(runCa === null ? {} : { terminate_ca_sha256: runCa.caSha256 }),
    transcript: { head, records, ...transcriptTotals(records) },
  };
}
