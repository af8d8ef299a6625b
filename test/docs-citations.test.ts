// Every `docs/<page>.md#anchor` a comment, help text, test or doc cites must name a page and heading that
// exist, and no citation may point outside the repository (SPEC sections, research notes, issue numbers,
// bare section signs of documents that do not ship, the review-pass source's sections).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SCANNED = ['src', 'runner', 'attestors/src', 'scripts', 'bench', 'test', 'docs', 'README.md'];
const TEXT = /\.(ts|mts|cts|mjs|cjs|js|md|ya?ml|json|c|h|sh|txt)$/;
// The explicit exceptions. This file spells the forbidden patterns in order to find them; two tests use
// `docs/….md` as made-up file paths inside fixture repositories, not as references.
const SELF = 'test/docs-citations.test.ts';
const FIXTURE_PATHS: Readonly<Record<string, readonly string[]>> = {
  'test/contract-scope-diff.test.ts': ['docs/export.md'],
  'test/workspace-manifest.test.ts': ['docs/c.md'],
};

/** GitHub's heading anchor: lowercase, punctuation dropped (letters, digits, `_`, `-`, spaces kept),
 * spaces → `-`; a repeated heading gets `-1`, `-2`, … */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const f = /^\s*(```|~~~)/.exec(line);
    if (f) {
      fence = fence === null ? f[1]! : fence === f[1] ? null : fence;
      continue;
    }
    if (fence !== null) continue;
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const text = h[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

function walk(rel: string, acc: string[]): string[] {
  const abs = join(ROOT, rel);
  const st = statSync(abs, { throwIfNoEntry: false });
  if (!st) return acc;
  if (st.isFile()) {
    if (TEXT.test(rel)) acc.push(rel);
    return acc;
  }
  for (const name of readdirSync(abs).sort()) {
    if (name === 'node_modules' || name === 'dist' || name === 'vectors') continue;
    walk(join(rel, name), acc);
  }
  return acc;
}

const anchorCache = new Map<string, Set<string> | null>();
function anchorsOfPage(page: string): Set<string> | null {
  if (!anchorCache.has(page)) {
    const st = statSync(join(ROOT, page), { throwIfNoEntry: false });
    anchorCache.set(page, st?.isFile() ? anchorsOf(readFileSync(join(ROOT, page), 'utf8')) : null);
  }
  return anchorCache.get(page)!;
}

const titleCache = new Map<string, readonly string[] | null>();
/** What a quoted citation may name: a page's headings and its bold paragraph leads, backticks dropped, lowercase. */
export function titlesOf(markdown: string): string[] {
  const norm = (t: string): string => t.replace(/`/g, '').trim().toLowerCase();
  const heads = markdown.split('\n').flatMap((l) => /^#{1,6}\s+(.*)$/.exec(l)?.slice(1) ?? []);
  const bold = [...markdown.matchAll(/\*\*([^*\n]+)\*\*/g)].map((m) => m[1]!);
  return [...heads, ...bold].map(norm);
}
function titlesOfPage(page: string): readonly string[] | null {
  if (!titleCache.has(page)) {
    const st = statSync(join(ROOT, page), { throwIfNoEntry: false });
    titleCache.set(page, st?.isFile() ? titlesOf(readFileSync(join(ROOT, page), 'utf8')) : null);
  }
  return titleCache.get(page)!;
}

