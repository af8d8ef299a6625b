// `governed init --policy FILE --trust FILE [--home DIR]` (docs/commands.md#what-each-command-guarantees, docs/state.md#the-store, docs/policy.md#policy-and-trust-root; docs/state.md#init).
//
// Both files are required (docs/state.md "init"): a default policy would pin a document whose
// reviewer, attestor and sandbox digests are placeholders, so nothing could ever run under it, and
// a default trust root would be a set of keys nobody holds. Making the operator name both keeps
// the choice of what governs the store explicit.
//
// Before anything is created on disk: the policy must load (strict schema and cross-field rules),
// the trust root must load and be unexpired, and every policy credential must name a key that the
// trust root holds with that role and that is valid now (`policy_credential_untrusted`, exit 6) —
// otherwise no receipt signed under this policy could ever verify. Then `initStore` creates the
// state directory (0700), `bundles/` (0700) and the database (0600, WAL, synchronous=FULL, foreign
// keys, busy timeout), and pins both documents' digests and exact bytes in one logged transaction.
// A second init is refused (`store_already_initialized`) and changes nothing.
import { homeInGit } from '../workspace/home-ignored.js';
import { fail } from '../core/errors.js';
import { loadPolicy, type Policy } from '../core/policy.js';
import { assertTrustRootCurrent, isoSecondsOf, keyStatusAt, loadTrustRoot, type KeyRole, type TrustRoot } from '../core/trust-root.js';
import { closeStore, initStore } from '../store/index.js';
import { PIN_DOCUMENT_MAX_BYTES } from '../core/limits.js';
import { parsePinDocument } from '../core/pin-document.js';
import { readInputFile } from './read-input.js';

export interface InitArgs {
  readonly home: string;
  readonly policyFile: string;
  readonly trustFile: string;
  readonly now: number;
}

export interface InitResult {
  readonly home: string;
  readonly policyDigest: string;
  readonly trustDigest: string;
  readonly trustMode: string;
  readonly acceptCoLocated: boolean;
}

/** docs/policy.md#policy-and-trust-root "credentials: public keys live in the trust root": each credential's key, with its role, valid now. */
export function assertCredentialsTrusted(policy: Policy, trust: TrustRoot, atIso: string): void {
  for (const [role, credential] of Object.entries(policy.doc.credentials)) {
    if (credential === undefined) continue;
    const key = trust.keys.get(credential.key_id);
    if (key === undefined || !key.roles.has(role as KeyRole) || keyStatusAt(key, atIso, false) !== 'ok') {
      fail('policy_credential_untrusted', [`credentials.${role}`]);
    }
  }
}

/**
 * init's advice (docs/state.md "init"): a state directory inside a git repository that does not
 * ignore it would be committed by `git add -A` (the store, its bundles). Never fails init: when git
 * cannot tell (an unreadable repository), the warning is given.
 */
export async function homeGitWarning(home: string): Promise<'home_not_git_ignored' | null> {
  try {
    return (await homeInGit(home)) === 'not_ignored' ? 'home_not_git_ignored' : null;
  } catch {
    return 'home_not_git_ignored';
  }
}

export function initFlow(args: InitArgs): InitResult {
  const policyBytes = readInputFile(args.policyFile, PIN_DOCUMENT_MAX_BYTES);
  const trustBytes = readInputFile(args.trustFile, PIN_DOCUMENT_MAX_BYTES);
  const policy = loadPolicy(parsePinDocument(policyBytes, 'policy').value);
  const trust = loadTrustRoot(parsePinDocument(trustBytes, 'trust').value);
  const at = isoSecondsOf(new Date(args.now * 1000));
  assertTrustRootCurrent(trust, at);
  assertCredentialsTrusted(policy, trust, at);
  const store = initStore(args.home, { policyBytes, trustBytes, now: args.now });
  try {
    return {
      home: store.home,
      policyDigest: policy.digest,
      trustDigest: trust.digest,
      trustMode: policy.doc.trust_mode,
      acceptCoLocated: policy.doc.accept_co_located,
    };
  } finally {
    closeStore(store);
  }
}
