// The policy (SPEC §13): strict, closed, one clear error per field. Its digest is pinned at init
// and bound into every challenge and receipt. Pure: callers pass the parsed value.
import { z } from 'zod';
import { digestOf } from './canonical.js';
import { fail } from './errors.js';
import { isDuration, isSize, parseDurationSeconds, parseSizeBytes } from './duration.js';
import { STAGES } from './receipt-predicate.js';

export const ROLES = ['source_fidelity', 'baseline_preservation', 'implementation_test', 'authority_release'] as const;
export type Role = (typeof ROLES)[number];
export type Stage = (typeof STAGES)[number];
/** Stages whose slots are the four roles and whose reviewers see role views (SPEC §7.1). */
export const ROLE_STAGES: ReadonlySet<Stage> = new Set(['planning', 'integration']);

/** Control names a policy may require (SPEC §13). Which of them this version implements is the
 * registry in src/core/decision/controls.ts; a required pending control keeps a unit REVIEW_ONLY. */
export const KNOWN_CONTROLS = [
  'deploy_gate',
  'real_entry_probes',
  'vendor_origin_attestation',
  'incident_history',
  'cross_role_comparison',
  'external_effect_gate',
] as const;

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const name = z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/);
const duration = z.string().refine(isDuration, { message: 'duration' });
const size = z.string().refine(isSize, { message: 'size' });
const relPath = z
  .string()
  .min(1)
  .max(1024)
  .refine((p) => p === '.' || (!p.startsWith('/') && !p.split('/').some((s) => s === '' || s === '.' || s === '..')), {
    message: 'path',
  });

const stageSchema = z.strictObject({
  required: z.boolean(),
  streak: z.number().int().min(2).max(100),
  slots: z.record(name, name),
});

const credentialSchema = z.strictObject({
  key_id: hex64,
  attestor_sha256: z.array(hex64).min(1).max(16),
  attestor_config_sha256: z.array(hex64).min(1).max(16),
});

export const policySchema = z.strictObject({
  kind: z.literal('governed/policy'),
  version: z.literal(1),
  trust_mode: z.literal('co-located'),
  accept_co_located: z.boolean(),
  challenge_ttl: duration,
  max_runs_per_content: z.number().int().min(1).max(1000),
  reuse_window: duration.optional(),
  product_roots: z.array(relPath).min(1).max(64),
  exclude: z.array(relPath).max(256),
  preservation: z.union([z.literal('required'), z.strictObject({ waived: z.string().min(1).max(500) })]),
  stages: z
    .strictObject({
      planning: stageSchema.optional(),
      development: stageSchema.optional(),
      test: stageSchema.optional(),
      integration: stageSchema.optional(),
    })
    .refine((s) => Object.keys(s).length > 0, { message: 'stages' }),
  reviewers: z.record(
    name,
    z.strictObject({
      sha256: hex64,
      interpreter: z.string().regex(/^\/usr\/[A-Za-z0-9._/+-]{1,200}$/).refine((p) => !p.split('/').includes('..'), { message: 'path' }),
      env: z.record(z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/), z.string().max(4096)),
    }),
  ),
  sandbox: z.strictObject({
    bwrap_sha256: z.array(hex64).min(1).max(16),
    profile_sha256: z.array(hex64).min(1).max(16),
    seccomp_sha256: z.array(hex64).min(1).max(16),
    uid: z.number().int().min(1000).max(4294967294),
    timeout: duration,
    memory: size,
    max_output: size,
    max_bundle: size,
  }),
  credentials: z.strictObject({
    reviewer: credentialSchema,
    runner: credentialSchema,
    gate: credentialSchema,
    log: credentialSchema,
    probe: credentialSchema.optional(),
  }),
  controls: z.array(z.enum(KNOWN_CONTROLS)).max(KNOWN_CONTROLS.length),
});

export type PolicyDocument = z.infer<typeof policySchema>;

