// `governed policy update` / `governed trust update` (docs/commands.md#what-each-command-guarantees, docs/policy.md#policy-and-trust-root): replace the pinned policy
// or trust root. Needs a recorded `policy_update` / `trust_update` authority record naming the
// pinned digest (before) and the new document's digest (after); it is consumed in the same
// transaction as the logged pin replacement. The record is judged under the trust root in force
// BEFORE the update: a new trust root never authorises itself. The update's log position is kept
// (pin_updates.seq): receipts before it stop counting, so every streak restarts (docs/contract.md#the-states-a-receipt-is-judged-against).
import { closeStore, mutate, openStore, replacePinIn, type PinKind, type PinUpdate } from '../../store/index.js';
import { readInputFile } from '../read-input.js';
import { PIN_DOCUMENT_MAX_BYTES } from '../../core/limits.js';
import { validatePinDocument } from './pin-document.js';

export interface PinUpdateOptions {
  readonly home: string;
  readonly kind: PinKind;
  readonly file: string;
  readonly recordId: string;
  readonly now: number;
}

export function pinUpdateFlow(opts: PinUpdateOptions): PinUpdate {
  const bytes = readInputFile(opts.file, PIN_DOCUMENT_MAX_BYTES);
  validatePinDocument(opts.kind, bytes, opts.now);
  const store = openStore(opts.home);
  try {
    return mutate(store, opts.now, (tx) => replacePinIn(tx, { kind: opts.kind, bytes, recordId: opts.recordId }));
  } finally {
    closeStore(store);
  }
}
