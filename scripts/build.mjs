// Build: the CLI bundled with esbuild (code-split so each command loads its heavy modules lazily,
// research/perf.md §3.5), and every pinned program (attestors, reviewers) as ONE self-contained
// file that imports nothing beyond Node built-ins at run time (SPEC §8.1), so its SHA-256 covers
// every line it runs. Output is deterministic: same sources, same bytes, same pinned digests.
import { build } from 'esbuild';
import { buildPinned } from './pinned-build.mjs';
import { rmSync, mkdirSync, existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
rmSync('dist', { recursive: true, force: true });
mkdirSync('dist', { recursive: true });

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  legalComments: 'none',
  logLevel: 'warning',
  sourcemap: false,
  minify: false,
};

// The CLI. better-sqlite3's JavaScript is bundled like any dependency (loading it through Node's
// module resolution cost every cold start several milliseconds, bench/gate); its native addon
// stays in node_modules and is loaded by path (src/store/open.ts `nativeBinding`), so the
// `bindings` package it would otherwise use stays external and unused.
const banner = {
  js: "import { createRequire as __governedCreateRequire } from 'node:module'; const require = __governedCreateRequire(import.meta.url);",
};
const external = ['bindings'];

// `governed gate` is the deploy gate, started cold on every release (SPEC §10.3, bench/gate): the
// entry routes it to the commander-free `src/cli/commands/gate-argv.ts` (src/cli/main.ts), and here
// that module is its own bundle, `dist/gate.mjs`: the gate's static closure is that file and the
// few chunks it shares with its own lazy paths (YAML, authority records, --attest), instead of
// ~18 chunks shared with every command (each costs the ESM loader a resolve, read, compile, link).
const gateEntry = {
  name: 'governed-gate-entry',
  setup(b) {
    b.onResolve({ filter: /^\.\/commands\/gate-argv\.js$/ }, (args) =>
      args.importer.endsWith(join('src', 'cli', 'main.ts')) ? { path: './gate.mjs', external: true } : undefined,
    );
  },
};

// `governed review-run` is started once per review (bench/runner): like the gate, main.ts routes it
// to its commander-free parser (src/cli/commands/review-run-argv.ts), and here that module is its own
// bundle, `dist/review-run.mjs` with its own chunks, instead of the ~40 chunks it shares with every
// command (each one an ESM resolve, read, compile and link: the refused-at-once start-up measured
// 121 → 91 ms wall, 104 → 80 ms CPU, interleaved). When review-run-argv hands an argv back to
// commander (help, an unknown option), nothing of that bundle's state is used by the main one.
const reviewRunEntry = {
  name: 'governed-review-run-entry',
  setup(b) {
    b.onResolve({ filter: /^\.\/commands\/review-run-argv\.js$/ }, (args) =>
      args.importer.endsWith(join('src', 'cli', 'main.ts')) ? { path: './review-run.mjs', external: true } : undefined,
    );
  },
};

await build({
  ...common,
  entryPoints: {
    governed: 'src/cli/main.ts',
    'gen-errors-doc': 'scripts/gen-errors-doc.ts',
    'make-fixture-receipt': 'scripts/make-fixture-receipt.ts',
  },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  external,
  banner,
  plugins: [gateEntry, reviewRunEntry],
});

await build({
  ...common,
  entryPoints: { gate: 'src/cli/commands/gate-argv.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  splitting: true,
  chunkNames: 'chunks/gate-[name]-[hash]',
  external,
  banner,
});

await build({
  ...common,
  entryPoints: { 'review-run': 'src/cli/commands/review-run-argv.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  splitting: true,
  chunkNames: 'chunks/review-run-[name]-[hash]',
  external,
  banner,
});

// Benchmarks: bench/<name>.ts → dist/bench/<name>.mjs, run by bench/run.mjs (npm run bench).
// bench/floors/*.ts are the native floors some benches measure beside the CLI (dist/bench/floors/).
const benches = existsSync('bench') ? readdirSync('bench').filter((f) => f.endsWith('.ts')) : [];
const floors = existsSync('bench/floors') ? readdirSync('bench/floors').filter((f) => f.endsWith('.ts')).map((f) => `floors/${f}`) : [];
if (benches.length > 0) {
  await build({
    ...common,
    entryPoints: benches.map((f) => `bench/${f}`),
    outdir: 'dist/bench',
    outExtension: { '.js': '.mjs' },
    external: ['better-sqlite3'],
    banner: {
      js: "import { createRequire as __governedCreateRequire } from 'node:module'; const require = __governedCreateRequire(import.meta.url);",
    },
  });
}
// The floors bundle better-sqlite3's JavaScript like the CLI does (its addon loaded by path), so a
// floor pays no module resolution the CLI does not pay.
if (floors.length > 0) {
  await build({
    ...common,
    entryPoints: floors.map((f) => `bench/${f}`),
    outdir: 'dist/bench/floors',
    outExtension: { '.js': '.mjs' },
    external,
    banner,
  });
}

// Pinned programs: one file each, no splitting, no externals but node: built-ins.
const pinned = [];
if (existsSync('attestors/src')) {
  for (const f of readdirSync('attestors/src')) {
    if (f.endsWith('.ts')) pinned.push([`attestors/src/${f}`, `attestors/${f.replace(/\.ts$/, '.mjs')}`]);
  }
}
if (existsSync('runner/reviewers/src')) {
  for (const f of readdirSync('runner/reviewers/src')) {
    if (f.endsWith('.ts')) pinned.push([`runner/reviewers/src/${f}`, `runner/reviewers/${f.replace(/\.ts$/, '.mjs')}`]);
  }
}
for (const [entry, outfile] of pinned) await buildPinned(entry, outfile);
