// Does an evidence file reference an implementation file? (docs/reviewers.md#the-coverage-reviewer: "each evidence file
// actually references its directive's implementation (imports it or names it)"). The bundle shows
// the reviewer the bytes of every target, implementation and evidence file (docs/bundle.md#views
// `current_files`), and nothing else, so references are decided from those bytes alone:
//
// An IMPORT EDGE from file F to a visible file P exists when F contains
//   - a string literal starting with `./` or `../` (any quote) that resolves, relative to F's
//     directory, to P — directly or by the JS/TS resolution variants below;
//   - an import/export `from '…'`, `import '…'`, `import('…')`, `require('…')` specifier that is
//     not relative but resolves, taken as repository-relative (path aliases such as `src/x`), to P;
//   - a Python `import a.b` / `from a.b import …` (or `from .b import …`) whose dotted name is a
//     dotted suffix of P without `.py` (or of its package for `__init__.py`).
// JS/TS resolution variants of a specifier S: S itself, S + one of EXTENSIONS, S/index + one of
// EXTENSIONS, and the TypeScript ESM convention of writing `.js` for a `.ts` file (.js→.ts/.tsx,
// .mjs→.mts, .cjs→.cts, .jsx→.tsx).
// F NAMES P when F's text contains P's repository-relative path as a token (not part of a longer
// path segment).
//
// An evidence file references P when it names P, or P is reachable from it through import edges
// between visible files (a test that imports the CLI module which imports the implementation does
// exercise it). A file never references itself. This is a name check, not proof that the code is
// exercised; docs/reviewers.md says so.

import { COVERAGE_SPECIFIER_MAX } from '../../../../src/core/limits.js';

const EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.json'] as const;
const SWAPS: readonly (readonly [string, readonly string[]])[] = [
  ['.js', ['.ts', '.tsx']],
  ['.mjs', ['.mts']],
  ['.cjs', ['.cts']],
  ['.jsx', ['.tsx']],
];
const MAX_SPEC = COVERAGE_SPECIFIER_MAX;

export interface VisibleFile {
  readonly path: string;
  readonly text: string;
}

function dirOf(p: string): string {
  const i = p.lastIndexOf('/');
  return i < 0 ? '' : p.slice(0, i);
}

/** Normalise `base/rel` to a repository-relative path; null when it leaves the repository. */
export function resolveRelative(base: string, rel: string): string | null {
  const out: string[] = base === '' ? [] : base.split('/');
  for (const seg of rel.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length === 0) return null;
      out.pop();
    } else out.push(seg);
  }
  return out.length === 0 ? null : out.join('/');
}

/** The candidate files a resolved specifier may denote. */
export function variants(spec: string): string[] {
  const out = [spec];
  for (const ext of EXTENSIONS) out.push(spec + ext, `${spec}/index${ext}`);
  for (const [from, tos] of SWAPS) if (spec.endsWith(from)) for (const to of tos) out.push(spec.slice(0, -from.length) + to);
  return out;
}

