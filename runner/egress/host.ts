// Starting and stopping the egress broker (docs/egress.md "The broker process"). The runner holds the
// broker's pinned bytes (hashed and allowlisted by the caller), writes them into a fresh private
// directory, and starts `node <copy>` with an EMPTY environment and no arguments; the configuration,
// which carries the API key, goes over the broker's stdin, so the key is never in any argv or
// environment. The socket lives in its own directory (0711, a neutral `governed-egress-` name: the
// host path shows in the sandbox's /proc/self/mountinfo), so the sandbox uid can reach the socket
// (0600, chowned to that uid by the broker) and nothing else of it.
//
// The runner — not the broker — chains the records (src/core/egress-rules.ts chainRecords): the
// broker only reports them. A broker that exits before it was told to stop, or reports anything
// that is not its record format, is a crashed broker (`egress_broker_failed`).
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EgressRecord } from '../../src/core/egress-rules.js';
import { egressBrokerRecordSchema } from '../../src/core/egress-schema.js';
import { EGRESS_BROKER_LINE_MAX_BYTES } from '../../src/core/limits.js';

export type RawEgressRecord = Omit<EgressRecord, 'seq' | 'prev'>;

export interface BrokerStartConfig {
  readonly provider: 'anthropic' | 'openai';
  readonly model: string;
  readonly host: string;
  readonly port: number;
  readonly transport: 'tls' | 'plain-loopback';
  readonly allow_loopback: boolean;
  readonly ca_pem: string | null;
  /** TLS-terminating mode (docs/egress.md#tls-terminating-mode): the run CA's leaf for the host and
   * its key (runner/egress/run-ca.ts). Absent or null: the broker refuses every CONNECT. */
  readonly terminate?: { readonly cert_pem: string; readonly key_pem: string } | null;
  readonly routes: readonly { readonly method: 'POST'; readonly path: string }[];
  readonly key: string;
  readonly phantom: string;
  readonly socket_uid: number | null;
  readonly caps: {
    readonly requests: number;
    readonly request_bytes: number;
    readonly response_bytes: number;
    readonly total_up: number;
    readonly total_down: number;
    readonly request_timeout_ms: number;
    readonly connections: number;
    readonly deadline_ms: number;
  };
}

export interface BrokerOutcome {
  readonly records: readonly RawEgressRecord[];
  /** The broker exited on its own, was killed, or reported something malformed. */
  readonly crashed: boolean;
}

export interface StartedBroker {
  /** Host path of the socket (bind it into the sandbox). */
  readonly socket: string;
  readonly pid: number;
  /** Records seen so far (a copy). */
  records(): readonly RawEgressRecord[];
  /** Close stdin (stop), wait for the broker to exit, remove its directories. */
  stop(): Promise<BrokerOutcome>;
}

const READY_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;
const MAX_LINE = EGRESS_BROKER_LINE_MAX_BYTES;

/** A broker line's record, checked against the one record schema (src/core/egress-schema.ts,
 * without the runner's `seq` and `prev`); null when it is not exactly that shape. */
export function parseRecord(v: unknown): RawEgressRecord | null {
  const r = egressBrokerRecordSchema.safeParse(v);
  return r.success ? r.data : null;
}

