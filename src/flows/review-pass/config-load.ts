// Loading `review-pass.yaml` (docs/review-pass-protocol.md#search-order-and-merge search order, docs/review-pass-protocol.md#default-profile defaults, docs/review-pass-protocol.md#search-order-and-merge overrides).
//
// Search order (first found wins):
//   1. `--config FILE` (explicit; a missing or unreadable file is an error, never a silent fallback);
//   2. `<repo>/review-pass.yaml`;
//   3. `<repo>/.review-pass.yaml`;
//   4. the built-in defaults of docs/review-pass-protocol.md#default-profile (presets.ts).
// The seed's skill-directory and XDG/APPDATA locations are left out on purpose: a review's reviewers
// should be decided by what is in the repository or named on the command line, not by a file in the
// home directory of whoever runs it.
//
// Merge (docs/review-pass-protocol.md#search-order-and-merge "config files fully replace the defaults for the sections they define ... each section
// is all-or-nothing"): governed reads a "section" as one entry — one tool under `tools`, one stage
// under `stages`, one protocol under `protocols` — plus the whole `budget` section and `parallel`.
// A tool entry given in the file replaces the default entry of that name entirely (no field merge);
// `preset: NAME` is the explicit way to start from a built-in entry. This keeps the seed's own docs/review-pass-protocol.md#search-order-and-merge
// example meaningful (overriding `tools.opencode` does not delete the other tools).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fail, isGovernedError } from '../../core/errors.js';
import { parseDurationSeconds, parseSizeBytes } from '../../core/duration.js';
import { readStructuredFile } from '../read-input.js';
import { ReviewPassFileSchema, type ParseStrategyName, type StageEntryInput, type ToolEntryInput } from './config-schema.js';
import { PRESETS } from './presets.js';
import { egressPolicySchema, type EgressPolicy } from '../../core/egress-schema.js';
import { EGRESS_ENV_NAMES, RELAY_ENV_NAMES, TERMINATE_ENV_NAMES } from '../../core/egress-rules.js';
import { ROLES, STAGES, type Role, type Stage } from '../../protocols/review-pass/index.js';

export const CONFIG_FILE_NAMES = ['review-pass.yaml', '.review-pass.yaml'] as const;
import { REVIEW_PASS_CONFIG_MAX_BYTES as MAX_CONFIG_BYTES } from '../../core/limits.js';
export const DEFAULT_PARALLEL = 2;

export type PromptDelivery = 'stdin' | 'file' | 'none';

export interface ResolvedTool {
  readonly name: string;
  readonly command: readonly string[];
  readonly prompt: PromptDelivery;
  readonly parse: ParseStrategyName;
  /** null: the stage's per-call timeout applies. */
  readonly timeout_ms: number | null;
  readonly retries: number;
  /** `broker`: the tool reaches `egress`'s one endpoint through the broker and the relay. */
  readonly network: boolean | 'broker';
  /** The egress entry of a `network: broker` tool (null otherwise). */
  readonly egress: EgressPolicy | null;
  readonly ok_exit_codes: readonly number[];
  readonly env: Readonly<Record<string, string>>;
  readonly env_passthrough: readonly string[];
  readonly max_output_bytes: number;
}

export interface ResolvedStage {
  readonly reviewers: readonly string[];
  readonly roles: Readonly<Record<Role, string>> | null;
  /** undefined: the engine's default arbiter for the stage (docs/review-pass-protocol.md#default-profile). */
  readonly arbiter: string | null | undefined;
  readonly convergence: number | undefined;
  readonly timeout_ms: number | null;
}

export interface ResolvedConfig {
  /** The file the configuration came from, or null for the built-in defaults. */
  readonly source: string | null;
  readonly tools: Readonly<Record<string, ResolvedTool>>;
  readonly stages: Readonly<Record<Stage, ResolvedStage>>;
  readonly protocols: {
    readonly two_pass: { readonly reviewer: string; readonly verifier: string };
    readonly weave: { readonly reviewers: readonly string[] };
    /** No default: simple-review needs a user-confirmed pair ("ask them to choose and stop"). */
    readonly simple: { readonly pair: readonly string[] } | null;
  };
  readonly budget: { readonly max_rounds: number | undefined; readonly max_total_time_ms: number | undefined };
  readonly parallel: number;
}

/** docs/review-pass-protocol.md#default-profile stage defaults (reviewers and arbiters; role stages schedule any adapter). */
const DEFAULT_STAGES: Readonly<Record<Stage, StageEntryInput>> = {
  planning: { reviewers: [], arbiter: null },
  development: { reviewers: ['gemini', 'opencode', 'codex'], arbiter: 'claude' },
  test: { reviewers: ['gemini', 'opencode'], arbiter: null },
  integration: { reviewers: [], arbiter: null },
};

