// docs/runner.md#the-run-step-by-step step 8, "contract": the bound contract re-parsed from its stored exact bytes, for drift.ts.
//
// Same acceptance as `parseContractBytes` (src/flows/unit-contract.ts: strict UTF-8, strict JSON or
// YAML by content, then the one `contractSchema`), on the fast path: the text is parsed by the very
// same `parseStructured` and checked by that schema's compiled form (docs/architecture.md#compiled-formats); anything else — an undecodable or
// unparsable text, a shape the schema refuses — goes to `parseContractBytes` itself (its module and
// the error-classifying `parseContract` loaded only then), so a refusal keeps its exact code and IDs.
// test/run-perf-bound-contract.test.ts checks this function against `parseContractBytes`.
import type { Contract } from '../../core/contract/schema.js';
import { CONTRACT_FORMAT } from '../../core/contract/stored.js';
import { checkFormat } from '../../core/format/interpret.js';
import { decodeUtf8 } from '../../core/utf8.js';
import { parseStructured } from '../../core/strict-parse.js';

export async function parseBoundContract(bytes: Uint8Array): Promise<Contract> {
  let value: unknown;
  let parsed = false;
  try {
    value = parseStructured(decodeUtf8(bytes, 'contract'), '');
    parsed = true;
  } catch {
    // Reported below, by the reference parser, with its own code.
  }
  if (parsed) {
    const r = checkFormat(CONTRACT_FORMAT, value);
    if (r.success) return r.data;
  }
  const { parseContractBytes } = await import('../unit-contract.js');
  return parseContractBytes(bytes);
}
