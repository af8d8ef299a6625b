// docs/runner.md#the-run-step-by-step step 8, "contract": the bound contract re-parsed from its stored exact bytes, for drift.ts.
//
// Same acceptance as `parseContractBytes` (src/flows/unit-contract.ts: strict UTF-8, strict JSON or
// YAML by content, then the zod `contractSchema`), without constructing or running that zod schema
// on every run (bench/runner, docs/architecture.md "review-run's bundle, zod and yaml loading"):
//  - the text is parsed by the very same `parseStructured`;
//  - the value is checked by `contractShape` (src/core/lean/contract.ts), the zod-free mirror of
//    `contractSchema` that test/gate-lean-schemas.test.ts proves accepts exactly what zod accepts;
//    the schema has no defaults or transforms, so an accepted value IS what zod would return;
//  - anything else — an undecodable or unparsable text, a shape the mirror refuses — goes to
//    `parseContractBytes` itself (loaded only then), so a refusal keeps its exact code and IDs.
// test/run-perf-bound-contract.test.ts checks this function against `parseContractBytes` over valid
// contracts and hundreds of mutations (same acceptance, same value, same error code and IDs).
import type { Contract } from '../../core/contract/schema.js';
import { contractShape } from '../../core/lean/contract.js';
import { decodeUtf8 } from '../../core/lean/structured.js';
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
  if (parsed && contractShape(value, '$') === null) return value as Contract;
  const { parseContractBytes } = await import('../unit-contract.js');
  return parseContractBytes(bytes);
}
