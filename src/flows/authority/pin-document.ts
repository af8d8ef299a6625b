// Validating a new policy or trust root before it may replace the pinned one (docs/policy.md#policy-and-trust-root). The
// document is parsed exactly as the pin parses it (auto-detected strict JSON or YAML), so the digest
// computed here is the digest the store pins and the digest the authority record must name.
import { fail } from '../../core/errors.js';
import { loadPolicy } from '../../core/policy.js';
import { assertTrustRootCurrent, keyStatusAt, loadTrustRoot } from '../../core/trust-root.js';
import { parsePinDocument } from '../../core/pin-document.js';
import { isoOfSeconds } from '../../core/authority/predicate.js';
import type { PinKind } from '../../store/index.js';

/** Refuse an invalid document; return its pin digest. */
export function validatePinDocument(kind: PinKind, bytes: Uint8Array, nowSeconds: number): string {
  const { value, digest } = parsePinDocument(bytes, kind);
  if (kind === 'policy') {
    loadPolicy(value);
  } else {
    const trust = loadTrustRoot(value);
    const at = isoOfSeconds(nowSeconds);
    assertTrustRootCurrent(trust, at);
    // A trust root without a usable authority key could never authorise anything again —
    // including the update that would repair it. Refuse it rather than lock the store.
    const usable = [...trust.keys.values()].some((k) => k.roles.has('authority') && keyStatusAt(k, at, false) === 'ok');
    if (!usable) fail('trust_update_no_authority_key', []);
  }
  return digest;
}
