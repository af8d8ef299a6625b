// The three shipped mappers, one module each so each adapter bundles only its own parser (docs/reviewers.md#check-reviewers has the table): exit status and
// stdout of the policy's command → findings, or NoVerdict. Pure.
//
//   tests (tap)        exit 0, TAP version line, a plan met, ≥ 1 point, no failed point   → CLEAN
//                      exit ≠ 0 and ≥ 1 failed top-level point                            → DIRTY: one
//                      correctness/HIGH finding per failing file (refs: its IDs), or per
//                      failure without a location (refs: the directives)
//                      anything else (no TAP, bail out, exit 0 with failures, exit ≠ 0 with none)
//                      → no verdict (80 crash / 82 unparsable)
//   tests (exit-code)  exit 0 → CLEAN; exit 1 → DIRTY, one correctness/HIGH finding on the
//                      directives; any other status → no verdict (80)
//   tsc                exit 0 and no diagnostic → CLEAN; exit 1 or 2 with ≥ 1 located diagnostic
//                      and no global one → DIRTY, one correctness/HIGH finding per file;
//                      a global diagnostic (configuration: tsc checked nothing) → 82; else 80/82
//   eslint             JSON formatter only. exit 0 and no error-level message → CLEAN (warnings
//                      never make findings); exit 1 with ≥ 1 error → DIRTY, per file: a fatal
//                      (parse) error → correctness/HIGH, rule errors → other/MEDIUM; exit 2
//                      (ESLint's own failure) → 80; output that is not ESLint JSON, or a result
//                      outside the snapshot → 82
export { mapTests } from './map-tests.js';
export { mapTsc } from './map-tsc.js';
export { mapEslint } from './map-eslint.js';
