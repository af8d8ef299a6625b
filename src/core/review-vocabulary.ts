// The closed vocabulary of reviews (SPEC §7.2, §2): stages, finding codes, classes, severities.
// Kept free of zod: the attestor, the coverage reviewer and every schema share this one vocabulary.
export const STAGES = ['planning', 'development', 'test', 'integration'] as const;
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
/** A CRITICAL finding of one of these classes is a veto (SPEC §7.2, §10.2). */
export const VETO_CLASSES: ReadonlySet<string> = new Set(['preservation', 'scope', 'authority', 'release']);
