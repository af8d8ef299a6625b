// The state directory must not be part of the reviewed workspace (docs/contract.md#workspace-digest: "excluding the state
// directory"). When `<home>` lies inside the repository under a product root and no policy
// `exclude` prefix covers it, the workspace digest would hash governed.db and the bundles
// themselves — every challenge would change the content it reviews — so the command is refused
// (`state_dir_in_workspace`) instead of silently excluding a path the pinned policy does not name.
import { realpathSync } from 'node:fs';
import { relative, isAbsolute, sep } from 'node:path';
import { fail } from '../../core/errors.js';

const under = (path: string, prefix: string): boolean => prefix === '' || path === prefix || path.startsWith(`${prefix}/`);

export function assertStateDirOutsideWorkspace(home: string, repoRoot: string, productRoots: readonly string[], exclude: readonly string[]): void {
  let realHome: string;
  let realRoot: string;
  try {
    realHome = realpathSync(home);
    realRoot = realpathSync(repoRoot);
  } catch {
    return fail('workspace_root_invalid');
  }
  const rel = relative(realRoot, realHome);
  if (rel === '') fail('state_dir_in_workspace');
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return; // outside the repository
  const path = rel.split(sep).join('/');
  if (exclude.some((x) => under(path, x))) return;
  const roots = productRoots.map((r) => (r === '.' ? '' : r));
  if (roots.some((r) => under(path, r) || under(r, path))) fail('state_dir_in_workspace');
}
