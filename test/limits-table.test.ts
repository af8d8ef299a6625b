// src/core/limits.ts stays a table esbuild can tree-shake: every limit is a plain literal with its own doc comment
// (an arithmetic value, even `4 * 1024`, is kept by esbuild in every pinned bundle that imports any limit, so a change
// to an unrelated limit would change the attestor's and the reviewer's sha256).
import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './helpers/cli.js';

/** Generated from the one definitions (docs/architecture.md#compiled-formats), staleness-tested by test/format-compiled.test.ts: its bounds are the limits table's values as data. */
const COMPILED = join('src', 'core', 'format', 'compiled.ts');

const source = readFileSync(join(REPO_ROOT, 'src', 'core', 'limits.ts'), 'utf8');
const lines = source.split('\n');

describe('src/core/limits.ts', () => {
  it('holds only exported constants whose values are literals, each with a doc comment', () => {
    const exports = lines.map((l, i) => ({ l, i })).filter(({ l }) => l.startsWith('export '));
    expect(exports.length).toBeGreaterThan(40);
    for (const { l, i } of exports) {
      expect(l, l).toMatch(/^export const [A-Z][A-Z0-9_]* = (?:[0-9][0-9_]*|'[^']*'|\{(?: [a-zA-Z]+: [0-9][0-9_]*,?)+ \} as const);(?: \/\/ .*)?$/);
      expect(lines[i - 1], `${l}: the line above must end its doc comment`).toMatch(/\*\/$/);
    }
    expect(source).not.toMatch(/^import /m);
  });
});

// A size or count limit defined outside the table (a `const …MAX…/…LIMIT… = <number>`) is a second home for
// it. The names below are not size or count limits of governed's inputs: each says what it is instead.
const NOT_LIMITS: Readonly<Record<string, string>> = {
  BPF_MAXINSNS: "the kernel's own bound on a seccomp program (runner/seccomp/bpf.ts), not governed's",
  LINE_DISTANCE_LIMIT: "a rule of the review protocol (finding matching), not a bound on input",
  DEFAULT_MAX_ROUNDS: 'a default of the review protocol (a stage profile), overridable by configuration',
  LIGHT_MAX_ROUNDS: 'a default of the review protocol (light mode)',
  DEFAULT_MAX_TOTAL_TIME_MS: 'a default of the review protocol (its time budget)',
  MAX_SNIPPET_LINES: 'a rule of the finding format the review protocol asks reviewers for',
  MAX_FIX_DIRECTION_LINES: 'a rule of the finding format the review protocol asks reviewers for',
  MAX_RETRIES: 'a rule of the simple review protocol (round one retries)',
  MAX_LANES: 'the lane labels A..Z of the weave protocol',
  MAX_LOG_TIME: 'the largest instant the log format can spell (9999-12-31T23:59:59Z), a format rule',
  MAX_DEFAULT_HELPERS: "a tuning default of the workspace hash pool's helper count",
  MAX_PRESTART: "a tuning default of the workspace loader's prestarted helpers",
  DEFAULT_MAX_RUNS: "a default of the daemon's `--max-runs` option",
};
const LIMIT_CONST = /^\s*(?:export )?const ((?=[A-Z])[A-Z0-9_]*(?:MAX|LIMIT|CAP)[A-Z0-9_]*) = [0-9][0-9_]*(?: [*+-] [0-9][0-9_]*)*;/;

function limitConstantsIn(text: string): string[] {
  return text.split('\n').flatMap((l) => {
    const m = LIMIT_CONST.exec(l);
    return m === null || NOT_LIMITS[m[1]!] !== undefined ? [] : [m[1]!];
  });
}

function sourceFiles(rel: string, acc: string[] = []): string[] {
  for (const name of readdirSync(join(REPO_ROOT, rel)).sort()) {
    const child = join(rel, name);
    if (statSync(join(REPO_ROOT, child)).isDirectory()) sourceFiles(child, acc);
    else if (/\.(?:ts|mts)$/.test(name)) acc.push(child);
  }
  return acc;
}

describe('one table of limits', () => {
  it('the scan finds a limit literal defined outside the table (control)', () => {
    expect(limitConstantsIn('const MAX_LINE = 64 * 1024;\nexport const RUNNERD_MAX_CONNECTIONS = 2048;\nconst MAX_LINE2 = OTHER;\nconst BPF_MAXINSNS = 4096;\n')).toEqual([
      'MAX_LINE',
      'RUNNERD_MAX_CONNECTIONS',
    ]);
  });

  it('no size or count limit is a number literal outside src/core/limits.ts', () => {
    const files = ['src', 'runner', 'attestors/src'].flatMap((d) => sourceFiles(d)).filter((f) => f !== join('src', 'core', 'limits.ts') && f !== COMPILED);
    expect(files.length).toBeGreaterThan(200);
    const found = files.flatMap((f) => limitConstantsIn(readFileSync(join(REPO_ROOT, f), 'utf8')).map((n) => `${f}: ${n}`));
    expect(found).toEqual([]);
  });
});

// A size or count bound spelled inline in a schema or a check (`str({ max: 4096 })`, `list(x, 0, 500)`,
// `z.maxLength(256)`, `p.length > 4096`, `st.size > 4096`) is a limit outside the table just as a named
// constant is: the contract's path bound and the bundle's once disagreed that way, and a dependency root
// the policy caps at 256 was taken up to 4096 by the sandbox host's protocol. Bounds under 100 (short
// grammar fields) and value ranges (`int(0, 255)`: exit codes, ports, uids, pids, HTTP statuses, policy
// settings) are format rules, not size limits, and are not scanned.
const INLINE_BOUNDS: readonly RegExp[] = [
  /\bmax: ([0-9][0-9_]*)/g,
  /\bmaxLength\(([0-9][0-9_]*)\)/g,
  /\.length (?:>|>=|<|<=) ([0-9][0-9_]*)\b/g,
  /\bsize (?:>|>=) ([0-9][0-9_]*)\b/g,
  /\blist\([^\n]*?, [0-9][0-9_]*, ([0-9][0-9_]*)\)/g,
  // The kernel's pid and uid bounds, wherever they are spelled (KERNEL_PID_MAX, KERNEL_UID_MAX, KERNEL_ID_FIELD_MAX).
  /\b(4_?194_?304|4_?294_?967_?29[45])\b/g,
];

function inlineBoundsIn(text: string): string[] {
  return text.split('\n').flatMap((l, i) => {
    if (/^\s*(?:\/\/|\*)/.test(l)) return [];
    return INLINE_BOUNDS.flatMap((re) => [...l.matchAll(re)].filter((m) => Number(m[1]!.replaceAll('_', '')) >= 100).map((m) => `${i + 1}: ${m[0]}`));
  });
}

describe('no inline size bound', () => {
  it('the scan finds inline bounds (control)', () => {
    const planted = [
      "const path = str({ min: 1, max: 4096 });",
      "  findings: list(FindingSchema, 0, 500),",
      "  .check(z.maxLength(256)),",
      "if (p.length > 4096) return false;",
      "if (st.size > 4096) refuse('key_invalid');",
      "  pid: int(1, 4194304), uid: int(1, 4_294_967_294),",
      "const short = str({ max: 64 }); const ok = str({ max: REPO_PATH_MAX_CHARS }); const code = int(0, 255);",
      "// a comment: str({ max: 4096 })",
    ].join('\n');
    expect(inlineBoundsIn(planted)).toEqual(['1: max: 4096', '2: list(FindingSchema, 0, 500)', '3: maxLength(256)', '4: .length > 4096', '5: size > 4096', '6: 4194304', '6: 4_294_967_294']);
  });

  it('no schema or check outside src/core/limits.ts spells a size bound of 100 or more as a literal', () => {
    const files = ['src', 'runner', 'attestors/src'].flatMap((d) => sourceFiles(d)).filter((f) => f !== join('src', 'core', 'limits.ts') && f !== COMPILED);
    const found = files.flatMap((f) => inlineBoundsIn(readFileSync(join(REPO_ROOT, f), 'utf8')).map((h) => `${f}:${h}`));
    expect(found).toEqual([]);
  });
});
