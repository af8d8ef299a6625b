// docs/runner.md#the-run-step-by-step step 9 (with docs/formats.md#receipt, docs/formats.md#attestors): both pinned attestors sign the statement IN PARALLEL (each one a
// sealed copy of the bytes hashed at step 4, started ahead of time by attestor-session.ts, which
// verifies each returned signature under the key the policy names for that credential), then the
// assembled DSSE envelope is verified WHOLE with `verifyReceiptBytes` (src/core/verify-receipt.ts)
// under the pinned trust root — the verifier `governed verify` and `audit verify` use — so a receipt
// that would not verify is never committed.
import { fail } from '../../core/errors.js';
import { encodeEnvelope, IN_TOTO_PAYLOAD_TYPE } from '../../core/dsse.js';
import type { TrustRoot } from '../../core/trust-root.js';
import { verifyReceiptBytes } from '../../core/verify-receipt.js';
import type { StartedAttestor } from './attestor-session.js';
import type { BuiltStatement } from './statement.js';

export interface SignedReceipt {
  readonly receiptId: string;
  /** The exact envelope bytes that are stored and that `receipt show` prints. */
  readonly envelope: Buffer;
}

export interface Signers {
  readonly reviewer: StartedAttestor;
  readonly runner: StartedAttestor;
}

export async function signReceipt(st: BuiltStatement, signers: Signers, trust: TrustRoot, atIso: string): Promise<SignedReceipt> {
  const [reviewer, runner] = await Promise.all([
    signers.reviewer.sign(IN_TOTO_PAYLOAD_TYPE, st.payload),
    signers.runner.sign(IN_TOTO_PAYLOAD_TYPE, st.payload),
  ]);
  const envelope = Buffer.from(
    JSON.stringify(
      encodeEnvelope(IN_TOTO_PAYLOAD_TYPE, st.payload, [
        { keyid: reviewer.keyid, sig: reviewer.sig },
        { keyid: runner.keyid, sig: runner.sig },
      ]),
    ),
    'utf8',
  );
  // Judged at the runner's time: the commit that follows is the record's log position.
  const verified = verifyReceiptBytes(envelope, trust, { at: atIso, offline: false });
  if (verified.id !== st.receiptId || !verified.payload.equals(st.payload)) fail('internal_error', ['receipt']);
  return { receiptId: verified.id, envelope };
}
