// Source bytes of a contract, read from the unit's BASELINE TREE git objects (docs/contract.md#validation-rules "the bytes
// are read at issuance and their digest bound"; docs/contract.md#the-states-a-receipt-is-judged-against planning bundles come from the baseline tree,
// never the workspace).
//
// Decision (docs/state.md "Which source bytes are bound"): a source is the blob at its path in the
// baseline commit — immutable and content-addressed, so a writer cannot edit a human request after
// the fact, and the bytes bound at `unit create` / `unit bind` are the very bytes every later
// challenge re-reads. A source that is not a regular file of the baseline tree is refused
// (`contract_source_not_in_baseline`); a new human request needs a new unit on a baseline that
// contains it.
import { sha256Digest } from '../../core/canonical.js';
import { fail, isGovernedError } from '../../core/errors.js';
import { isNormalizedRelativePath } from '../../core/contract/paths.js';
import type { Contract } from '../../core/contract/schema.js';
import type { SourceDigest } from '../../core/bundle/index.js';
import { readCommitFiles } from '../../workspace/index.js';

export interface BaselineSources {
  /** Source id → exact bytes. Sources whose path is not normalized are left out (validation names them). */
  readonly bytes: Map<string, Uint8Array>;
  readonly digests: SourceDigest[];
}

/**
 * `maxBytes` (optional): a cap on the raw bytes of all sources, checked against git's object sizes
 * BEFORE any byte is read (`bundle_too_large`, naming the source). Without it, readCommitFiles'
 * own ceiling still bounds the read. Not every view carries the sources, so the policy's
 * max_bundle is the loosest cap a caller can honestly apply (docs/state.md).
 */
export async function readBaselineSources(root: string, commit: string, contract: Contract, maxBytes?: number): Promise<BaselineSources> {
  const readable = contract.sources.filter((s) => isNormalizedRelativePath(s.path));
  const paths = [...new Set(readable.map((s) => s.path))];
  let used = 0;
  const limit =
    maxBytes === undefined
      ? undefined
      : {
          admit: (i: number, size: number): void => {
            used += size;
            if (used > maxBytes) fail('bundle_too_large', [readable.find((s) => s.path === paths[i])?.id ?? 'sources']);
          },
        };
  let files: Map<string, Buffer>;
  try {
    files = await readCommitFiles(root, commit, paths, limit);
  } catch (e) {
    if (isGovernedError(e) && e.code === 'workspace_commit_path_missing') {
      // readCommitFiles names the index of the missing path; map it back to the source id.
      const m = /^paths\[(\d+)\]$/.exec(e.ids[0] ?? '');
      const path = m === null ? undefined : paths[Number(m[1])];
      const source = readable.find((s) => s.path === path);
      fail('contract_source_not_in_baseline', source === undefined ? [] : [source.id]);
    }
    throw e;
  }
  const bytes = new Map<string, Uint8Array>();
  const digests: SourceDigest[] = [];
  for (const s of readable) {
    const b = files.get(s.path);
    if (b === undefined) fail('contract_source_not_in_baseline', [s.id]);
    bytes.set(s.id, b);
    digests.push({ id: s.id, path: s.path, digest: sha256Digest(b) });
  }
  return { bytes, digests };
}
