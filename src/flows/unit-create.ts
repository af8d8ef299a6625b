// `governed unit create --contract F --baseline COMMIT [--repo DIR]` (docs/commands.md#what-each-command-guarantees, docs/contract.md#the-request-contract; docs/state.md#commands).
//
// The baseline is resolved once, here, to a full commit id and tree id with hardened git (replace
// objects off), and never re-resolved. The contract is parsed strictly and validated against the
// source bytes of that baseline tree; then, in ONE transaction, the unit is created (`unit_create`)
// and its scope version 1 bound (`scope_bind`: exact contract bytes, contract digest, source
// digests). A refused contract records nothing.
//
// A contract with tombstones cannot be created: a disposal needs a consumed authority record of
// this unit (docs/contract.md#validation-rules), and a unit has none before it exists. Create the unit with its directives
// in scope, then dispose of one with `unit bind` and an authority record.
import { resolve } from 'node:path';
import { contractDigest } from '../core/contract/digests.js';
import { validateContract } from '../core/contract/validate.js';
import { sourcesDigest } from '../core/bundle/index.js';
import { bindScopeIn, closeStore, createUnitIn, mutate, openStore } from '../store/index.js';
import { resolveBaseline } from '../workspace/index.js';
import { loadPinned } from './challenge/pinned.js';
import { readBaselineSources } from './challenge/baseline-sources.js';
import { readContractFile } from './unit-contract.js';

export interface UnitCreateArgs {
  readonly home: string;
  readonly contractFile: string;
  readonly baseline: string;
  /** The repository top level (default: the current directory). */
  readonly repo: string;
  readonly now: number;
}

export interface UnitCreateResult {
  readonly unitId: string;
  readonly baselineCommit: string;
  readonly baselineTree: string;
  readonly scopeVersion: number;
  readonly scopeEpoch: number;
  readonly workRevision: number;
  readonly contractDigest: string;
  readonly sourcesDigest: string;
}

export async function createUnitFlow(args: UnitCreateArgs): Promise<UnitCreateResult> {
  const store = openStore(args.home);
  try {
    const pinned = loadPinned(store, args.now);
    const root = resolve(args.repo);
    const { bytes, contract } = readContractFile(args.contractFile);
    const baseline = await resolveBaseline(root, args.baseline);
    const sources = await readBaselineSources(root, baseline.commit, contract);
    // No unit exists yet, so no authority record can have been consumed for it.
    validateContract(contract, { sourceBytes: sources.bytes, productRoots: pinned.policy.doc.product_roots, isValidAuthority: () => false });
    const digest = contractDigest(contract);
    const srcDigest = sourcesDigest(sources.digests);
    return mutate(store, args.now, (tx) => {
      const { unitId } = createUnitIn(tx, { baselineCommit: baseline.commit, baselineTree: baseline.tree });
      const v = bindScopeIn(tx, {
        unit: unitId,
        contractBytes: bytes,
        contractDigest: digest,
        sources: sources.digests,
        sourcesDigest: srcDigest,
        diff: null,
        scopeChanged: true,
        authorities: [],
      });
      return {
        unitId,
        baselineCommit: baseline.commit,
        baselineTree: baseline.tree,
        scopeVersion: v.version,
        scopeEpoch: v.scopeEpoch,
        workRevision: v.workRevision,
        contractDigest: digest,
        sourcesDigest: srcDigest,
      };
    });
  } finally {
    closeStore(store);
  }
}
