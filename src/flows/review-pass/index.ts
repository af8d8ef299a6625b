// `governed review-pass` (docs/review-pass.md#review-protocols): run one review protocol over several reviewers and rounds and
// write its JSON result and Markdown report. Order of work, every refusal before any reviewer runs:
//   1. governed mode (`--unit`): argument rules (governed-mode.ts), then `runGovernedMode` runs the
//      policy's slots as real review-challenge + review-run pairs (governed-run.ts); `runReviewPass`
//      itself never runs governed reviewers (it has no writer session) and refuses with exit 8;
//   2. the repository directory;
//   3. the configuration (search order, strict schema: config-load.ts);
//   4. the scope (`--files`, or the workspace file set of docs/contract.md#workspace-digest);
//   5. bubblewrap (reviewers never run unsandboxed);
//   6. the output directory (never overwritten);
//   7. the protocol loop (protocol-*.ts), then the three result files.
// Exit codes (docs/commands.md#exit-codes, docs/review-pass.md): 0 CLEAN (converged clean), 9 NOT_CLEAN, 2 usage or
// configuration, 8 governed mode unavailable, 1 internal.
import { assertEgressUsable } from '../run/egress.js';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { realpathSync, statSync } from 'node:fs';
import { EXIT, fail } from '../../core/errors.js';
import { resolveLenses, type Stage } from '../../protocols/review-pass/index.js';
import { bwrapUsable } from '../../../runner/repo-sandbox.js';
import { loadConfig } from './config-load.js';
import type { FlowContext, Protocol, ProtocolOutcome } from './flow-types.js';
import { checkGovernedRequest, requireWriterSession } from './governed-mode.js';
import { writeGovernedResults } from './governed-report.js';
import { runGovernedReviewPass, type GovernedOutcome, type GovernedRunOptions } from './governed-run.js';
import { runReviewPassProtocol } from './protocol-review-pass.js';
import { runSimpleProtocol } from './protocol-simple.js';
import { runTwoPassProtocol } from './protocol-two-pass.js';
import { runWeaveProtocol } from './protocol-weave.js';
import { defaultScope, validateFiles } from './repo-files.js';
import { SandboxedCommandRunner, type RunReviewer } from './run-reviewer.js';
import { ToolLog } from './tool-log.js';
import { discardOutDir, prepareOutDir, writeResults } from './write-results.js';
import type { ProgressSink } from '../../core/progress.js';

export { PROTOCOLS, type Protocol, type ProtocolOutcome } from './flow-types.js';
export type { RunReviewer, ReviewerRequest, ReviewerExecution } from './run-reviewer.js';

export interface ReviewPassOptions {
  readonly protocol: Protocol;
  readonly stage: Stage;
  /** The repository directory (bound read-only at /repo); default: the current directory. */
  readonly repoDir: string;
  readonly files?: readonly string[];
  readonly config?: string;
  readonly out?: string;
  readonly light?: boolean;
  readonly unit?: string;
  readonly reqIds?: readonly string[];
  readonly deferredReqIds?: readonly string[];
  /** The caller's environment (only `env_passthrough` names are ever read). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** governed's node_modules to bind for tsc/ESLint; default: the one this module resolves. */
  readonly toolsDir?: string | null;
  readonly clock?: () => number;
  readonly random?: (n: number) => Buffer;
  /** `--tool-log DIR`: keep each reviewer attempt's stderr there (tool-log.ts). */
  readonly toolLog?: string;
  /** One call as each phase starts (docs/commands.md#progress-on-stderr); fixed words and counts only. */
  readonly progress?: ProgressSink<'review-pass'> | undefined;
}

export interface ReviewPassRun {
  readonly exit: 0 | 9;
  readonly outcome: ProtocolOutcome;
  readonly out_dir: string;
  readonly files: { readonly result: string; readonly report: string; readonly executions: string };
  readonly config_source: string | null;
  readonly scope_files: number;
}

/** governed's own node_modules (where its tsc and ESLint devDependencies live), or null. */
export function governedToolsDir(): string | null {
  try {
    const req = createRequire(import.meta.url);
    return dirname(dirname(realpathSync(req.resolve('typescript/package.json'))));
  } catch {
    return null;
  }
}

function repoDirOf(path: string): string {
  try {
    const real = realpathSync(path);
    if (statSync(real).isDirectory()) return real;
  } catch {
    // fall through
  }
  return fail('orchestrator_repo_invalid', ['repo']);
}

function runProtocol(ctx: FlowContext, protocol: Protocol): Promise<ProtocolOutcome> {
  if (protocol === 'two-pass') return runTwoPassProtocol(ctx);
  if (protocol === 'weave') return runWeaveProtocol(ctx);
  if (protocol === 'simple') return runSimpleProtocol(ctx);
  return runReviewPassProtocol(ctx);
}

