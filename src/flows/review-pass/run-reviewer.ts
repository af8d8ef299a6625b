// The seam between the protocol loops and whatever runs one reviewer call.
//
// `RunReviewer` is the only thing the loops call. Non-governed mode (this file) runs the configured
// command in the read-only repository sandbox (runner/repo-sandbox.ts) with a per-call timeout,
// retries and an output cap (review-pass-v3 §2.3-§2.5). Governed mode (docs/review-pass.md#review-protocols: "every run is a
// review-run of docs/runner.md#the-run-step-by-step") will implement the same interface by issuing a challenge and running
// `governed review-run` for the policy's reviewer of a slot; its result is the opaque reviewer
// output of docs/reviewers.md#reviewer-output, adjudicated by the engines' `governed` strategy. That runner does not exist
// in this version, so governed mode stops before anything runs (governed-mode.ts).
import { randomBytes } from 'node:crypto';
import { runInRepoSandbox, type RepoSandboxResult } from '../../../runner/repo-sandbox.js';
import { expandCommand, resolveProgram, type SandboxView } from './command.js';
import type { ResolvedTool } from './config-load.js';

export type ExecutionStatus = 'ok' | 'timeout' | 'failed';
export type ExecutionFailure = 'tool_missing' | 'exit_code' | 'output_cap' | 'sandbox_failed' | 'empty_output' | 'output_not_utf8';

export interface ReviewerRequest {
  /** The reviewer (slot) name reported in logs and results. */
  readonly reviewer: string;
  readonly tool: ResolvedTool;
  /** What this call is for: a review round, a verifier pass, an arbitration, a rebuttal. */
  readonly purpose: 'review' | 'verify' | 'arbitrate' | 'rebuttal';
  readonly round: number;
  readonly prompt: string;
  /** Per-call timeout when the tool entry has none (review-pass-v3 §6.3 per stage). */
  readonly default_timeout_ms: number;
}

export interface ReviewerExecution {
  readonly reviewer: string;
  readonly tool: string;
  readonly purpose: ReviewerRequest['purpose'];
  readonly round: number;
  /** Fresh for every call (review-pass-v3 §7: execution identities are never reused). */
  readonly execution_id: string;
  readonly status: ExecutionStatus;
  readonly failure: ExecutionFailure | null;
  /** Calls made, retries included. */
  readonly attempts: number;
  readonly exit_code: number | null;
  readonly duration_ms: number;
  /** stdout of the successful attempt; '' otherwise. Never printed by the CLI. */
  readonly stdout: string;
  readonly network: boolean;
}

export interface RunReviewer {
  run(request: ReviewerRequest): Promise<ReviewerExecution>;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function newExecutionId(): string {
  return `EXE-${randomBytes(16).toString('hex')}`;
}

interface Attempt {
  readonly status: ExecutionStatus;
  readonly failure: ExecutionFailure | null;
  readonly exit_code: number | null;
  readonly stdout: string;
  readonly duration_ms: number;
}

function judge(tool: ResolvedTool, r: RepoSandboxResult): Attempt {
  const base = { exit_code: r.exitCode, duration_ms: r.durationMs, stdout: '' };
  if (r.status === 'timeout') return { ...base, status: 'timeout', failure: null };
  if (r.status === 'output_cap') return { ...base, status: 'failed', failure: 'output_cap' };
  if (r.status === 'sandbox_failed') return { ...base, status: 'failed', failure: 'sandbox_failed' };
  if (r.exitCode === null || !tool.ok_exit_codes.includes(r.exitCode)) return { ...base, status: 'failed', failure: 'exit_code' };
  let text: string;
  try {
    text = UTF8.decode(r.stdout);
  } catch {
    return { ...base, status: 'failed', failure: 'output_not_utf8' };
  }
  if (text.trim().length === 0) return { ...base, status: 'failed', failure: 'empty_output' };
  return { ...base, status: 'ok', failure: null, stdout: text };
}

/** Non-governed reviewer calls: the configured command in the read-only repository sandbox. */
export class SandboxedCommandRunner implements RunReviewer {
  constructor(
    private readonly view: SandboxView,
    /** The caller's environment, read only for the names a tool lists in env_passthrough. */
    private readonly callerEnv: Readonly<Record<string, string | undefined>>,
    /** Execution ids: fresh random ones unless a test makes them reproducible. */
    private readonly newId: () => string = newExecutionId,
  ) {}

  async run(req: ReviewerRequest): Promise<ReviewerExecution> {
    const tool = req.tool;
    const execution_id = this.newId();
    const common = { reviewer: req.reviewer, tool: tool.name, purpose: req.purpose, round: req.round, execution_id, network: tool.network };
    const program = resolveProgram(this.view, expandCommand(tool.command));
    if (!program.available) {
      // review-pass-v3 §10.4: a tool that is not installed is skipped, never a crash of the run.
      return { ...common, status: 'failed', failure: 'tool_missing', attempts: 0, exit_code: null, duration_ms: 0, stdout: '' };
    }
    const env: Record<string, string> = { ...tool.env };
    for (const name of tool.env_passthrough) {
      const v = this.callerEnv[name];
      if (v !== undefined && !v.includes('\0')) env[name] = v;
    }
    const prompt = Buffer.from(req.prompt, 'utf8');
    let last: Attempt | null = null;
    let attempts = 0;
    let total = 0;
    // review-pass-v3 §2.4/§7: a failed call is retried up to `retries` times, then degrades.
    for (let i = 0; i <= tool.retries; i++) {
      attempts++;
      const r = await runInRepoSandbox({
        repoDir: this.view.repoDir,
        toolsDir: this.view.toolsDir,
        argv: program.argv,
        env,
        network: tool.network,
        stdin: tool.prompt === 'stdin' ? prompt : null,
        promptFile: tool.prompt === 'file' ? prompt : null,
        timeoutMs: tool.timeout_ms ?? req.default_timeout_ms,
        maxOutputBytes: tool.max_output_bytes,
      });
      last = judge(tool, r);
      total += last.duration_ms;
      // A sandbox that cannot be built will not be built by retrying.
      if (last.status === 'ok' || last.failure === 'sandbox_failed') break;
    }
    const a = last as Attempt;
    return { ...common, status: a.status, failure: a.failure, attempts, exit_code: a.exit_code, duration_ms: total, stdout: a.stdout };
  }
}
