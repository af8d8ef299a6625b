// The review-receipt predicate (docs/formats.md#receipt): everything a receipt binds. Closed at every level.
// Times are whole seconds in UTC (`YYYY-MM-DDTHH:MM:SSZ`), runner clock (docs/reviewers.md#reviewer-output, docs/formats.md#receipt).
import * as z from 'zod';
import { isIsoSeconds } from './iso-time.js';
import { STAGES, FINDING_CODES, FINDING_CLASSES, SEVERITIES, VETO_CLASSES } from './review-vocabulary.js';

export const REVIEW_RECEIPT_PREDICATE_TYPE = 'https://governed.dev/review-receipt/v1';

export const digestString = z.string().regex(/^sha256:[0-9a-f]{64}$/);
export const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
/** Strict ISO seconds naming a real calendar instant (./iso-time.ts; no Feb 30, no 24:00). */
export const isoSeconds = z.string().refine(isIsoSeconds, { message: 'iso_time' });
const gitId = z.string().regex(/^[0-9a-f]{40}$|^[0-9a-f]{64}$/);
const id = z.string().regex(/^[A-Z][A-Z0-9]{1,7}-[A-Za-z0-9._-]{1,24}$/);
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export { STAGES, FINDING_CODES, FINDING_CLASSES, SEVERITIES, VETO_CLASSES };

/** One opaque finding (docs/reviewers.md#reviewer-output): closed codes and IDs only, never text. */
export const findingSchema = z.strictObject({
  code: z.enum(FINDING_CODES),
  class: z.enum(FINDING_CLASSES),
  severity: z.enum(SEVERITIES),
  refs: z.array(id).min(1).max(4),
});
export type Finding = z.infer<typeof findingSchema>;

/** A finding is a veto when CRITICAL and of class preservation/scope/authority/release (docs/reviewers.md#reviewer-output). */
export function isVeto(f: Finding): boolean {
  return f.severity === 'CRITICAL' && VETO_CLASSES.has(f.class);
}

export const processIdentitySchema = z.strictObject({
  boot_id: z.string().regex(/^[0-9a-f-]{36}$/),
  pid: z.number().int().min(1).max(4194304),
  start_time: z.string().regex(/^\d{1,20}$/), // clock ticks since boot (/proc/<pid>/stat field 22)
});

export const reviewReceiptPredicateSchema = z.strictObject({
  trust_mode: z.enum(['co-located', 'separated']),
  unit: z.string().regex(/^UNIT-[0-9a-f]{32}$/),
  stage: z.enum(STAGES),
  slot: z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/),
  challenge_id: z.string().regex(/^CHL-[0-9a-f]{32}$/),
  run_id: z.string().regex(/^RUN-[0-9a-f]{32}$/),
  execution_id: z.string().regex(/^EXE-[0-9a-f]{32}$/),
  verdict: z.enum(['CLEAN', 'DIRTY']),
  findings: z.array(findingSchema).max(32),
  vetoes: z.array(findingSchema).max(32),
  coverage_matched: z.literal(true),
  bundle_digest: digestString,
  view_digest: digestString,
  planning_state_digest: digestString,
  content_digest: digestString,
  work_state_digest: digestString,
  inputs: z.strictObject({
    contract_digest: digestString,
    sources_digest: digestString,
    workspace_digest: digestString,
    baseline: z.strictObject({ commit: gitId, tree: gitId }),
    policy_digest: digestString,
    trust_digest: digestString,
    scope_epoch: count,
    work_revision: count,
  }),
  reviewer: z.strictObject({
    name: z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/),
    sha256: hex64,
    interpreter: z.string().regex(/^\/usr\/[A-Za-z0-9._/+-]{1,200}$/),
  }),
  sandbox: z.strictObject({
    bwrap_sha256: hex64,
    profile_digest: digestString,
    seccomp_digest: digestString,
    uid: z.number().int().min(0).max(4294967294),
    uid_separated: z.boolean(),
  }),
  attestors: z.strictObject({
    reviewer_sha256: hex64,
    runner_sha256: hex64,
  }),
  reviewer_process: processIdentitySchema.extend({
    namespaces: z.strictObject({
      cgroup: count,
      ipc: count,
      mnt: count,
      net: count,
      pid: count,
      user: count,
      uts: count,
    }),
  }),
  writers: z
    .array(processIdentitySchema.extend({ writer_session: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/) }))
    .max(64),
  times: z.strictObject({ issued_at: isoSeconds, started_at: isoSeconds, finished_at: isoSeconds }),
});

export type ReviewReceiptPredicate = z.infer<typeof reviewReceiptPredicateSchema>;

/**
 * Cross-field rules the schema cannot express: CLEAN ⇔ zero findings; vetoes are exactly the
 * veto findings; findings sorted and unique by canonical order (docs/reviewers.md#reviewer-output). Returns the first
 * broken rule's field name, or null.
 */
export function predicateRuleViolation(p: ReviewReceiptPredicate, canonical: (v: unknown) => string): string | null {
  if ((p.verdict === 'CLEAN') !== (p.findings.length === 0)) return 'verdict';
  const keys = p.findings.map((f) => canonical(f));
  for (let i = 1; i < keys.length; i++) if (!((keys[i - 1] as string) < (keys[i] as string))) return 'findings';
  for (const f of p.findings) {
    for (let i = 1; i < f.refs.length; i++) if (!((f.refs[i - 1] as string) < (f.refs[i] as string))) return 'findings.refs';
  }
  const expectedVetoes = p.findings.filter(isVeto).map((f) => canonical(f));
  const vetoes = p.vetoes.map((f) => canonical(f));
  if (expectedVetoes.length !== vetoes.length || expectedVetoes.some((v, i) => v !== vetoes[i])) return 'vetoes';
  const t = p.times;
  if (!(t.issued_at <= t.started_at && t.started_at <= t.finished_at)) return 'times';
  return null;
}
