// The seam between the protocol loops and whatever runs one reviewer call.
//
// `RunReviewer` is the only thing the loops call. Non-governed mode (this file) runs the configured
// command in the read-only repository sandbox (runner/repo-sandbox.ts) with a per-call timeout,
// retries and an output cap (docs/review-pass-protocol.md#reviewer-invocation). Governed mode (docs/review-pass.md#review-protocols: "every run is a
// review-run of docs/runner.md#the-run-step-by-step") will implement the same interface by issuing a challenge and running
// `governed review-run` for the policy's reviewer of a slot; its result is the opaque reviewer
// output of docs/reviewers.md#reviewer-output, adjudicated by the engines' `governed` strategy. That runner does not exist
// in this version, so governed mode stops before anything runs (governed-mode.ts).
import { randomBytes } from 'node:crypto';
import { startEgress, type EgressSession } from '../run/egress.js';
import { runInRepoSandbox, type RepoSandboxResult } from '../../../runner/repo-sandbox.js';
import { expandCommand, resolveProgram, type SandboxView } from './command.js';
import type { ResolvedTool } from './config-load.js';
import { isToolStrategy, toolReportOf } from './tool-findings.js';
import type { ToolLog } from './tool-log.js';
import { utf8OrNull } from '../../core/utf8.js';

export type ExecutionStatus = 'ok' | 'timeout' | 'failed';
/** `egress_refused`: a `network: broker` call whose broker refused a request, hit a cap or failed
 * (docs/egress.md "What each request must be"): the call is unusable whatever it printed. */
export type ExecutionFailure = 'tool_missing' | 'exit_code' | 'output_cap' | 'sandbox_failed' | 'empty_output' | 'output_not_utf8' | 'egress_refused';
/**
 * How the reviewer process ended (its last attempt), so a reviewer that scores health 0 says why:
 * `not_run` (tool missing), `sandbox_failed`, `timed_out`, `output_capped`, `killed_by_signal`
 * (bwrap reports 128 + the signal number: exit codes 129..192), `exited_nonzero`, `exited_zero`,
 * or `unparsable_output` — it exited with an accepted code but a tool parser (tsc, ESLint) could
 * not read its output (e.g. ESLint without a configuration).
 */
export type ExitClass =
  | 'not_run'
  | 'sandbox_failed'
  | 'timed_out'
  | 'output_capped'
  | 'killed_by_signal'
  | 'exited_nonzero'
  | 'exited_zero'
  | 'unparsable_output';

/** Human wording of an exit class (report.md). */
export const EXIT_CLASS_TEXT: Readonly<Record<ExitClass, string>> = {
  not_run: 'not run (tool missing)',
  sandbox_failed: 'sandbox failed',
  timed_out: 'timed out',
  output_capped: 'output over its cap',
  killed_by_signal: 'killed by signal',
  exited_nonzero: 'exited non-zero',
  exited_zero: 'exited 0',
  unparsable_output: 'unparsable output',
};

export interface ReviewerRequest {
  /** The reviewer (slot) name reported in logs and results. */
  readonly reviewer: string;
  readonly tool: ResolvedTool;
  /** What this call is for: a review round, a verifier pass, an arbitration, a rebuttal. */
  readonly purpose: 'review' | 'verify' | 'arbitrate' | 'rebuttal';
  readonly round: number;
  readonly prompt: string;
  /** Per-call timeout when the tool entry has none (docs/review-pass-protocol.md#budget-guard per stage). */
  readonly default_timeout_ms: number;
}

export interface ReviewerExecution {
  readonly reviewer: string;
  readonly tool: string;
  readonly purpose: ReviewerRequest['purpose'];
  readonly round: number;
  /** Fresh for every call (docs/review-pass-protocol.md#graceful-degradation: execution identities are never reused). */
  readonly execution_id: string;
  readonly status: ExecutionStatus;
  readonly failure: ExecutionFailure | null;
  /** Calls made, retries included. */
  readonly attempts: number;
  readonly exit_code: number | null;
  readonly exit_class: ExitClass;
  readonly duration_ms: number;
  /** stdout of the successful attempt; '' otherwise. Never printed by the CLI. */
  readonly stdout: string;
  /** `broker`: one endpoint through the egress broker (docs/review-pass.md "Network"). */
  readonly network: boolean | 'broker';
  /** `network: broker`, a call the broker let through: the head, count and sizes of its egress
   * transcript (the hash chain of src/core/egress-rules.ts; docs/review-pass.md "Network"). */
  readonly egress_transcript?: EgressTranscriptDigest | null;
}

