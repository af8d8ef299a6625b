// `receipt show` through the daemon (docs/runnerd.md#the-socket-protocol): a receipt of a unit the caller
// does not own answers exactly as a receipt that does not exist (receipt_unknown, same ids), checked
// before the receipt's bytes are even verified — so the reply is no oracle for which receipt ids
// exist in the daemon's store, nor for which of them are damaged.
import { fail } from '../../core/errors.js';
import { closeStore, getReceipt, openStore } from '../../store/index.js';
import type { RunnerdOwners } from '../../store/runnerd-owners.js';

export function assertReceiptVisible(home: string, owners: RunnerdOwners, uid: number, receiptId: string): void {
  const store = openStore(home);
  let unit: string | null;
  try {
    unit = getReceipt(store.db, receiptId)?.unit ?? null;
  } finally {
    closeStore(store);
  }
  if (unit === null || owners.ownerOf(unit) !== uid) fail('receipt_unknown', [receiptId]);
}
