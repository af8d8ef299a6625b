// The closed vocabulary of reviews (docs/reviewers.md#reviewer-output, docs/overview.md#words): stages, finding codes, classes, severities.
// Kept free of zod: the attestor, the coverage reviewer and every schema share this one vocabulary.
export const STAGES = ['planning', 'development', 'test', 'integration'] as const;

/** Control names a policy may require (docs/policy.md#policy-and-trust-root). Which of them this version implements is the
 * registry in src/core/decision/controls.ts; a required pending control keeps a unit REVIEW_ONLY. */
export const KNOWN_CONTROLS = [
  'deploy_gate',
  'real_entry_probes',
  'vendor_origin_attestation',
  'incident_history',
  'cross_role_comparison',
  'external_effect_gate',
] as const;
/** The report format a check command prints (docs/reviewers.md#check-reviewers): the tests adapter
 * reads TAP, or only the exit status. The policy's `check.report` and the bundle's `check.report`. */
export const CHECK_REPORTS = ['tap', 'exit-code'] as const;
export const FINDING_CODES = [
  'scope_omission',
  'source_mapping',
  'trace_gap',
  'authority_mismatch',
  'evidence_gap',
  'preservation_regression',
  'correctness',
  'test_gap',
  'release_blocker',
  'other',
] as const;
export const FINDING_CLASSES = ['correctness', 'preservation', 'scope', 'authority', 'release'] as const;
export const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFO'] as const;
/** A CRITICAL finding of one of these classes is a veto (docs/reviewers.md#reviewer-output, docs/decision.md#6-vetoes). */
export const VETO_CLASSES: ReadonlySet<string> = new Set(['preservation', 'scope', 'authority', 'release']);