/** What the advisory results keep of one call's egress transcript: digests and counts, never a record's content. */
export interface EgressTranscriptDigest {
  readonly head: string;
  readonly requests: number;
  readonly bytes_up: number;
  readonly bytes_down: number;
  /** TLS-terminating mode: the run CA the sandbox trusted. */
  readonly terminate_ca_sha256: string | null;
}

export interface RunReviewer {
  run(request: ReviewerRequest): Promise<ReviewerExecution>;
}


export function newExecutionId(): string {
  return `EXE-${randomBytes(16).toString('hex')}`;
}

interface Attempt {
  readonly status: ExecutionStatus;
  readonly failure: ExecutionFailure | null;
  readonly exit_code: number | null;
  readonly exit_class: ExitClass;
  readonly stdout: string;
  readonly duration_ms: number;
}

/** The exit class of one sandbox result (before its output is read). */
export function exitClassOf(r: Pick<RepoSandboxResult, 'status' | 'exitCode'>): ExitClass {
  if (r.status === 'sandbox_failed') return 'sandbox_failed';
  if (r.status === 'timeout') return 'timed_out';
  if (r.status === 'output_cap') return 'output_capped';
  if (r.exitCode === null) return 'sandbox_failed';
  if (r.exitCode === 0) return 'exited_zero';
  return r.exitCode > 128 && r.exitCode <= 128 + 64 ? 'killed_by_signal' : 'exited_nonzero';
}

function judge(tool: ResolvedTool, r: RepoSandboxResult): Attempt {
  const base = { exit_code: r.exitCode, exit_class: exitClassOf(r), duration_ms: r.durationMs, stdout: '' };
  if (r.status === 'timeout') return { ...base, status: 'timeout', failure: null };
  if (r.status === 'output_cap') return { ...base, status: 'failed', failure: 'output_cap' };
  if (r.status === 'sandbox_failed') return { ...base, status: 'failed', failure: 'sandbox_failed' };
  if (r.exitCode === null || !tool.ok_exit_codes.includes(r.exitCode)) return { ...base, status: 'failed', failure: 'exit_code' };
  const text = utf8OrNull(r.stdout);
  if (text === null) return { ...base, status: 'failed', failure: 'output_not_utf8' };
  if (text.trim().length === 0) return { ...base, status: 'failed', failure: 'empty_output' };
  // Tool output the protocol's parser cannot read makes the run unusable there; say so here.
  const unparsable = isToolStrategy(tool.parse) && toolReportOf(tool.parse, text) === null;
  return { ...base, ...(unparsable ? { exit_class: 'unparsable_output' as const } : {}), status: 'ok', failure: null, stdout: text };
}

/** Non-governed reviewer calls: the configured command in the read-only repository sandbox. */
export class SandboxedCommandRunner implements RunReviewer {
  constructor(
    private readonly view: SandboxView,
    /** The caller's environment, read only for the names a tool lists in env_passthrough. */
    private readonly callerEnv: Readonly<Record<string, string | undefined>>,
    /** Execution ids: fresh random ones unless a test makes them reproducible. */
    private readonly newId: () => string = newExecutionId,
    /** `--tool-log DIR`: where each attempt's stderr goes (null: drained and dropped). */
    private readonly toolLog: ToolLog | null = null,
  ) {}