const RELATIVE_LITERAL = /(['"`])(\.{1,2}\/[^'"`\n]{0,4096})\1/g;
const IMPORT_SPECIFIER = /(?:\bfrom|\bimport|\bimport\s*\(|\brequire\s*\()\s*(['"`])([^'"`\n]{1,4096})\1/g;
const PY_FROM = /^[ \t]*from[ \t]+(\.*)([A-Za-z_][\w.]*)?[ \t]+import\b/gm;
const PY_IMPORT = /^[ \t]*import[ \t]+([A-Za-z_][\w.]*(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*)*)/gm;

/** Dotted Python module names of a visible `.py` path: `a/b/c.py` → `a.b.c`; `a/b/__init__.py` → `a.b`. */
function pythonModule(p: string): string | null {
  if (!p.endsWith('.py')) return null;
  let m = p.slice(0, -3);
  if (m.endsWith('/__init__')) m = m.slice(0, -'/__init__'.length);
  else if (m === '__init__') return null;
  return m.split('/').join('.');
}

function isDottedSuffix(name: string, module: string): boolean {
  return module === name || module.endsWith(`.${name}`);
}

/** The visible paths that `file` has an import edge to (never itself). */
export function importEdges(file: VisibleFile, visible: ReadonlySet<string>, pyModules: ReadonlyMap<string, readonly string[]>): Set<string> {
  const out = new Set<string>();
  const add = (candidate: string | null): void => {
    if (candidate === null) return;
    for (const v of variants(candidate)) if (v !== file.path && visible.has(v)) out.add(v);
  };
  const base = dirOf(file.path);
  for (const m of file.text.matchAll(RELATIVE_LITERAL)) add(resolveRelative(base, m[2] as string));
  for (const m of file.text.matchAll(IMPORT_SPECIFIER)) {
    const spec = m[2] as string;
    if (spec.length > MAX_SPEC || spec.startsWith('.')) continue; // relative ones were handled above
    add(resolveRelative('', spec.replace(/^\/+/, '')));
  }
  const names: string[] = [];
  for (const m of file.text.matchAll(PY_FROM)) if (m[2] !== undefined) names.push(m[2]);
  for (const m of file.text.matchAll(PY_IMPORT)) names.push(...(m[1] as string).split(',').map((s) => s.trim()));
  for (const name of names) {
    for (const [module, paths] of pyModules) {
      if (!isDottedSuffix(name, module)) continue;
      for (const p of paths) if (p !== file.path) out.add(p);
    }
  }
  return out;
}

const PATH_CHAR = /[A-Za-z0-9_.-]/;
const TRAIL_CHAR = /[A-Za-z0-9_\-/]/;

/**
 * Whether a `/` right before a match at `slash + 1` still leaves the match a whole path token: only
 * when the segment before that `/` is empty (a rooted `/bin/tool.mjs`, `${ROOT}/bin/tool.mjs`), `.`
 * or `..` (a relative spelling `./bin/tool.mjs`, `../bin/tool.mjs`), or a `$VARIABLE`. Any other
 * segment makes it a LONGER path that merely ends with P (`vendor/bin/tool.mjs` is another file):
 * naming that is not naming P, and counting it answered CLEAN on a real trace gap (docs/reviewers.md#reviewer-output
 * `trace_gap`; docs/reviewers.md).
 */
function slashKeepsToken(text: string, slash: number): boolean {
  let start = slash;
  while (start > 0 && PATH_CHAR.test(text[start - 1] as string)) start -= 1;
  const segment = text.slice(start, slash);
  // `$ROOT/bin/tool.mjs` is a variable standing for a root, like `${ROOT}/bin/tool.mjs` (whose `}`
  // already ends the scan above).
  return segment === '' || segment === '.' || segment === '..' || text[start - 1] === '$';
}

/** True when `text` contains `p` as a whole path token (preceded by no path character, or by a `/`
 * that `slashKeepsToken` accepts). */
export function namesPath(text: string, p: string): boolean {
  let from = 0;
  for (;;) {
    const i = text.indexOf(p, from);
    if (i < 0) return false;
    const before = i === 0 ? '' : (text[i - 1] as string);
    const after = text[i + p.length] ?? '';
    const next = text[i + p.length + 1] ?? '';
    const dotContinues = after === '.' && PATH_CHAR.test(next) && next !== '.';
    const startsToken = before === '/' ? slashKeepsToken(text, i - 1) : !PATH_CHAR.test(before);
    if (startsToken && !TRAIL_CHAR.test(after) && !dotContinues) return true;
    from = i + 1;
  }
}

/** The reference graph over the visible files: path → the visible paths it has import edges to. */
export class ReferenceGraph {
  private readonly edges = new Map<string, Set<string>>();
  private readonly texts = new Map<string, string>();

  constructor(files: readonly VisibleFile[]) {
    const visible = new Set(files.map((f) => f.path));
    const pyModules = new Map<string, string[]>();
    for (const p of visible) {
      const m = pythonModule(p);
      if (m !== null) pyModules.set(m, [...(pyModules.get(m) ?? []), p]);
    }
    for (const f of files) {
      this.texts.set(f.path, f.text);
      this.edges.set(f.path, importEdges(f, visible, pyModules));
    }
  }

  /**
   * True when one of `from` (present evidence files) names or reaches through import edges one of
   * `to` (implementation files). Paths in both sets are ignored: a file is not evidence for itself.
   */
  references(from: readonly string[], to: readonly string[]): boolean {
    const own = new Set(from);
    const goal = new Set(to.filter((p) => !own.has(p)));
    if (goal.size === 0) return false;
    for (const f of from) {
      const text = this.texts.get(f);
      if (text === undefined) continue;
      for (const g of goal) if (namesPath(text, g)) return true;
    }
    const seen = new Set<string>(from.filter((f) => this.texts.has(f)));
    const queue = [...seen];
    while (queue.length > 0) {
      const cur = queue.shift() as string;
      for (const next of this.edges.get(cur) ?? []) {
        if (goal.has(next)) return true;
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    return false;
  }

  /** True when one of `from` contains `token` as a whole ID (used for criterion IDs). */
  namesId(from: readonly string[], token: string): boolean {
    return from.some((f) => {
      const text = this.texts.get(f);
      return text !== undefined && hasIdToken(text, token);
    });
  }
}

const ID_CHAR = /[A-Za-z0-9_-]/;

/** `AC-1` in `test('AC-1: …')` but not in `AC-10` or `XAC-1`; a trailing `.` ends the token only when no ID character follows it. */
export function hasIdToken(text: string, token: string): boolean {
  let from = 0;
  for (;;) {
    const i = text.indexOf(token, from);
    if (i < 0) return false;
    const before = i === 0 ? '' : (text[i - 1] as string);
    const after = text[i + token.length] ?? '';
    const next = text[i + token.length + 1] ?? '';
    const continues = ID_CHAR.test(after) || (after === '.' && ID_CHAR.test(next));
    if (!ID_CHAR.test(before) && before !== '.' && !continues) return true;
    from = i + 1;
  }
}
