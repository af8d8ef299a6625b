// Reading a vendor source's origin tree at check time (docs/preservation.md#vendor-sources). The origin
// is a separate repository (a clone or mirror the caller names); its commit is read from its own git
// objects with the hardened git of ./git.ts. An "origin" that holds the product's own baseline commit
// is the product (or a copy of it), not an independent origin: refused, so a digest of the local copy
// can never pass as the origin's.
import { realpathSync } from 'node:fs';
import { fail, isGovernedError } from '../core/errors.js';
import { originTreeDigest } from '../core/preservation/vendor.js';
import { computeCommitManifest } from './commit.js';
import { findRepository, runGit } from './git.js';

export async function originDigest(args: {
  readonly vendor: string;
  readonly originDir: string;
  readonly commit: string;
  readonly path: string;
  readonly productRoot: string;
  readonly productBaseline: string;
}): Promise<string> {
  const repo = findRepository(args.originDir);
  if (repo === null) return fail('vendor_origin_unverifiable', [args.vendor]);
  const product = findRepository(args.productRoot);
  if (product !== null && realpathSync(product.gitDir) === realpathSync(repo.gitDir)) fail('vendor_origin_is_local_copy', [args.vendor]);
  let holdsProduct = true;
  try {
    await runGit(repo, ['cat-file', '-e', `${args.productBaseline}^{commit}`]);
  } catch (e) {
    if (!isGovernedError(e)) throw e;
    holdsProduct = false;
  }
  if (holdsProduct) fail('vendor_origin_is_local_copy', [args.vendor]);
  try {
    const m = await computeCommitManifest(repo.workTree, args.commit, { productRoots: [args.path], exclude: [] });
    return originTreeDigest(m.entries, args.path);
  } catch (e) {
    if (isGovernedError(e)) fail('vendor_origin_unverifiable', [args.vendor]);
    throw e;
  }
}
