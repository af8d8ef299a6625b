// The policy's cross-field rules and derived values (docs/policy.md#policy-and-trust-root), applied by `loadPolicy`
// (src/core/policy.ts) after its closed schema. Each rule has its own code and names the
// offending stage/slot/credential/field, never a value. Pure.
import { digestOf } from './canonical.js';
import { EGRESS_ENV_NAMES, RELAY_ENV_NAMES, TERMINATE_ENV_NAMES } from './egress-rules.js';
import { STAGE_ORDER } from './decision/vocabulary.js';
import { parseDurationSeconds, parseSizeBytes } from './duration.js';
import { fail } from './errors.js';
import type { Policy, PolicyDocument, Stage } from './policy.js';
import { checkCommandAllowed, interpreterSegmentsAllowed, SANDBOX_BOUNDS, withinBound } from './sandbox-bounds.js';

/** The four review roles (docs/bundle.md#views): the slots of planning and integration. */
export const ROLES = ['source_fidelity', 'baseline_preservation', 'implementation_test', 'authority_release'] as const;
/** Stages whose slots are the four roles and whose reviewers see role views (docs/bundle.md#views). */
export const ROLE_STAGES: ReadonlySet<Stage> = new Set(['planning', 'integration']);
/** The environment names a policy may never set for a reviewer (docs/reviewers.md#the-reviewers-world fixed environment; `PWD`
 * is removed by the sandbox's own start gate, runner/sandbox/argv.ts RESERVED_ENV). */
const FIXED_ENV = new Set(['GOVERNED_BUNDLE', 'HOME', 'TMPDIR', 'PATH', 'LANG', 'PWD', ...EGRESS_ENV_NAMES, RELAY_ENV_NAMES[0] as string]);

/**
 * Loader- and interpreter-influencing names (docs/formats.md#attestors "its SHA-256 covers every line it runs",
 * docs/reviewers.md#the-reviewers-world): each makes the dynamic loader, libc or the interpreter load or run code — or change how the
 * pinned code behaves — that the reviewer's pinned sha256 does not cover (`NODE_OPTIONS=--import=…`
 * runs a module before the pinned script; `LD_PRELOAD`/`LD_AUDIT` load a library; `GCONV_PATH` loads
 * iconv modules; `BASH_ENV`/`ENV` are sourced by a shell; `LC_ALL` would override the fixed `LANG`).
 * Exact names here, whole families in ENV_DENIED_PREFIXES. The rule and its reasons:
 * docs/security.md "Reviewer environment".
 */
const ENV_DENIED_NAMES = new Set([
  // shells (bash, dash, zsh, ksh): startup files, traced prompts, word splitting, autoload paths
  'ENV', 'SHELLOPTS', 'BASHOPTS', 'PS4', 'PROMPT_COMMAND', 'IFS', 'CDPATH', 'GLOBIGNORE', 'ZDOTDIR', 'FPATH',
  // glibc: iconv modules (code), locale and message-catalog data paths, resolver and getconf inputs
  'GCONV_PATH', 'LOCPATH', 'NLSPATH', 'LANGUAGE', 'HOSTALIASES', 'RES_OPTIONS', 'LOCALDOMAIN', 'GETCONF_DIR',
  // other interpreters' startup options and load paths
  'JAVA_TOOL_OPTIONS', 'JDK_JAVA_OPTIONS', 'CLASSPATH', 'TCLLIBPATH', 'PHPRC', 'PHP_INI_SCAN_DIR',
]);
/** Name families denied whole: loaders (`LD_`, `DYLD_`), libc tunables (`MALLOC_`, `GLIBC_`), Node
 * and libuv (`NODE_OPTIONS`, `NODE_PATH`, `NODE_EXTRA_CA_CERTS`, `UV_THREADPOOL_SIZE`…), OpenSSL
 * (`OPENSSL_CONF` loads providers/engines — Node reads it), shells (`BASH_ENV`, `BASH_FUNC_…`),
 * locales (`LC_…`), git, and the load paths/options of Python, Perl, Ruby, Lua, Guile, RubyGems,
 * Erlang, Deno, Bun, npm and corepack. */
const ENV_DENIED_PREFIXES = [
  'LD_', 'DYLD_', 'MALLOC_', 'GLIBC_', 'NODE_', 'UV_', 'OPENSSL_', 'BASH_', 'LC_', 'GIT_',
  'PYTHON', 'PERL', 'RUBY', 'LUA_', 'GUILE_', 'GEM_', 'ERL_', 'DENO_', 'BUN_', 'NPM_CONFIG_', 'COREPACK_',
] as const;
/** At most this many policy variables per reviewer: the sandbox's own bound (runner/sandbox/argv.ts
 * MAX_ENV_VARS), so a policy that loads never fails at every run instead. */
import { REVIEWER_ENV_MAX_VARS as MAX_REVIEWER_ENV } from './limits.js';

/** Whether a policy may set `name` for a reviewer (the schemas already require `[A-Z][A-Z0-9_]{0,63}`). */
export function reviewerEnvNameAllowed(name: string): boolean {
  if (FIXED_ENV.has(name) || ENV_DENIED_NAMES.has(name)) return false;
  return !ENV_DENIED_PREFIXES.some((p) => name.startsWith(p));
}

