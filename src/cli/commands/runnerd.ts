// `governed runnerd serve | setup | doctor | hello` (docs/runnerd.md).
import type { RunnerdSetupOutput } from '../../core/command-output-areas.js';
import { fail } from '../../core/errors.js';
import { runnerdLayoutFindings } from '../../flows/runnerd/layout-findings.js';
import { DEFAULT_BASE, DEFAULT_MAX_RUNS, DEFAULT_SOCKET, DEFAULT_USER, SETUP_CREDENTIALS, type SetupCredential } from '../../flows/runnerd/layout.js';
import { runnerdSetup } from '../../flows/runnerd/setup.js';
import { writeError, type CommandResult } from '../output.js';
import { GovernedError, isGovernedError } from '../../core/errors.js';
import { resolve } from 'node:path';
import { SYSTEM_NAME_RE } from '../../core/ids.js';

export interface RunnerdCommandOptions {
  dir?: string;
  socket?: string;
  user?: string;
  writers: string;
  maxRuns?: string;
  key?: string[];
  reviewer?: string[];
  policy?: string;
  trust?: string;
  logOrigin?: string;
  json?: boolean;
}

const NAME_RE = SYSTEM_NAME_RE;

function base(o: RunnerdCommandOptions): { base: string; socket: string; user: string; writers: string } {
  const user = o.user ?? DEFAULT_USER;
  if (!NAME_RE.test(user) || !NAME_RE.test(o.writers)) fail('usage_error', ['--user/--writers']);
  return { base: resolve(o.dir ?? DEFAULT_BASE), socket: resolve(o.socket ?? DEFAULT_SOCKET), user, writers: o.writers };
}

export async function runnerdSetupCommand(o: RunnerdCommandOptions): Promise<CommandResult> {
  const keys: Partial<Record<SetupCredential, string>> = {};
  for (const k of o.key ?? []) {
    const i = k.indexOf('=');
    const cred = k.slice(0, i);
    if (i <= 0 || !(SETUP_CREDENTIALS as readonly string[]).includes(cred)) fail('usage_error', ['--key']);
    keys[cred as SetupCredential] = resolve(k.slice(i + 1));
  }
  if ((o.policy === undefined) !== (o.trust === undefined)) fail('usage_error', ['--policy/--trust']);
  const r = runnerdSetup({ ...base(o), keys, reviewers: (o.reviewer ?? []).map((f) => resolve(f)), policyFile: o.policy, trustFile: o.trust, logOrigin: o.logOrigin });
  return {
    exit: 0,
    json: { ok: true, actions: r.actions, uids: r.uids, credentials: r.credentials, reviewers: r.reviewers, home: r.home, socket: r.socket } satisfies RunnerdSetupOutput,
    human: [
      ...(r.actions.length === 0 ? ['nothing to do: everything is in place'] : r.actions),
      ...SETUP_CREDENTIALS.map((c) => `credential ${c}: key_id ${r.credentials[c].key_id} attestor_sha256 ${r.credentials[c].attestor_sha256} attestor_config_sha256 ${r.credentials[c].attestor_config_sha256}`),
      ...Object.entries(r.reviewers).map(([n, d]) => `reviewer ${n}: sha256 ${d}`),
    ].join('\n'),
  };
}

export async function runnerdDoctorCommand(o: RunnerdCommandOptions): Promise<CommandResult> {
  const { missingUsers, findings } = runnerdLayoutFindings(base(o));
  if (missingUsers.length > 0) fail('runnerd_user_missing', [...missingUsers]);
  if (findings.length > 0) {
    const e = new GovernedError('runnerd_state_unsafe', { ids: findings.map((f) => `${f.path}:${f.problem}`) });
    // The published command-error shape (docs/schemas): each finding is one id, `<path>:<problem>`.
    return { exit: e.exit, json: { ok: false, error: { ...e.toJSON(), ids: [...e.ids] } }, human: findings.map((f) => `${f.path}: ${f.problem} (expected ${f.expected})`).join('\n') };
  }
  return { exit: 0, json: { ok: true, findings: [] }, human: 'runnerd layout: every owner and mode is right' };
}

export async function runnerdHelloCommand(o: { runner?: string; json?: boolean }): Promise<CommandResult> {
  const { remoteResult, runnerSocket } = await import('../runnerd/client.js');
  const s = runnerSocket(o.runner) ?? fail('usage_error', ['--runner']);
  return remoteResult(s, { v: 1, op: 'hello' }, o);
}

/** Runs until drained; returns the process exit code. */
export async function runnerdServeCommand(o: RunnerdCommandOptions): Promise<number> {
  try {
    const maxRuns = o.maxRuns === undefined ? DEFAULT_MAX_RUNS : /^[1-9][0-9]{0,2}$/.test(o.maxRuns) ? Number(o.maxRuns) : fail('usage_error', ['--max-runs']);
    // A closed log reader (the supervisor went away) must never stop the daemon: EPIPE is ignored.
    process.stdout.on('error', () => undefined);
    process.stderr.on('error', () => undefined);
    const { startRunnerd } = await import('../runnerd/daemon.js');
    const d = await startRunnerd({ ...base(o), maxRuns }, (line) => process.stderr.write(`${JSON.stringify(line)}\n`));
    return await d.closed;
  } catch (e) {
    const err = isGovernedError(e) ? e : new GovernedError('internal_error', { cause: e });
    if (!isGovernedError(e) && process.env.GOVERNED_DEBUG === '1') process.stderr.write(`${(e as Error)?.stack ?? String(e)}\n`);
    writeError(err, { json: true });
    return err.exit;
  }
}
