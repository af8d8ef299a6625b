// `governed authority record` (docs/authority.md#human-authority-records): bring a signed record back to the pipeline machine. It is
// verified against the pinned trust root at the current log position (role authority, key valid
// then), its nonce must be one this store issued, unused and unexpired, its statement must be the
// one issued; then its exact envelope bytes are stored (logged). Judging what it is used for
// happens later, once, where it is consumed.
import { AUTHORITY_RECORD_MAX_BYTES } from '../../core/limits.js';
import { closeStore, openStore, recordAuthority, type AuthorityRecordInfo } from '../../store/index.js';
import { readInputFile } from '../read-input.js';

export function authorityRecordFlow(opts: { readonly home: string; readonly record: string; readonly now: number }): AuthorityRecordInfo {
  const envelope = readInputFile(opts.record, AUTHORITY_RECORD_MAX_BYTES);
  const store = openStore(opts.home);
  try {
    return recordAuthority(store, { envelope, now: opts.now });
  } finally {
    closeStore(store);
  }
}