export async function runReviewPass(opts: ReviewPassOptions): Promise<ReviewPassRun> {
  if (opts.unit !== undefined) {
    const plan = checkGovernedRequest({
      unit: opts.unit,
      protocol: opts.protocol,
      stage: opts.stage,
      light: opts.light === true,
      config: opts.config,
      files: opts.files ?? [],
    });
    requireWriterSession(plan, undefined);
  }
  const toolLog = opts.toolLog === undefined ? null : ToolLog.prepare(opts.toolLog);
  const repoDir = repoDirOf(opts.repoDir);
  const config = loadConfig(repoDir, opts.config);
  const scope =
    opts.files !== undefined && opts.files.length > 0
      ? { files: validateFiles(repoDir, opts.files), truncated: false }
      : await defaultScope(repoDir);
  opts.progress?.('scope', scope.files.length);
  if (!bwrapUsable()) fail('orchestrator_sandbox_unavailable', ['bwrap']);
  // `network: broker` tools (docs/review-pass.md "Network"): the caller's credential, the pinned
  // broker and relay are checked before any reviewer starts (each refusal its egress code, exit 2).
  for (const tool of Object.values(config.tools)) if (tool.egress !== null) assertEgressUsable(tool.egress, opts.env);
  const out = prepareOutDir(opts.out);

  const toolsDir = opts.toolsDir === undefined ? governedToolsDir() : opts.toolsDir;
  const random = opts.random ?? ((n: number) => randomBytes(n));
  const sandboxed: RunReviewer = new SandboxedCommandRunner({ repoDir, toolsDir }, opts.env, () => `EXE-${random(16).toString('hex')}`, toolLog);
  const runner = opts.progress === undefined ? sandboxed : withProgress(sandboxed, opts.progress);
  const reqIds = [...(opts.reqIds ?? [])];
  const ctx: FlowContext = {
    repoDir,
    stage: opts.stage,
    light: opts.light === true,
    config,
    runner,
    prompt: {
      stage: opts.stage,
      files: scope.files,
      files_truncated: scope.truncated,
      lenses: resolveLenses(opts.stage, reqIds.length > 0, opts.light === true),
      req_ids: reqIds,
      deferred_req_ids: [...(opts.deferredReqIds ?? [])],
    },
    clock: opts.clock ?? (() => Date.now()),
    random,
  };
  let outcome: ProtocolOutcome;
  try {
    outcome = await runProtocol(ctx, opts.protocol);
  } catch (e) {
    discardOutDir(out);
    throw e;
  }
  opts.progress?.('results');
  const files = writeResults(out.dir, outcome, {
    stage: opts.stage,
    mode: 'non-governed',
    config_source: config.source,
    files: scope.files.length,
    tool_log: toolLog !== null,
  });
  return {
    exit: outcome.result === 'CLEAN' ? EXIT.ok : EXIT.not_clean,
    outcome,
    out_dir: out.dir,
    files,
    config_source: config.source,
    scope_files: scope.files.length,
  };
}

export interface GovernedModeOptions extends Omit<GovernedRunOptions, 'writerSession'> {
  readonly unit: string;
  readonly protocol: Protocol;
  readonly stage: Stage;
  readonly files?: readonly string[];
  readonly config?: string;
  readonly out?: string;
  readonly light?: boolean;
  readonly writerSession: string | undefined;
}

export interface GovernedModeRun {
  readonly exit: 0 | 9;
  readonly outcome: GovernedOutcome;
  readonly out_dir: string;
  readonly files: { readonly result: string; readonly report: string };
}

/**
 * Governed mode (docs/review-pass.md#review-protocols). Every argument refusal comes before anything touches the store; the
 * output directory is prepared before the first challenge so a bad --out costs no run budget.
 */
export async function runGovernedMode(opts: GovernedModeOptions): Promise<GovernedModeRun> {
  const plan = checkGovernedRequest({
    unit: opts.unit,
    protocol: opts.protocol,
    stage: opts.stage,
    light: opts.light === true,
    config: opts.config,
    files: opts.files ?? [],
  });
  const writerSession = requireWriterSession(plan, opts.writerSession);
  // Focus files must be real files of the repository (they are recorded, never used to narrow).
  if (plan.focus_files.length > 0) validateFiles(repoDirOf(opts.repo), plan.focus_files);
  const out = prepareOutDir(opts.out);
  let outcome: GovernedOutcome;
  try {
    outcome = await runGovernedReviewPass({ ...opts, writerSession }, plan);
  } catch (e) {
    discardOutDir(out);
    throw e;
  }
  opts.progress?.('results');
  const files = writeGovernedResults(out.dir, outcome);
  return { exit: outcome.result === 'CLEAN' ? EXIT.ok : EXIT.not_clean, outcome, out_dir: out.dir, files };
}

/** Reports each protocol round as its first reviewer call starts, and every reviewer call (counts only). */
function withProgress(inner: RunReviewer, progress: ProgressSink<'review-pass'>): RunReviewer {
  let calls = 0;
  let round = 0;
  return {
    run(request) {
      if (request.round !== round) {
        round = request.round;
        progress('round', round);
      }
      progress('reviewer', ++calls);
      return inner.run(request);
    },
  };
}
