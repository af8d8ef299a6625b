// governed's opaque id formats (UNIT-, LSE-, CHL-, RUN-, EXE-, REC-, ARQ-), the digest, git object id and name formats
// and the contract's item ids are defined once, in src/core/ids.ts: a
// schema, parser or check that spells one of them as its own regex literal is a second definition that can drift.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './helpers/cli.js';
import * as ids from '../src/core/ids.js';

const ID_LITERAL = /\/\^\[A-Za-z0-9\]\[A-Za-z0-9\._:@-\]\{0,127\}\$\/|\/\^\[0-9a-f\]\{40\}\$\|\^\[0-9a-f\]\{64\}\$\/|\/\^(?:UNIT|LSE|CHL|RUN|EXE|REC|ARQ)-\[0-9a-f\]\{\d+\}\$\/|\/\^(?:sha256:)?\[0-9a-f\]\{64\}\$\/|\/\^\(\?:\[0-9a-f\]\{40\}\|\[0-9a-f\]\{64\}\)\$\/|\/\^\[a-z\]\[a-z0-9_-\]\{0,31\}\$\/|\/\^\[A-Z\]\[A-Z0-9\]\{1,7\}-\[A-Za-z0-9._-\]\{1,(?:24|64)\}[$>]/g;
const HOME = join('src', 'core', 'ids.ts');
/** Generated from the one definitions (docs/architecture.md#compiled-formats), staleness-tested by test/format-compiled.test.ts: it repeats their patterns as data, not as a second spelling. */
const COMPILED = join('src', 'core', 'format', 'compiled.ts');

function sourceFiles(rel: string, acc: string[] = []): string[] {
  for (const name of readdirSync(join(REPO_ROOT, rel)).sort()) {
    const child = join(rel, name);
    if (statSync(join(REPO_ROOT, child)).isDirectory()) sourceFiles(child, acc);
    else if (/\.(?:ts|mts)$/.test(name)) acc.push(child);
  }
  return acc;
}

describe('one definition of each id format', () => {
  it('src/core/ids.ts holds every prefix once', () => {
    expect(Object.keys(ids).sort()).toEqual([
      'AUTHORITY_RECORD_ID_RE',
      'BASE64_CHARS_RE',
      'BASE64_RE',
      'BOOT_ID_RE',
      'CHALLENGE_ID_RE',
      'CONTRACT_ID_RE',
      'CONTRACT_RELATION_RE',
      'DIGEST_RE',
      'ERROR_CODE_RE',
      'EXECUTION_ID_RE',
      'GIT_OID_RE',
      'HASH32_BASE64_RE',
      'HEX64_RE',
      'LEASE_ID_RE',
      'NAME_RE',
      'PID_TEXT_RE',
      'POSITIVE_DECIMAL_RE',
      'PROTOCOL_ITEM_ID_RE',
      'RECORD_ID_RE',
      'REQUEST_ID_RE',
      'RUN_ID_RE',
      'SYSTEM_NAME_RE',
      'UNIT_ID_RE',
      'WRITER_SESSION_RE',
    ]);
    expect(ids.UNIT_ID_RE.test(`UNIT-${'a'.repeat(32)}`)).toBe(true);
    expect(ids.RECORD_ID_RE.test(`REC-${'a'.repeat(24)}`)).toBe(true);
    expect(ids.RECORD_ID_RE.test(`REC-${'a'.repeat(32)}`)).toBe(false);
  });

  it('the scan finds an id regex spelled outside src/core/ids.ts (control)', () => {
    const planted = [
      'const u = str({ re: /^UNIT-[0-9a-f]{32}$/ }); const r = /^RUN-[0-9a-f]{32}$/;',
      'const k = /^[0-9a-f]{64}$/; const d = /^sha256:[0-9a-f]{64}$/;',
      'const o = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/; const n = /^[a-z][a-z0-9_-]{0,31}$/;',
      'const c = /^[A-Z][A-Z0-9]{1,7}-[A-Za-z0-9._-]{1,24}$/; const a = /^[A-Z][A-Z0-9]{1,7}-[A-Za-z0-9._-]{1,64}$/;',
      'const rel = /^[A-Z][A-Z0-9]{1,7}-[A-Za-z0-9._-]{1,24}>[A-Z][A-Z0-9]{1,7}-[A-Za-z0-9._-]{1,24}$/;',
      'const w = str({ re: /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/ }); const g = /^[0-9a-f]{40}$|^[0-9a-f]{64}$/;',
    ].join('\n');
    expect(planted.match(ID_LITERAL)).toHaveLength(11);
    // A format that only looks alike is not flagged: a capture group, another length.
    expect('/^sha256:([0-9a-f]{64})$/ /^[0-9a-f]{32}$/'.match(ID_LITERAL)).toBeNull();
  });

  it('no source file outside src/core/ids.ts spells an id format', () => {
    const files = ['src', 'runner', 'attestors/src'].flatMap((d) => sourceFiles(d)).filter((f) => f !== HOME && f !== COMPILED);
    expect(files.length).toBeGreaterThan(200);
    const found = files.flatMap((f) => (readFileSync(join(REPO_ROOT, f), 'utf8').match(ID_LITERAL) ?? []).map((m) => `${f}: ${m}`));
    expect(found).toEqual([]);
  });
});

