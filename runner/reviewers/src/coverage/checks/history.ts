// Authority and release (docs/bundle.md#views `authority_release` role and the `complete` view: the
// `scope_history` section). docs/contract.md#scope-history: every narrowing bind needs a signed authority record, and
// the scope history records, per version, the narrowed IDs and the authority records consumed.
// `unit bind` enforces this when it binds; the reviewer re-checks the recorded history it is shown,
// so a history edited behind the tool's back (or a bind path that forgot the rule) cannot pass a
// review silently.
//
//   authority_mismatch  a scope version whose `narrowing` is non-empty while its `authorities`
//                       list is empty. refs: the scope version.
import type { Sections } from '../bundle.js';
import { finding, type Finding } from '../findings.js';

export function historyFindings(s: Sections): Finding[] {
  const out: Finding[] = [];
  for (const v of s.scope_history ?? []) {
    if (v.narrowing.length > 0 && v.authorities.length === 0) out.push(finding('authority_mismatch', 'authority', 'HIGH', [v.id]));
  }
  return out;
}
