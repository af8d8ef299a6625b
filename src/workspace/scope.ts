// Which repository-relative paths belong to the reviewed workspace (docs/contract.md#workspace-digest): under one of the
// product roots and not under an excluded prefix (the state directory). Paths are validated as
// UTF-8 before anything else touches them; manifest order is by UTF-8 bytes, not UTF-16 units.
import { fail } from '../core/errors.js';
import { utf8OrNull } from '../core/utf8.js';

export interface ScopeOptions {
  /** Repository-relative directories (or files) under review; `.` means the whole tree. */
  readonly productRoots: readonly string[];
  /** Repository-relative prefixes left out (the state directory). */
  readonly exclude: readonly string[];
}

export interface Scope {
  readonly roots: readonly string[]; // '' = whole tree
  readonly exclude: readonly string[];
}


/** Decode a raw path from git or readdir; a non-UTF-8 path is refused (docs/contract.md#workspace-digest). */
export function decodePath(raw: Uint8Array): string {
  return utf8OrNull(raw) ?? fail('workspace_path_not_utf8');
}

/**
 * A normalized repository-relative path: no leading or trailing slash, no empty, `.` or `..`
 * component, no NUL, no backslash-free assumptions beyond POSIX. Anything else is refused rather
 * than "fixed", so two callers can never name one file two ways.
 */
export function isNormalizedRelPath(p: string): boolean {
  if (p.length === 0 || p.includes('\0')) return false;
  return p.split('/').every((c) => c !== '' && c !== '.' && c !== '..');
}

export function makeScope(options: ScopeOptions): Scope {
  if (options.productRoots.length === 0) fail('workspace_scope_invalid', ['productRoots']);
  const roots = options.productRoots.map((r, i) => {
    if (r === '.') return '';
    if (!isNormalizedRelPath(r)) fail('workspace_scope_invalid', [`productRoots[${i}]`]);
    return r;
  });
  const exclude = options.exclude.map((x, i) => {
    if (!isNormalizedRelPath(x)) fail('workspace_scope_invalid', [`exclude[${i}]`]);
    return x;
  });
  return { roots, exclude };
}

/** `path` equals `prefix` or lies below it (component boundary, so `src` does not cover `srcx`). */
export function isUnder(path: string, prefix: string): boolean {
  if (prefix === '' || path === prefix) return true;
  // `${prefix}/` as a prefix, without building that string for every path of a large listing.
  return path.length > prefix.length && path.charCodeAt(prefix.length) === 0x2f && path.startsWith(prefix);
}

export function inScope(scope: Scope, path: string): boolean {
  return scope.roots.some((r) => isUnder(path, r)) && !scope.exclude.some((x) => isUnder(path, x));
}

/**
 * Whether a directory walk must descend into `dir`: it may contain an in-scope path (it is under a
 * root, or a root is under it) and is not itself excluded.
 */
export function mayContainScoped(scope: Scope, dir: string): boolean {
  if (scope.exclude.some((x) => isUnder(dir, x))) return false;
  return scope.roots.some((r) => isUnder(dir, r) || isUnder(r, dir));
}

/** Order of manifest entries: by UTF-8 bytes of the path (docs/contract.md#workspace-digest). */
export function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