const OLD_CITATIONS: readonly [string, RegExp][] = [
  ['SPEC section', /SPEC(?:'s)?\s§/g],
  ['SPEC.md', /SPEC\.md/g],
  ['research note', /research\/[\w-]+/g],
  ['issue number', /\b[Ii]ssue #?\d+(?= items? \d|[)\];:,]| "| bench)/g],
];

/** Problems of one file's text: broken docs references and old citations, as `file:line: …`. */
export function problemsIn(
  file: string,
  text: string,
  pageAnchors: (page: string) => Set<string> | null = anchorsOfPage,
  pageTitles: (page: string) => readonly string[] | null = titlesOfPage,
): string[] {
  const problems: string[] = [];
  const lineOf = (index: number): number => text.slice(0, index).split('\n').length;
  const check = (page: string, anchor: string | undefined, index: number, how: string): void => {
    if (FIXTURE_PATHS[file]?.includes(page)) return;
    const anchors = pageAnchors(page);
    if (anchors === null) problems.push(`${file}:${lineOf(index)}: ${how} names a missing page ${page}`);
    else if (anchor !== undefined && !anchors.has(anchor)) problems.push(`${file}:${lineOf(index)}: ${how} names a missing heading ${page}#${anchor}`);
  };
  // 1. Plain references from anywhere: docs/<page>.md[#anchor].
  for (const m of text.matchAll(/(?<![\w./-])docs\/([\w./-]+?\.md)(?:#([^\s)`'",;:>\]/]*[^\s)`'",;:.>\]/]))?/g)) {
    check(`docs/${m[1]}`, m[2], m.index, 'reference');
  }
  // 2. Markdown links of docs pages and the README, relative to the file.
  if (file.endsWith('.md')) {
    for (const m of text.matchAll(/\]\(([^)\s]*)\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
      const [path, anchor] = target.split('#', 2) as [string, string | undefined];
      if (path !== '' && !path.endsWith('.md')) continue; // a directory or another file type
      const page = path === '' ? file : relative(ROOT, join(ROOT, dirname(file), path));
      if (page.startsWith('..')) problems.push(`${file}:${lineOf(m.index)}: link leaves the repository: ${target}`);
      else check(page, anchor, m.index, 'link');
    }
  }
  // The brief does not ship: no page, comment, help text or test may send a reader to it.
  for (const m of text.matchAll(/\bSPEC\b/g)) problems.push(`${file}:${lineOf(m.index)}: mentions the SPEC, which does not ship`);
  // 1b. Quoted citations, docs/<page>.md "Some heading": the quote must be (part of) a heading or a
  // bold paragraph lead of that page, so a reader can find it.
  for (const m of text.matchAll(/(?<![\w./-])(docs\/[\w./-]+?\.md) \(?"([^"\n]{2,120})"/g)) {
    const page = m[1]!;
    if (FIXTURE_PATHS[file]?.includes(page)) continue;
    const titles = pageTitles(page);
    const quoted = m[2]!.replace(/`/g, '').trim().toLowerCase();
    if (titles !== null && !titles.some((t) => t.includes(quoted))) problems.push(`${file}:${lineOf(m.index)}: quoted citation names no heading of ${page}: "${m[2]}"`);
  }
  // 3. Citations of things that do not ship.
  for (const [what, re] of OLD_CITATIONS) {
    for (const m of text.matchAll(re)) problems.push(`${file}:${lineOf(m.index)}: ${what} citation "${m[0]}"`);
  }
  // 4. Section signs. A `§` is a citation a reader must be able to follow: allowed only as part of
  // "RFC NNNN §…", as "docs/<page>.md §N" or, inside a docs page, a bare "§N" where that page has a
  // heading numbered N, and as the text of a markdown link (whose target rule 2 checks). Everything
  // else — the brief's old section numbers with "SPEC" stripped, the review-pass source's sections —
  // points at a document that does not ship.
  for (const m of text.matchAll(/review-pass-v3,?\s+§/g)) {
    problems.push(`${file}:${lineOf(m.index)}: review-pass-v3 section citation "${m[0]}"`);
  }
  for (const m of text.matchAll(/§/g)) {
    const i = m.index;
    const before = text.slice(Math.max(0, i - 200), i);
    const after = text.slice(i + 1, i + 40);
    const num = /^[\w.]*\w/.exec(after)?.[0] ?? '';
    if (/review-pass-v3,?\s+$|SPEC(?:'s)?\s$/.test(before)) continue; // reported above
    if (/\bRFC \d+ $/.test(before)) continue;
    if (file.endsWith('.md') && /\[[^\]\n]*$/.test(before) && /^[^\]\n]*\]\(/.test(after)) continue;
    const page = /(?<![\w./-])(docs\/[\w./-]+?\.md)`? $/.exec(before)?.[1] ?? (file.startsWith('docs/') && file.endsWith('.md') ? file : undefined);
    if (page !== undefined && num !== '') {
      const anchors = pageAnchors(page);
      const prefix = `${num.replace(/\./g, '')}-`;
      if (anchors !== null && [...anchors].some((a) => a.startsWith(prefix))) continue;
    }
    problems.push(`${file}:${lineOf(i)}: section sign citation "§${num}" names no docs heading`);
  }
  return problems;
}

describe('docs citations', () => {
  it('anchors follow GitHub: lowercase, punctuation dropped, spaces to hyphens, repeats numbered', () => {
    const a = anchorsOf('# The trusted runner: `governed review-run`\n## 6. Vetoes\n## Receipt verification — `governed verify`\n```\n# not a heading\n```\n## Tests\n## Tests\n');
    expect([...a]).toEqual(['the-trusted-runner-governed-review-run', '6-vetoes', 'receipt-verification--governed-verify', 'tests', 'tests-1']);
  });

  it('the checker flags a missing page, a missing heading, a link out of the repository and each old citation (control)', () => {
    const pages = (p: string): Set<string> | null => (p === 'docs/runner.md' ? new Set(['reaping']) : null);
    const code = problemsIn('src/x.ts', '// docs/runner.md#reaping ok; docs/runner.md#no-such; docs/nope.md\n// SPEC §9, research/perf.md, issue 3 item 8\n', pages);
    expect(code).toEqual([
      'src/x.ts:1: reference names a missing heading docs/runner.md#no-such',
      'src/x.ts:1: reference names a missing page docs/nope.md',
      'src/x.ts:2: mentions the SPEC, which does not ship',
      'src/x.ts:2: SPEC section citation "SPEC §"',
      'src/x.ts:2: research note citation "research/perf"',
      'src/x.ts:2: issue number citation "issue 3"',
    ]);
    const doc = problemsIn('docs/a.md', 'See [r](runner.md#reaping), [x](runner.md#gone) and [y](#here).\n', pages);
    expect(doc).toEqual(['docs/a.md:1: link names a missing heading docs/runner.md#gone', 'docs/a.md:1: link names a missing page docs/a.md']);
    const readme = problemsIn('README.md', 'The contract is [the brief](../shared/SPEC.md).\n', pages);
    expect(readme).toEqual([
      'README.md:1: link leaves the repository: ../shared/SPEC.md',
      'README.md:1: mentions the SPEC, which does not ship',
      'README.md:1: SPEC.md citation "SPEC.md"',
    ]);
    // Naming the brief without a section is still a pointer out of the repository, in code too.
    expect(problemsIn('src/z.ts', "// stricter than the SPEC's wording\n", pages)).toEqual(['src/z.ts:1: mentions the SPEC, which does not ship']);
    // The verb is not a citation; neither is a lowercase word.
    expect(problemsIn('src/z.ts', '// a spec example; specExample()\n', pages)).toEqual([]);
    expect(problemsIn('src/y.ts', '// we issue 3 challenges and then issue 12 more\n', pages)).toEqual([]);
  });

  it('the checker flags a quoted citation that names no heading or bold lead of its page, and lets a real one through (control)', () => {
    const titles = (p: string): readonly string[] | null => (p === 'docs/runner.md' ? titlesOf('# Runner\n## The run, step by step\n**Tool logs (`--tool-log DIR`).** Each…\n') : null);
    const pages = (p: string): Set<string> | null => (p === 'docs/runner.md' ? new Set(['runner']) : null);
    expect(problemsIn('src/ok.ts', '// docs/runner.md "The run, step by step"; docs/runner.md "Tool logs"\n', pages, titles)).toEqual([]);
    expect(problemsIn('src/x.ts', '// docs/runner.md "Exit codes"\n', pages, titles)).toEqual(['src/x.ts:1: quoted citation names no heading of docs/runner.md: "Exit codes"']);
  });

  it('the checker flags a bare § and a review-pass-v3 § citation, and lets RFC sections and numbered docs headings through (control)', () => {
    const pages = (p: string): Set<string> | null =>
      p === 'docs/gate.md' ? new Set(['5a-the-tables', '71-the-cold-path', 'tests']) : p === 'docs/a.md' ? new Set(['2-rounds']) : null;
    // Positive controls: each of these is followable and must pass.
    const fine = problemsIn('src/ok.ts', '// RFC 8785 §3.2.2.2; RFC 8032 §5.1.7 step 1; docs/gate.md §5a; `docs/gate.md` §7.1\n', pages);
    expect(fine).toEqual([]);
    expect(problemsIn('docs/a.md', 'See §2, [gate §5a](gate.md#5a-the-tables) and [§2](#2-rounds).\n', pages)).toEqual([]);
    // The attacks: the brief's old numbers with "SPEC" stripped, a heading a page does not have, the
    // review-pass source's sections, a bare § in a page without numbered headings.
    const code = problemsIn('src/x.ts', '// the §6.1 span rule (§6.4); docs/gate.md §9\n// review-pass-v3 §4.2 rule 2; research §3 rule 5\n', pages);
    expect(code).toEqual([
      'src/x.ts:2: review-pass-v3 section citation "review-pass-v3 §"',
      'src/x.ts:1: section sign citation "§6.1" names no docs heading',
      'src/x.ts:1: section sign citation "§6.4" names no docs heading',
      'src/x.ts:1: section sign citation "§9" names no docs heading',
      'src/x.ts:2: section sign citation "§3" names no docs heading',
    ]);
    expect(problemsIn('docs/b.md', 'Derived from the seed (seed §10.2); see §3.\n', pages)).toEqual([
      'docs/b.md:1: section sign citation "§10.2" names no docs heading',
      'docs/b.md:1: section sign citation "§3" names no docs heading',
    ]);
  });

  it('every docs reference in the tree resolves, and nothing cites SPEC sections, research notes, issues or bare §', () => {
    const files = SCANNED.flatMap((rel) => walk(rel, [])).filter((f) => f !== SELF);
    expect(files.length).toBeGreaterThan(300);
    const problems = files.flatMap((f) => problemsIn(f, readFileSync(join(ROOT, f), 'utf8')));
    expect(problems).toEqual([]);
  });
});
