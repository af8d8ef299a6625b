// The policy and trust root a command works under (docs/commands.md#what-each-command-guarantees init, docs/policy.md#policy-and-trust-root; docs/state.md#review-challenge).
//
// The store holds the pinned bytes (`pins`), so the store is the source of the policy and trust root
// in force: nothing is re-read from wherever the files were at init. Before use, the pinned bytes
// are checked: their canonical digest must still be the recorded digest, and they must still load
// under their strict schemas (`pin_integrity_failed`, exit 4, otherwise: the row was edited behind
// governed's back). The trust root must not have expired (exit 5).
//
// How the CLI learns the *current* policy and trust root (docs/state.md "Current vs pinned"): a
// deployment passes the files it holds with `--policy FILE` / `--trust FILE` (or GOVERNED_POLICY /
// GOVERNED_TRUST); when given, their canonical digests must equal the pinned ones, else the command
// is refused (`policy_not_pinned` / `trust_not_pinned`, exit 4). Changing either takes
// `governed policy update` / `trust update` with a signed authority record (docs/policy.md#policy-and-trust-root).
import { fail, isGovernedError } from '../../core/errors.js';
import { loadPolicy, type Policy } from '../../core/policy.js';
import { PIN_DOCUMENT_MAX_BYTES } from '../../core/limits.js';
import { parsePinDocument } from '../../core/pin-document.js';
import { assertTrustRootCurrent, isoSecondsOf, loadTrustRoot, type TrustRoot } from '../../core/trust-root.js';
import { readPin, type Db, type Store } from '../../store/index.js';
import { readInputFile } from '../read-input.js';

export interface Pinned {
  readonly policy: Policy;
  readonly trust: TrustRoot;
  readonly policyDigest: string;
  readonly trustDigest: string;
  /** The exact pinned bytes these were loaded from (a later check compares bytes, not parses). */
  readonly bytes: { readonly policy: Buffer; readonly trust: Buffer };
}

function integrity<T>(what: 'policy' | 'trust', fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (isGovernedError(e)) fail('pin_integrity_failed', [what], e);
    throw e;
  }
}

/** The pinned policy and trust root, verified against their recorded digests and schemas. */
export function loadPinned(x: Store | Db, now: number): Pinned {
  const policyPin = readPin(x, 'policy');
  const trustPin = readPin(x, 'trust');
  const policy = integrity('policy', () => {
    const { value, digest } = parsePinDocument(policyPin.bytes, 'policy');
    if (digest !== policyPin.digest) fail('pin_integrity_failed', ['policy']);
    return loadPolicy(value);
  });
  const trust = integrity('trust', () => {
    const { value, digest } = parsePinDocument(trustPin.bytes, 'trust');
    if (digest !== trustPin.digest) fail('pin_integrity_failed', ['trust']);
    return loadTrustRoot(value);
  });
  if (policy.digest !== policyPin.digest || trust.digest !== trustPin.digest) fail('pin_integrity_failed', ['digest']);
  assertTrustRootCurrent(trust, isoSecondsOf(new Date(now * 1000)));
  return { policy, trust, policyDigest: policyPin.digest, trustDigest: trustPin.digest, bytes: { policy: policyPin.bytes, trust: trustPin.bytes } };
}

/**
 * The pins in force now, when they are byte for byte (digest column included) the ones `earlier`
 * was loaded and verified from: the same bytes parse to the same document and digest, so the
 * parse, canonical form and schema checks are not repeated (review-run's drift check, docs/runner.md#the-run-step-by-step
 * step 8). The trust root's expiry is re-checked at `now`. Any difference: the full `loadPinned`,
 * with its own codes.
 */
export function reloadPinned(x: Store | Db, earlier: Pinned, now: number): Pinned {
  const policyPin = readPin(x, 'policy');
  const trustPin = readPin(x, 'trust');
  const same =
    policyPin.digest === earlier.policyDigest &&
    trustPin.digest === earlier.trustDigest &&
    policyPin.bytes.equals(earlier.bytes.policy) &&
    trustPin.bytes.equals(earlier.bytes.trust);
  if (!same) return loadPinned(x, now);
  assertTrustRootCurrent(earlier.trust, isoSecondsOf(new Date(now * 1000)));
  return earlier;
}

export interface CurrentFiles {
  /** The policy file the deployment holds now (optional). */
  readonly policyFile?: string | undefined;
  /** The trust-root file the deployment holds now (optional). */
  readonly trustFile?: string | undefined;
}

/** Refuse when a given current policy / trust root is not the pinned one (exit 4). */
export function assertCurrentIsPinned(pinned: Pinned, current: CurrentFiles): void {
  if (current.policyFile !== undefined) {
    const { digest } = parsePinDocument(readInputFile(current.policyFile, PIN_DOCUMENT_MAX_BYTES), 'policy');
    if (digest !== pinned.policyDigest) fail('policy_not_pinned');
  }
  if (current.trustFile !== undefined) {
    const { digest } = parsePinDocument(readInputFile(current.trustFile, PIN_DOCUMENT_MAX_BYTES), 'trust');
    if (digest !== pinned.trustDigest) fail('trust_not_pinned');
  }
}