/** Start the broker from its pinned bytes; resolves once it listens (or rejects: not started). */
export async function startBroker(
  brokerBytes: Buffer,
  config: BrokerStartConfig,
  o: {
    /** Separated mode, hosted egress slot (docs/runnerd.md#model-reviewers-and-the-egress-broker):
     * the socket's directory goes here (a directory only the daemon and the sandbox gid can enter),
     * and the socket is made 0666 once the broker listens, so the sandbox host's uid can connect. */
    readonly socketParent?: string | undefined;
  } = {},
): Promise<StartedBroker> {
  const dirs = brokerDirs(brokerBytes, o.socketParent);
  const socket = dirs.socket;
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [dirs.program], { env: {}, cwd: '/', stdio: ['pipe', 'pipe', 'ignore'] });
  } catch (e) {
    dirs.cleanup();
    throw e;
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  });
  const lines = readBrokerLines(child);
  child.stdin?.on('error', () => undefined);
  child.stdin?.write(`${JSON.stringify({ ...config, terminate: config.terminate ?? null, socket })}\n`);
  let started = await waitReady(lines, exited);
  if (started && o.socketParent !== undefined) {
    // The broker (this runner's uid) made the socket 0600; the runner owns it too and opens it to
    // whoever can enter socketParent.
    try {
      chmodSync(socket, 0o666);
    } catch {
      started = false;
    }
  }
  if (!started) {
    child.kill('SIGKILL');
    await exited;
    dirs.cleanup();
    throw new Error('egress broker did not start');
  }
  return {
    socket,
    pid: child.pid as number,
    records: () => [...lines.records],
    async stop(): Promise<BrokerOutcome> {
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      const { code, signal } = await exited;
      clearTimeout(timer);
      dirs.cleanup();
      const crashed = lines.malformed || !lines.done || code !== 0 || signal !== null;
      return { records: [...lines.records], crashed };
    },
  };
}

// The broker's program in a directory of its own (0700) and its socket's directory (traversable,
// not listable, by the sandbox uid, which must reach the socket inside); both removed by cleanup
// (docs/egress.md).
function brokerDirs(brokerBytes: Buffer, socketParent: string | undefined): { program: string; socket: string; cleanup: () => void } {
  const base = realpathSync(tmpdir());
  const programDir = mkdtempSync(join(base, 'governed-broker-'));
  chmodSync(programDir, 0o700);
  const socketDir = mkdtempSync(join(socketParent ?? base, 'governed-egress-'));
  chmodSync(socketDir, 0o711);
  const socket = join(socketDir, 'egress.sock');
  const program = join(programDir, 'broker.mjs');
  writeFileSync(program, brokerBytes, { mode: 0o500, flag: 'wx' });
  const cleanup = (): void => {
    rmSync(programDir, { recursive: true, force: true });
    rmSync(socketDir, { recursive: true, force: true });
  };
  return { program, socket, cleanup };
}

/** What the broker's stdout said so far: its ready and done lines, its records, and whether any
 * line was not one of those (malformed: the run's transcript is then not trusted). */
interface BrokerLines {
  readonly records: RawEgressRecord[];
  malformed: boolean;
  ready: boolean;
  done: boolean;
  onReady: (() => void) | null;
}

// The broker's stdout, one JSON object per line, each line capped (docs/egress.md).
function readBrokerLines(child: ChildProcess): BrokerLines {
  const st: BrokerLines = { records: [], malformed: false, ready: false, done: false, onReady: null };
  let buf = '';
  child.stdout?.on('data', (d: Buffer) => {
    buf += d.toString('utf8');
    if (buf.length > MAX_LINE && !buf.includes('\n')) {
      st.malformed = true;
      buf = '';
    }
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      let v: unknown;
      try {
        v = JSON.parse(line);
      } catch {
        st.malformed = true;
        continue;
      }
      const o = v as Record<string, unknown>;
      if (o !== null && typeof o === 'object' && o.ready === true && !st.ready) {
        st.ready = true;
        st.onReady?.();
      } else if (o !== null && typeof o === 'object' && o.done === true) st.done = true;
      else {
        const r = parseRecord(o?.record);
        if (r === null) st.malformed = true;
        else st.records.push(r);
      }
    }
  });
  return st;
}

// Ready within READY_TIMEOUT_MS, or not started (it exited first, or the time ran out).
function waitReady(lines: BrokerLines, exited: Promise<unknown>): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS);
    lines.onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    void exited.then(() => {
      clearTimeout(timer);
      resolve(lines.ready);
    });
  });
}