const PLACEHOLDER = /\{([A-Za-z_]+)\}/g;
const SANDBOX_FIXED_ENV: readonly string[] = ['PATH', 'HOME', 'TMPDIR', 'LANG'];

/** Check a command template: placeholders `{repo}` and `{prompt_file}` only; never the prompt itself. */
function checkCommand(name: string, command: readonly string[], prompt: PromptDelivery): void {
  command.forEach((arg, i) => {
    if (arg.includes('\0')) fail('orchestrator_command_invalid', [`tools.${name}.command[${i}]`]);
    for (const m of arg.matchAll(PLACEHOLDER)) {
      const p = m[1];
      if (p === 'prompt') fail('orchestrator_prompt_in_argv', [`tools.${name}.command[${i}]`]);
      if (p === 'prompt_file' && prompt === 'file') continue;
      if (p === 'repo') continue;
      fail('orchestrator_command_invalid', [`tools.${name}.command[${i}]`]);
    }
  });
  const program = command[0] as string;
  // A bare name is looked up on the sandbox PATH; anything with a slash must be absolute (after
  // `{repo}` expansion), so no reviewer is resolved relative to an unknown working directory.
  if (program.includes('/') && !program.startsWith('/') && !program.startsWith('{repo}/')) {
    fail('orchestrator_command_invalid', [`tools.${name}.command[0]`]);
  }
  if (program.startsWith('-')) fail('orchestrator_command_invalid', [`tools.${name}.command[0]`]);
}

/**
 * `network: broker` needs an egress entry, checked by the policy's one schema, with `relay` (a tool
 * is an unmodified TCP client); an entry without `network: broker` is refused rather than ignored.
 * The runner sets the egress and relay variables, so the tool's env may not name them, nor the
 * credential's variable (the real key never enters the sandbox).
 */
function resolveEgress(name: string, network: boolean | 'broker', entry: ToolEntryInput): EgressPolicy | null {
  if (network !== 'broker') {
    if (entry.egress !== undefined) fail('orchestrator_config_invalid', [`tools.${name}.egress`]);
    return null;
  }
  const parsed = egressPolicySchema.safeParse(entry.egress);
  if (!parsed.success || parsed.data.relay === undefined) fail('orchestrator_config_invalid', [`tools.${name}.egress`]);
  // The real key stays outside the sandbox: its variable may not be passed through either.
  const reserved = new Set([...EGRESS_ENV_NAMES, ...RELAY_ENV_NAMES, ...TERMINATE_ENV_NAMES, ...('env' in parsed.data.credential ? [parsed.data.credential.env] : [])]);
  for (const k of [...Object.keys(entry.env ?? {}), ...(entry.env_passthrough ?? [])]) {
    if (reserved.has(k)) fail('orchestrator_config_invalid', [`tools.${name}.env`]);
  }
  return parsed.data;
}

function resolveTool(name: string, entry: ToolEntryInput): ResolvedTool {
  const base = entry.preset === undefined ? null : PRESETS[entry.preset];
  const command = entry.command ?? base?.command;
  const parse = entry.parse ?? base?.parse;
  if (command === undefined) fail('orchestrator_config_invalid', [`tools.${name}.command`]);
  if (parse === undefined) fail('orchestrator_config_invalid', [`tools.${name}.parse`]);
  const prompt = entry.prompt ?? base?.prompt ?? 'stdin';
  checkCommand(name, command, prompt);
  // The sandbox fixes PATH, HOME, TMPDIR and LANG (runner/repo-sandbox.ts); a tool cannot move them.
  for (const k of [...Object.keys(entry.env ?? {}), ...(entry.env_passthrough ?? [])]) {
    if (SANDBOX_FIXED_ENV.includes(k)) fail('orchestrator_config_invalid', [`tools.${name}.env`]);
  }
  // execve cannot pass a NUL inside an environment value: refuse the configuration here, by field,
  // instead of letting the sandbox builder throw mid-run (an internal_error; docs/threat-model.md#rules-that-hold-everywhere fail closed
  // with a stable code, never the value). Same rule as a policy reviewer's env (policy-rules.ts).
  for (const v of Object.values(entry.env ?? {})) {
    if (v.includes('\0')) fail('orchestrator_config_invalid', [`tools.${name}.env`]);
  }
  const network = entry.network ?? base?.network ?? false;
  const egress = resolveEgress(name, network, entry);
  return {
    name,
    command,
    prompt,
    parse,
    egress,
    timeout_ms: entry.timeout === undefined ? null : parseDurationSeconds(entry.timeout, `tools.${name}.timeout`) * 1000,
    retries: entry.retries ?? base?.retries ?? 1,
    network,
    ok_exit_codes: entry.ok_exit_codes ?? base?.ok_exit_codes ?? [0],
    env: entry.env ?? base?.env ?? {},
    env_passthrough: entry.env_passthrough ?? base?.env_passthrough ?? [],
    max_output_bytes: parseSizeBytes(entry.max_output ?? base?.max_output ?? '1MiB', `tools.${name}.max_output`),
  };
}

