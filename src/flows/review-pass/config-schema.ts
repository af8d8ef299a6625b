// The strict schema of `review-pass.yaml` (docs/review-pass-protocol.md#configuration; docs/threat-model.md#rules-that-hold-everywhere "Closed objects": unknown
// keys are an error at every level). Differences from the seed's profile, each required by docs/review-pass.md#review-protocols:
//   - `command` is an argv ARRAY, never a shell string (no quoting, no shell, no injection);
//   - the seed's `stdin: true|false` becomes `prompt: stdin | file | none` — the prompt goes through
//     stdin or a read-only file (/prompt/prompt.md, named in argv by `{prompt_file}`), never argv;
//     `none` is for tools that take no prompt (tsc, ESLint);
//   - `parse` adds the real-tool strategies `tsc` and `eslint` to the seed's `json | text_fallback`;
//   - per-call `timeout`, `retries`, `network` (default false), accepted exit codes, a fixed `env`
//     and an `env_passthrough` list of variable NAMES copied from the caller (API keys), an output cap.
import * as z from 'zod/mini';
import { isDuration, isSize } from '../../core/duration.js';
import { PRESET_NAMES } from './presets.js';
import { NAME_RE } from '../../core/ids.js';
import { int, list, str } from '../../core/schema-primitives.js';
import { REVIEWER_ENV_VALUE_MAX, REVIEW_PASS_ARG_MAX_CHARS } from '../../core/limits.js';
import { TOOL_ENV_NAME_RE } from '../../core/sandbox-bounds.js';

/** Tool and slot names: the review-pass engine's reviewer-name grammar (stage-profile.ts NAME). */
export const TOOL_NAME = str({ re: NAME_RE });
const ENV_NAME = str({ re: TOOL_ENV_NAME_RE });
const DURATION = z.string().check(z.refine(isDuration));
const SIZE = z.string().check(z.refine(isSize));
const ARG = str({ min: 1, max: REVIEW_PASS_ARG_MAX_CHARS });

export const PARSE_STRATEGIES = ['json', 'text_fallback', 'tsc', 'eslint'] as const;
export type ParseStrategyName = (typeof PARSE_STRATEGIES)[number];

export const ToolEntrySchema = z.strictObject({
  /** Start from a built-in preset (presets.ts); the fields given here replace the preset's. */
  preset: z.optional(z.enum(PRESET_NAMES)),
  command: z.optional(list(ARG, 1, 64)),
  prompt: z.optional(z.enum(['stdin', 'file', 'none'])),
  parse: z.optional(z.enum(PARSE_STRATEGIES)),
  timeout: z.optional(DURATION),
  retries: z.optional(int(0, 5)),
  /** false (default), true (the host network: an egress path), or `broker`: one model endpoint through
   * the egress broker and the in-sandbox relay (docs/review-pass.md "Network"), with `egress`. */
  network: z.optional(z.union([z.boolean(), z.literal('broker')])),
  /** With `network: broker`: a policy egress entry (docs/egress.md#the-policy-entry), `relay`
   * required; checked by its one schema (src/core/egress-schema.ts) in config-load.ts. */
  egress: z.optional(z.unknown()),
  ok_exit_codes: z.optional(list(int(0, 255), 1, 16)),
  env: z.optional(z.record(ENV_NAME, str({ max: REVIEWER_ENV_VALUE_MAX }))),
  env_passthrough: z.optional(list(ENV_NAME, 0, 32)),
  max_output: z.optional(SIZE),
});
export type ToolEntryInput = z.infer<typeof ToolEntrySchema>;

const RolesSchema = z.strictObject({
  source_fidelity: TOOL_NAME,
  baseline_preservation: TOOL_NAME,
  implementation_test: TOOL_NAME,
  authority_release: TOOL_NAME,
});

export const StageEntrySchema = z.strictObject({
  /** Standard stages: the reviewer tools (slots). Role stages: the tools roles are scheduled on. */
  reviewers: z.optional(list(TOOL_NAME, 0, 16)),
  /** Role stages only: an explicit role → tool assignment (docs/review-pass-protocol.md#separated-roles). */
  roles: z.optional(RolesSchema),
  arbiter: z.optional(z.nullable(TOOL_NAME)),
  convergence: z.optional(int(1, 16)),
  /** Per-call timeout for this stage's reviewers (docs/review-pass-protocol.md#budget-guard per_call_timeout). */
  timeout: z.optional(DURATION),
});
export type StageEntryInput = z.infer<typeof StageEntrySchema>;

export const ReviewPassFileSchema = z.strictObject({
  version: z.optional(z.literal(1)),
  tools: z.optional(z.record(TOOL_NAME, ToolEntrySchema)),
  stages: z.optional(
    z.strictObject({
      planning: z.optional(StageEntrySchema),
      development: z.optional(StageEntrySchema),
      test: z.optional(StageEntrySchema),
      integration: z.optional(StageEntrySchema),
    }),
  ),
  protocols: z.optional(
    z.strictObject({
      'two-pass': z.optional(z.strictObject({ reviewer: TOOL_NAME, verifier: TOOL_NAME })),
      weave: z.optional(z.strictObject({ reviewers: list(TOOL_NAME, 1, 26) })),
      simple: z.optional(z.strictObject({ pair: list(TOOL_NAME, 0, 16) })),
    }),
  ),
  budget: z.optional(z.strictObject({ max_rounds: z.optional(int(1, 64)), max_total_time: z.optional(DURATION) })),
  /** Reviewer processes run at once (bounded parallel execution, docs/review-pass-protocol.md#parallel-execution). */
  parallel: z.optional(int(1, 16)),
});
export type ReviewPassFile = z.infer<typeof ReviewPassFileSchema>;
