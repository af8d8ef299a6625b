// Error and reason codes owned by the runner domain (SPEC §4.2). Add entries here only.
import { def, type ErrorDef } from './def.js';

export const RUNNER_ERRORS = {
  challenge_unknown: def(5, 'No challenge with this id exists in this store (never issued here, or replayed from elsewhere).'),
  challenge_expired: def(5, 'The challenge expired before it was claimed.'),
  challenge_claimed: def(5, 'The challenge is already claimed by another run (one-time: exactly one run per challenge).'),
  challenge_consumed: def(5, 'The challenge was already used: its run ended as a receipt or ABORTED (replay).'),
  run_unknown: def(1, 'No run with this id exists.'),
  run_not_claimed: def(8, 'The run already ended; it cannot end twice.'),
  run_claim_aborted: def(9, 'The run was recorded as ABORTED while it ran (its claim was reaped); no receipt was recorded.'),
  run_deadline_passed: def(9, 'The run passed its deadline before it committed; it was recorded as ABORTED by a later command.'),
  runner_gone: def(9, 'The runner process of a claimed run is gone (boot id, pid, start time); the run was recorded as ABORTED.'),
  review_lease_taken: def(9, 'A mutation lease was taken while the review ran; the run was recorded as ABORTED.'),
} as const satisfies Record<string, ErrorDef>;

export const RUNNER_REASONS = {} as const satisfies Record<string, string>;