  async run(req: ReviewerRequest): Promise<ReviewerExecution> {
    const tool = req.tool;
    const execution_id = this.newId();
    const common = { reviewer: req.reviewer, tool: tool.name, purpose: req.purpose, round: req.round, execution_id, network: tool.network };
    const program = resolveProgram(this.view, expandCommand(tool.command));
    if (!program.available) {
      // docs/review-pass-protocol.md#tool-detection: a tool that is not installed is skipped, never a crash of the run.
      return { ...common, status: 'failed', failure: 'tool_missing', attempts: 0, exit_code: null, exit_class: 'not_run', duration_ms: 0, stdout: '' };
    }
    const env: Record<string, string> = { ...tool.env };
    for (const name of tool.env_passthrough) {
      const v = this.callerEnv[name];
      if (v !== undefined && !v.includes('\0')) env[name] = v;
    }
    const prompt = Buffer.from(req.prompt, 'utf8');
    let last: Attempt | null = null;
    /** The last attempt's egress transcript digest (`network: broker`), null when it was refused. */
    let transcript: EgressTranscriptDigest | null = null;
    let attempts = 0;
    let total = 0;
    // docs/review-pass-protocol.md#timeouts-and-retries, docs/review-pass-protocol.md#graceful-degradation: a failed call is retried up to `retries` times, then degrades.
    for (let i = 0; i <= tool.retries; i++) {
      attempts++;
      transcript = null;
      const log = this.toolLog?.open(execution_id, attempts, tool.max_output_bytes) ?? null;
      const timeoutMs = tool.timeout_ms ?? req.default_timeout_ms;
      // `network: broker`: a broker per attempt (its caps and transcript are per call), started from
      // the pinned program with the caller's credential; the relay's pinned bytes go in with it.
      let egress: EgressSession | null = null;
      if (tool.egress !== null) {
        try {
          egress = await startEgress(tool.egress, { sandboxUid: process.geteuid?.() ?? 0, timeoutSeconds: Math.ceil(timeoutMs / 1000), env: this.callerEnv });
        } catch {
          log?.close();
          last = { status: 'failed', failure: 'egress_refused', exit_code: null, exit_class: 'not_run', stdout: '', duration_ms: 0 };
          break;
        }
      }
      // (async: a spec the sandbox refuses rejects, so the broker below is still stopped)
      const r = await (async () => runInRepoSandbox({
        repoDir: this.view.repoDir,
        toolsDir: this.view.toolsDir,
        argv: program.argv,
        env,
        network: tool.network === true,
        ...(egress === null || egress.relay === undefined ? {} : { egress: { socket: egress.wiring.socket, env: egress.wiring.env, relay: egress.relay.bytes } }),
        stdin: tool.prompt === 'stdin' ? prompt : null,
        promptFile: tool.prompt === 'file' ? prompt : null,
        timeoutMs,
        maxOutputBytes: tool.max_output_bytes,
        ...(log === null ? {} : { stderrSink: (c: Buffer) => log.write(c) }),
      }))()
        .finally(() => log?.close())
        .catch(async (e: unknown) => {
          await egress?.finish().catch(() => undefined);
          throw e;
        });
      // The broker's verdict: any refused request, cap or broker failure makes the call unusable.
      const receipt = egress === null ? null : await egress.finish().catch(() => null);
      const refused = egress !== null && receipt === null;
      transcript =
        receipt === null
          ? null
          : { head: receipt.transcript.head, requests: receipt.transcript.requests, bytes_up: receipt.transcript.bytes_up, bytes_down: receipt.transcript.bytes_down, terminate_ca_sha256: receipt.terminate_ca_sha256 ?? null };
      last = refused ? { ...judge(tool, r), status: 'failed', failure: 'egress_refused', stdout: '' } : judge(tool, r);
      total += last.duration_ms;
      // A sandbox that cannot be built will not be built by retrying.
      // A reviewer that tried to leave its lane is not given another try.
      if (last.status === 'ok' || last.failure === 'sandbox_failed' || last.failure === 'egress_refused') break;
    }
    const a = last as Attempt;
    return { ...common, status: a.status, failure: a.failure, attempts, exit_code: a.exit_code, exit_class: a.exit_class, duration_ms: total, stdout: a.stdout, ...(tool.egress === null ? {} : { egress_transcript: transcript }) };
  }
}