/** Apply the cross-field rules to a document that passed the closed schema, and derive its values. */
export function policyFromDocument(doc: PolicyDocument): Policy {
  for (const stage of STAGE_ORDER) {
    const s = doc.stages[stage];
    if (s === undefined) continue;
    const slots = Object.keys(s.slots);
    if (slots.length === 0) fail('policy_invalid', [`stages.${stage}.slots`]);
    // Planning and integration slots include the four roles (docs/bundle.md#views, docs/decision.md#the-rules-in-short).
    if (ROLE_STAGES.has(stage) && !ROLES.every((r) => slots.includes(r))) fail('policy_roles_incomplete', [`stages.${stage}`]);
    // Beyond the four roles, integration may list check slots (docs/reviewers.md#check-reviewers);
    // planning reviews the baseline only and has exactly the roles.
    for (const slot of slots) {
      if (!ROLE_STAGES.has(stage) || (ROLES as readonly string[]).includes(slot)) continue;
      const reviewer = doc.reviewers[s.slots[slot] as string];
      if (stage === 'planning' || reviewer === undefined || reviewer.check === undefined) fail('policy_roles_incomplete', [`stages.${stage}`]);
    }
    for (const [slot, reviewer] of Object.entries(s.slots)) {
      if (!Object.prototype.hasOwnProperty.call(doc.reviewers, reviewer)) fail('policy_reviewer_unknown', [`stages.${stage}.slots.${slot}`]);
      // A check reviewer runs the project's command on the sealed content: it serves the complete
      // view of a development, test or integration check slot, never a role slot (docs/reviewers.md
      // "Check reviewers").
      if ((ROLES as readonly string[]).includes(slot) && ROLE_STAGES.has(stage) && doc.reviewers[reviewer]?.check !== undefined) {
        fail('policy_invalid', [`stages.${stage}.slots.${slot}`]);
      }
    }
  }
  // Integration requires the planning stage sealed (docs/decision.md#the-rules-in-short): a policy with integration needs planning.
  if (doc.stages.integration !== undefined && doc.stages.planning === undefined) fail('policy_invalid', ['stages.planning']);
  // A reviewer's environment is the fixed one plus the policy's variables (docs/reviewers.md#the-reviewers-world); none of them
  // may steer the loader or interpreter around the pinned bytes (docs/formats.md#attestors), and no value may hold a NUL
  // (execve cannot pass it: the run would fail, the policy must not load). Names the field, never
  // the variable or its value.
  for (const [reviewer, r] of Object.entries(doc.reviewers)) {
    // The interpreter path the sandbox would refuse at every run (docs/reviewers.md#the-reviewers-world, docs/threat-model.md#rules-that-hold-everywhere fail closed): the
    // schemas' regex admits `/usr/bin/./node`, `/usr/bin/`, `/usr/-x`; the segment rule is the
    // sandbox's own (./sandbox-bounds.ts).
    if (!interpreterSegmentsAllowed(r.interpreter)) fail('policy_invalid', [`reviewers.${reviewer}.interpreter`]);
    if (r.check !== undefined) {
      // A check reviewer runs the project's code with no way out; egress belongs to model reviewers only.
      if (r.egress !== undefined) fail('policy_invalid', [`reviewers.${reviewer}.egress`]);
      if (!checkCommandAllowed(r.check.command)) fail('policy_invalid', [`reviewers.${reviewer}.check.command`]);
    }
    const env = Object.entries(r.env);
    if (env.length > MAX_REVIEWER_ENV) fail('policy_invalid', [`reviewers.${reviewer}.env`]);
    // Behind the relay the runner sets the provider's base-URL and key variables (the phantom);
    // the policy may not set them itself (docs/egress.md#the-in-sandbox-relay).
    if (r.egress?.relay !== undefined && env.some(([k]) => RELAY_ENV_NAMES.includes(k) || TERMINATE_ENV_NAMES.includes(k))) fail('policy_invalid', [`reviewers.${reviewer}.env`]);
    for (const [k, v] of env) {
      if (!reviewerEnvNameAllowed(k) || v.includes('\0')) fail('policy_invalid', [`reviewers.${reviewer}.env`]);
    }
  }
  // All credentials are distinct keys (docs/policy.md#policy-and-trust-root).
  const ids = Object.values(doc.credentials).flatMap((c) => (c ? [c.key_id] : []));
  if (new Set(ids).size !== ids.length) fail('policy_credentials_not_distinct', ['credentials']);
  // The sandbox limits a policy sets must be ones the sandbox accepts (docs/runner.md#the-run-step-by-step step 5, docs/threat-model.md#rules-that-hold-everywhere fail
  // closed), compared in the sandbox's own unit: milliseconds for the timeout (exactly the
  // `seconds * 1000` of runner/sandbox/limits.ts sandboxLimitsFromPolicy), bytes for the sizes.
  // A policy that loads can then never issue challenges that no run can serve.
  const sandboxTimeoutSeconds = parseDurationSeconds(doc.sandbox.timeout, 'sandbox.timeout');
  const sandboxMemoryBytes = parseSizeBytes(doc.sandbox.memory, 'sandbox.memory');
  const maxOutputBytes = parseSizeBytes(doc.sandbox.max_output, 'sandbox.max_output');
  if (!withinBound(sandboxTimeoutSeconds * 1000, SANDBOX_BOUNDS.timeoutMs)) fail('policy_invalid', ['sandbox.timeout']);
  if (!withinBound(sandboxMemoryBytes, SANDBOX_BOUNDS.memoryBytes)) fail('policy_invalid', ['sandbox.memory']);
  if (!withinBound(maxOutputBytes, SANDBOX_BOUNDS.maxOutputBytes)) fail('policy_invalid', ['sandbox.max_output']);
  return {
    doc,
    digest: digestOf(doc),
    challengeTtlSeconds: parseDurationSeconds(doc.challenge_ttl, 'challenge_ttl'),
    reuseWindowSeconds: doc.reuse_window === undefined ? null : parseDurationSeconds(doc.reuse_window, 'reuse_window'),
    sandboxTimeoutSeconds,
    sandboxMemoryBytes,
    maxOutputBytes,
    maxBundleBytes: parseSizeBytes(doc.sandbox.max_bundle, 'sandbox.max_bundle'),
  };
}
