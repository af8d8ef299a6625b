// The strict schema of `review-pass.yaml` (docs/review-pass-protocol.md#configuration; docs/threat-model.md#rules-that-hold-everywhere "Closed objects": unknown
// keys are an error at every level). Differences from the seed's profile, each required by docs/review-pass.md#review-protocols:
//   - `command` is an argv ARRAY, never a shell string (no quoting, no shell, no injection);
//   - the seed's `stdin: true|false` becomes `prompt: stdin | file | none` — the prompt goes through
//     stdin or a read-only file (/prompt/prompt.md, named in argv by `{prompt_file}`), never argv;
//     `none` is for tools that take no prompt (tsc, ESLint);
//   - `parse` adds the real-tool strategies `tsc` and `eslint` to the seed's `json | text_fallback`;
//   - per-call `timeout`, `retries`, `network` (default false), accepted exit codes, a fixed `env`
//     and an `env_passthrough` list of variable NAMES copied from the caller (API keys), an output cap.
import * as z from 'zod';
import { isDuration, isSize } from '../../core/duration.js';
import { PRESET_NAMES } from './presets.js';
import { NAME_RE } from '../../core/ids.js';

/** Tool and slot names: the review-pass engine's reviewer-name grammar (stage-profile.ts NAME). */
export const TOOL_NAME = z.string().regex(NAME_RE);
const ENV_NAME = z.string().regex(/^[A-Z_][A-Z0-9_]{0,63}$/);
const DURATION = z.string().refine(isDuration);
const SIZE = z.string().refine(isSize);
const ARG = z.string().min(1).max(4096);

export const PARSE_STRATEGIES = ['json', 'text_fallback', 'tsc', 'eslint'] as const;
export type ParseStrategyName = (typeof PARSE_STRATEGIES)[number];

export const ToolEntrySchema = z.strictObject({
  /** Start from a built-in preset (presets.ts); the fields given here replace the preset's. */
  preset: z.enum(PRESET_NAMES).optional(),
  command: z.array(ARG).min(1).max(64).optional(),
  prompt: z.enum(['stdin', 'file', 'none']).optional(),
  parse: z.enum(PARSE_STRATEGIES).optional(),
  timeout: DURATION.optional(),
  retries: z.number().int().min(0).max(5).optional(),
  /** false (default), true (the host network: an egress path), or `broker`: one model endpoint through
   * the egress broker and the in-sandbox relay (docs/review-pass.md "Network"), with `egress`. */
  network: z.union([z.boolean(), z.literal('broker')]).optional(),
  /** With `network: broker`: a policy egress entry (docs/egress.md#the-policy-entry), `relay`
   * required; checked by its one schema (src/core/egress-schema.ts) in config-load.ts. */
  egress: z.unknown().optional(),
  ok_exit_codes: z.array(z.number().int().min(0).max(255)).min(1).max(16).optional(),
  env: z.record(ENV_NAME, z.string().max(4096)).optional(),
  env_passthrough: z.array(ENV_NAME).max(32).optional(),
  max_output: SIZE.optional(),
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
  reviewers: z.array(TOOL_NAME).max(16).optional(),
  /** Role stages only: an explicit role → tool assignment (docs/review-pass-protocol.md#separated-roles). */
  roles: RolesSchema.optional(),
  arbiter: TOOL_NAME.nullable().optional(),
  convergence: z.number().int().min(1).max(16).optional(),
  /** Per-call timeout for this stage's reviewers (docs/review-pass-protocol.md#budget-guard per_call_timeout). */
  timeout: DURATION.optional(),
});
export type StageEntryInput = z.infer<typeof StageEntrySchema>;

export const ReviewPassFileSchema = z.strictObject({
  version: z.literal(1).optional(),
  tools: z.record(TOOL_NAME, ToolEntrySchema).optional(),
  stages: z
    .strictObject({
      planning: StageEntrySchema.optional(),
      development: StageEntrySchema.optional(),
      test: StageEntrySchema.optional(),
      integration: StageEntrySchema.optional(),
    })
    .optional(),
  protocols: z
    .strictObject({
      'two-pass': z.strictObject({ reviewer: TOOL_NAME, verifier: TOOL_NAME }).optional(),
      weave: z.strictObject({ reviewers: z.array(TOOL_NAME).min(1).max(26) }).optional(),
      simple: z.strictObject({ pair: z.array(TOOL_NAME).max(16) }).optional(),
    })
    .optional(),
  budget: z.strictObject({ max_rounds: z.number().int().min(1).max(64).optional(), max_total_time: DURATION.optional() }).optional(),
  /** Reviewer processes run at once (bounded parallel execution, docs/review-pass-protocol.md#parallel-execution). */
  parallel: z.number().int().min(1).max(16).optional(),
});
export type ReviewPassFile = z.infer<typeof ReviewPassFileSchema>;
