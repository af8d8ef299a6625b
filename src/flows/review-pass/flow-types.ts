// Shared shapes of the review-pass orchestrator flows.
import type { Stage } from '../../protocols/review-pass/index.js';
import type { ResolvedConfig } from './config-load.js';
import type { PromptContext } from './prompts.js';
import type { ReviewerExecution, RunReviewer } from './run-reviewer.js';

export const PROTOCOLS = ['review-pass', 'two-pass', 'weave', 'simple'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

export interface FlowContext {
  readonly repoDir: string;
  readonly stage: Stage;
  readonly light: boolean;
  readonly config: ResolvedConfig;
  readonly runner: RunReviewer;
  readonly prompt: PromptContext;
  /** Milliseconds; injected so reports are reproducible in tests. */
  readonly clock: () => number;
  /** Random bytes (weave blind labels, invocation ids). */
  readonly random: (n: number) => Buffer;
}

export interface ProtocolOutcome {
  readonly protocol: Protocol;
  readonly result: 'CLEAN' | 'NOT_CLEAN';
  /** Reason codes when NOT_CLEAN (error-codes/protocols-review-pass.ts / review-pass.ts reason tables). */
  readonly reasons: readonly string[];
  /** The protocol's JSON result (the engine's shape, or the incomplete-result shape). */
  readonly result_json: string;
  /** The protocol's Markdown report (the engine's shape), before the orchestrator's section. */
  readonly report_md: string;
  readonly executions: readonly ReviewerExecution[];
  readonly rounds: number;
  /** Counts safe to print on stdout (no reviewer text). */
  readonly counts: Readonly<Record<string, number>>;
}