function resolveStage(stage: Stage, entry: StageEntryInput): ResolvedStage {
  return {
    reviewers: entry.reviewers ?? [],
    roles: entry.roles ?? null,
    arbiter: entry.arbiter,
    convergence: entry.convergence,
    timeout_ms: entry.timeout === undefined ? null : parseDurationSeconds(entry.timeout, `stages.${stage}.timeout`) * 1000,
  };
}

/** Which file the search order picks (null: built-in defaults). */
export function findConfigFile(repoDir: string, explicit: string | undefined): string | null {
  if (explicit !== undefined) return explicit;
  for (const name of CONFIG_FILE_NAMES) {
    const p = join(repoDir, name);
    if (existsSync(p)) return p;
  }
  return null;
}

function readConfigValue(path: string): unknown {
  try {
    return readStructuredFile(path, MAX_CONFIG_BYTES).value;
  } catch (e) {
    if (isGovernedError(e) && (e.code === 'input_unreadable' || e.code === 'input_too_large')) fail('orchestrator_config_unreadable', []);
    throw e;
  }
}

/** Validate a parsed configuration value and merge it over the defaults. */
export function resolveConfig(value: unknown, source: string | null): ResolvedConfig {
  const parsed = ReviewPassFileSchema.safeParse(value ?? {});
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    fail('orchestrator_config_invalid', [first === undefined ? '$' : first.path.map(String).join('.') || '$']);
  }
  const file = parsed.data;
  const toolEntries: Record<string, ToolEntryInput> = {};
  for (const name of Object.keys(PRESETS)) toolEntries[name] = { preset: name as keyof typeof PRESETS };
  for (const [name, entry] of Object.entries(file.tools ?? {})) toolEntries[name] = entry;
  const tools: Record<string, ResolvedTool> = {};
  for (const [name, entry] of Object.entries(toolEntries)) tools[name] = resolveTool(name, entry);

  const stages = {} as Record<Stage, ResolvedStage>;
  for (const stage of STAGES) stages[stage] = resolveStage(stage, file.stages?.[stage] ?? DEFAULT_STAGES[stage]);

  const known = (name: string, where: string): void => {
    if (!Object.prototype.hasOwnProperty.call(tools, name)) fail('orchestrator_tool_unknown', [where]);
  };
  for (const stage of STAGES) {
    const s = stages[stage];
    s.reviewers.forEach((r, i) => known(r, `stages.${stage}.reviewers[${i}]`));
    if (typeof s.arbiter === 'string') known(s.arbiter, `stages.${stage}.arbiter`);
    if (s.roles !== null) for (const role of ROLES) known(s.roles[role], `stages.${stage}.roles.${role}`);
  }
  const twoPass = file.protocols?.['two-pass'] ?? { reviewer: 'claude', verifier: 'codex' };
  known(twoPass.reviewer, 'protocols.two-pass.reviewer');
  known(twoPass.verifier, 'protocols.two-pass.verifier');
  const weave = file.protocols?.weave ?? { reviewers: ['claude', 'gemini', 'codex'] };
  weave.reviewers.forEach((r, i) => known(r, `protocols.weave.reviewers[${i}]`));
  const simple = file.protocols?.simple ?? null;
  simple?.pair.forEach((r, i) => known(r, `protocols.simple.pair[${i}]`));

  return {
    source,
    tools,
    stages,
    protocols: { two_pass: twoPass, weave, simple },
    budget: {
      max_rounds: file.budget?.max_rounds,
      max_total_time_ms:
        file.budget?.max_total_time === undefined ? undefined : parseDurationSeconds(file.budget.max_total_time, 'budget.max_total_time') * 1000,
    },
    parallel: file.parallel ?? DEFAULT_PARALLEL,
  };
}

/** The search order, then strict parsing and validation. */
export function loadConfig(repoDir: string, explicit: string | undefined): ResolvedConfig {
  const path = findConfigFile(repoDir, explicit);
  if (path === null) return resolveConfig({}, null);
  return resolveConfig(readConfigValue(path), path);
}