export interface Policy {
  readonly doc: PolicyDocument;
  /** sha256 over the RFC 8785 form of the parsed document (SPEC §3): YAML and JSON agree. */
  readonly digest: string;
  readonly challengeTtlSeconds: number;
  readonly reuseWindowSeconds: number | null;
  readonly sandboxTimeoutSeconds: number;
  readonly sandboxMemoryBytes: number;
  readonly maxOutputBytes: number;
  readonly maxBundleBytes: number;
}

/** The environment names a policy may never set for a reviewer (SPEC §7.3 fixed environment). */
const FIXED_ENV = new Set(['GOVERNED_BUNDLE', 'HOME', 'TMPDIR', 'PATH', 'LANG']);

/**
 * Validate a parsed policy. Schema failures are `policy_invalid` with the field paths; cross-field
 * rules each have their own code and name the offending stage/slot/credential, never a value.
 */
export function loadPolicy(value: unknown): Policy {
  const parsed = policySchema.safeParse(value);
  if (!parsed.success) {
    fail('policy_invalid', parsed.error.issues.slice(0, 4).map((i) => i.path.map(String).join('.') || '$'));
  }
  const doc = parsed.data;
  for (const stage of STAGES) {
    const s = doc.stages[stage];
    if (s === undefined) continue;
    const slots = Object.keys(s.slots);
    if (slots.length === 0) fail('policy_invalid', [`stages.${stage}.slots`]);
    // Planning and integration slots are exactly the four roles (SPEC §7.1, §10.1).
    if (ROLE_STAGES.has(stage) && (slots.length !== ROLES.length || !ROLES.every((r) => slots.includes(r)))) {
      fail('policy_roles_incomplete', [`stages.${stage}`]);
    }
    for (const [slot, reviewer] of Object.entries(s.slots)) {
      if (!Object.prototype.hasOwnProperty.call(doc.reviewers, reviewer)) fail('policy_reviewer_unknown', [`stages.${stage}.slots.${slot}`]);
    }
  }
  // Integration requires the planning stage sealed (SPEC §10.1): a policy with integration needs planning.
  if (doc.stages.integration !== undefined && doc.stages.planning === undefined) fail('policy_invalid', ['stages.planning']);
  for (const [reviewer, r] of Object.entries(doc.reviewers)) {
    for (const k of Object.keys(r.env)) if (FIXED_ENV.has(k)) fail('policy_invalid', [`reviewers.${reviewer}.env`]);
  }
  // All credentials are distinct keys (SPEC §13).
  const ids = Object.entries(doc.credentials).flatMap(([, c]) => (c ? [c.key_id] : []));
  if (new Set(ids).size !== ids.length) fail('policy_credentials_not_distinct', ['credentials']);
  return {
    doc,
    digest: digestOf(doc),
    challengeTtlSeconds: parseDurationSeconds(doc.challenge_ttl, 'challenge_ttl'),
    reuseWindowSeconds: doc.reuse_window === undefined ? null : parseDurationSeconds(doc.reuse_window, 'reuse_window'),
    sandboxTimeoutSeconds: parseDurationSeconds(doc.sandbox.timeout, 'sandbox.timeout'),
    sandboxMemoryBytes: parseSizeBytes(doc.sandbox.memory, 'sandbox.memory'),
    maxOutputBytes: parseSizeBytes(doc.sandbox.max_output, 'sandbox.max_output'),
    maxBundleBytes: parseSizeBytes(doc.sandbox.max_bundle, 'sandbox.max_bundle'),
  };
}

/** The reviewer the policy assigns to a stage's slot (the caller never picks it, SPEC §10.1). */
export function reviewerForSlot(policy: Policy, stage: Stage, slot: string): { name: string; sha256: string; interpreter: string; env: Record<string, string> } {
  const s = policy.doc.stages[stage];
  if (s === undefined) fail('stage_not_in_policy', [stage]);
  const reviewer = Object.prototype.hasOwnProperty.call(s.slots, slot) ? s.slots[slot] : undefined;
  if (reviewer === undefined) fail('slot_unknown', [`${stage}.${slot}`]);
  const r = policy.doc.reviewers[reviewer];
  if (r === undefined) fail('policy_reviewer_unknown', [`${stage}.${slot}`]);
  return { name: reviewer, ...r };
}