// Any anchored regex literal of 16 characters or more spelled twice (in two files, or twice in one)
// is a format with two definitions: the interpreter-path rule was spelled five times (policy ×2, the
// challenge record, the receipt predicate, the sandbox bounds), the probe-entry rule twice, the
// PKCS#8 PEM rule in the attestor and in the authority key reader. Each now has one home
// (src/core/ids.ts, src/core/sandbox-bounds.ts, src/core/ed25519.ts, src/core/egress-schema.ts).
const ANCHORED_LITERAL = /\/\^(?:[^/\\\n[]|\\.|\[[^\]\n]*\])+\$\//g;
// A format that must be spelled twice would be listed here with its reason; none is.
const SPELLED_TWICE_ALLOWED: Readonly<Record<string, string>> = {};

function anchoredLiterals(text: string): string[] {
  return text.split('\n').flatMap((l) => (/^\s*(?:\/\/|\*)/.test(l) ? [] : (l.match(ANCHORED_LITERAL) ?? []).filter((x) => x.length >= 16)));
}

function spelledTwice(texts: ReadonlyMap<string, string>): string[] {
  const where = new Map<string, string[]>();
  for (const [f, t] of texts) for (const x of anchoredLiterals(t)) where.set(x, [...(where.get(x) ?? []), f]);
  return [...where].filter(([x, fs]) => fs.length > 1 && SPELLED_TWICE_ALLOWED[x] === undefined).map(([x, fs]) => `${x}: ${fs.join(', ')}`);
}

describe('one spelling of each anchored format', () => {
  it('the scan finds a format spelled in two files and twice in one (control)', () => {
    const texts = new Map([
      ['a.ts', "const i = str({ re: /^\\/usr\\/[A-Za-z0-9._/+-]{1,200}$/ });\nconst short = /^[a-z]{1,9}$/;"],
      ['b.ts', "if (!/^\\/usr\\/[A-Za-z0-9._/+-]{1,200}$/.test(p)) fail();\nconst short = /^[a-z]{1,9}$/;"],
      ['c.ts', "const x = /^[0-9a-f-]{36}$/; const y = /^[0-9a-f-]{36}$/;\n// a comment: /^[0-9a-f-]{36}$/"],
    ]);
    expect(spelledTwice(texts)).toEqual(['/^\\/usr\\/[A-Za-z0-9._/+-]{1,200}$/: a.ts, b.ts', '/^[0-9a-f-]{36}$/: c.ts, c.ts']);
  });

  it('no anchored regex literal of 16 or more characters is spelled twice in src, runner or attestors/src', () => {
    const files = ['src', 'runner', 'attestors/src'].flatMap((d) => sourceFiles(d)).filter((f) => f !== COMPILED);
    expect(spelledTwice(new Map(files.map((f) => [f, readFileSync(join(REPO_ROOT, f), 'utf8')])))).toEqual([]);
  });
});
