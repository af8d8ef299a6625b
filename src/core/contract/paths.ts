// Path syntax of the contract (docs/contract.md#validation-rules "Every path names a file ..., repository-relative, inside
// the product roots, not through a symlink"). This pure part checks syntax only: one spelling per
// file, so two paths that name the same file are the same string and a path cannot climb out of the
// repository. Whether the path is a regular file and not reached through a symlink needs the
// filesystem and is checked by the workspace layer.
import { fail } from '../errors.js';

// C0 controls and DEL: a path is shown to people and passed to git; controls have no business in it.
// eslint-disable-next-line no-control-regex
const CONTROL_RE = /[\u0000-\u001f\u007f]/;

/**
 * True when `path` is normalized and repository-relative: non-empty, no leading `/`, no backslash,
 * no empty, `.` or `..` segment (so no trailing or doubled slash), no control character.
 */
export function isNormalizedRelativePath(path: string): boolean {
  if (path.length === 0 || path.startsWith('/') || path.includes('\\') || CONTROL_RE.test(path)) return false;
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

/**
 * True when `path` names something inside git's own metadata: a segment is `.git` in any letter
 * case (git itself refuses such a tree entry case-insensitively). The workspace never lists these
 * (the repository's `.git` is skipped, a nested one is a refused submodule), so no contract item
 * may name one: refused when a contract is bound (`assertContractPaths`) and again when a
 * challenge reads the file (src/flows/challenge/evidence-files.ts).
 */
export function isGitMetadataPath(path: string): boolean {
  return path.split('/').some((segment) => segment.toLowerCase() === '.git');
}

/** Product roots (policy `product_roots`): `.` (the whole repository) or a normalized directory path. */
export function assertProductRoots(roots: readonly string[]): void {
  if (roots.length === 0) fail('contract_product_root_invalid', ['product_roots']);
  roots.forEach((root, i) => {
    if (root !== '.' && !isNormalizedRelativePath(root)) fail('contract_product_root_invalid', [`product_roots[${i}]`]);
  });
}

/** A root names a directory, so a path is inside it only strictly below it. */
export function isInsideRoots(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => root === '.' || path.startsWith(`${root}/`));
}

/**
 * Check one path list of the contract. Errors carry the field path (`$.implementations[0].paths[1]`),
 * never the path itself: a path can be as revealing as source text.
 */
export function assertContractPaths(paths: readonly string[], where: string, roots: readonly string[]): void {
  const seen = new Set<string>();
  paths.forEach((path, i) => {
    const at = `${where}[${i}]`;
    if (!isNormalizedRelativePath(path)) fail('contract_path_invalid', [at]);
    if (isGitMetadataPath(path)) fail('contract_path_git_metadata', [at]);
    if (seen.has(path)) fail('contract_path_duplicate', [at]);
    seen.add(path);
    if (!isInsideRoots(path, roots)) fail('contract_path_outside_roots', [at]);
  });
}
