// Build: the CLI bundled with esbuild (code-split so each command loads its heavy modules lazily,
// docs/gate.md#6-the-cold-gate-path), and every pinned program (attestors, reviewers) as ONE self-contained
// file that imports nothing beyond Node built-ins at run time (docs/formats.md#attestors), so its SHA-256 covers
// every line it runs. Output is deterministic: same sources, same bytes, same pinned digests.
import { build } from 'esbuild';
import { buildPinned, pinnedPrograms } from './pinned-build.mjs';
import { rmSync, mkdirSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { basename, dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
rmSync('dist', { recursive: true, force: true });
mkdirSync('dist', { recursive: true });

// governed's version, from package.json (src/core/version.ts): signed into every VSA.
const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
const common = {
  define: { __GOVERNED_VERSION__: JSON.stringify(version) },
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  legalComments: 'none',
  logLevel: 'warning',
  sourcemap: false,
  minify: false,
  // A checkout may reach node_modules through a symlink (a git worktree): keep module paths as
  // written so bundles and their metafiles do not depend on where the checkout lives.
  preserveSymlinks: true,
};

// The CLI. better-sqlite3's JavaScript is bundled like any dependency (loading it through Node's
// module resolution cost every cold start several milliseconds, bench/gate); its native addon
// stays in node_modules and is loaded by path (src/store/open.ts `nativeBinding`), so the
// `bindings` package it would otherwise use stays external and unused.
const banner = {
  js: "import { createRequire as __governedCreateRequire } from 'node:module'; const require = __governedCreateRequire(import.meta.url);",
};
const external = ['bindings'];

// Cold-start commands, each its own bundle (`dist/<name>.mjs` with `chunks/<name>-*`): src/cli/main.ts
// routes them to their commander-free parsers BEFORE commander and the command groups load, and
// here each parser is an entry of its own, so its static closure is that file and the few chunks
// it shares with its own lazy paths instead of the ~18–40 chunks shared with every command (each
// one an ESM resolve, read, compile and link).
//  - `gate`: the deploy gate, started cold on every release (docs/decision.md#8-delivery-state-and-reason-codes, bench/gate);
//  - `review-run`: started once per review (bench/runner; the refused-at-once start-up measured
//    121 → 91 ms wall, 104 → 80 ms CPU, interleaved). When review-run-argv hands an argv back to
//    commander (help, an unknown option), nothing of that bundle's state is used by the main one.
const COLD = { gate: 'src/cli/commands/gate-argv.ts', 'review-run': 'src/cli/commands/review-run-argv.ts' };
const coldRoutes = {
  name: 'governed-cold-routes',
  setup(b) {
    for (const [name, source] of Object.entries(COLD)) {
      const filter = new RegExp(`^\\./commands/${basename(source, '.ts')}\\.js$`);
      b.onResolve({ filter }, (args) =>
        args.importer.endsWith(join('src', 'cli', 'main.ts')) ? { path: `./${name}.mjs`, external: true } : undefined,
      );
    }
  },
};

// The compiled-format generator (docs/architecture.md#compiled-formats), built on its own with
// src/core/format/compiled.ts replaced by a stub that names every format of definitions.ts: the
// generator must run even when the committed module lacks a format it is about to add
// (`node scripts/build.mjs --formats-generator` builds only it: `npm run formats:gen`).
await build({
  ...common,
  entryPoints: { 'gen-formats': 'scripts/gen-formats.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  external,
  banner,
  plugins: [
    {
      name: 'governed-compiled-stub',
      setup(b) {
        b.onLoad({ filter: /[\\/]src[\\/]core[\\/]format[\\/]compiled\.ts$/ }, () => {
          const names = [...readFileSync('src/core/format/definitions.ts', 'utf8').matchAll(/^ {2}([A-Z][A-Z0-9_]*): /gm)].map((m) => m[1]);
          const stub = "const form = { node: { t: 'never' }, accept: () => undefined };";
          return { contents: `${stub}\n${names.map((n) => `export const ${n} = form;`).join('\n')}\n`, loader: 'js' };
        });
      },
    },
  ],
});
if (process.argv.includes('--formats-generator')) process.exit(0);

await build({
  ...common,
  entryPoints: {
    governed: 'src/cli/main.ts',
    // The library entry (package.json "exports"): the pure verifiers, src/core/lib.ts.
    lib: 'src/core/lib.ts',
    'gen-errors-doc': 'scripts/gen-errors-doc.ts',
    'gen-schemas-doc': 'scripts/gen-schemas-doc.ts',
    'make-fixture-receipt': 'scripts/make-fixture-receipt.ts',
    // audit verify's receipt-check worker threads (src/flows/audit/receipt-pool.ts finds it beside the CLI).
    'audit-receipt-worker': 'src/flows/audit/receipt-worker.ts',
  },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  external,
  banner,
  plugins: [coldRoutes],
});

// review-run's yaml: src/core/strict-parse.ts evaluates yaml only when a YAML document is parsed,
// but bundled into the command's chunk its ~260 KB were still compiled on every start (bench/runner:
// review-run refused at once 74.1 → 71.0 ms CPU, interleaved, docs/architecture.md). So in that
// bundle the one `require('yaml')` of strict-parse.ts names a file of its own, dist/chunks/
// review-run-yaml.cjs: the same yaml package bundled by esbuild (deterministic, no other imports),
// resolved next to the chunk that requires it (the banner's `require` is relative to that chunk)
// and compiled only when a YAML pin or contract is actually read.
const YAML_SPLIT = { 'review-run': 'review-run-yaml.cjs' };
const yamlSplit = (file) => ({
  name: 'governed-yaml-split',
  setup(b) {
    b.onResolve({ filter: /^yaml$/ }, (args) =>
      args.kind === 'require-call' && args.importer.endsWith(join('src', 'core', 'strict-parse.ts')) ? { path: `./${file}`, external: true } : undefined,
    );
  },
});

for (const [name, source] of Object.entries(COLD)) {
  const yamlFile = YAML_SPLIT[name];
  const result = await build({
    ...common,
    entryPoints: { [name]: source },
    outdir: 'dist',
    outExtension: { '.js': '.mjs' },
    splitting: true,
    chunkNames: `chunks/${name}-[name]-[hash]`,
    external,
    banner,
    metafile: yamlFile !== undefined,
    plugins: yamlFile === undefined ? [] : [yamlSplit(yamlFile)],
  });
  if (yamlFile === undefined) continue;
  // The relative require resolves only from dist/chunks/: refuse a build where it landed elsewhere.
  const requiring = Object.entries(result.metafile.outputs)
    .filter(([, o]) => o.imports.some((i) => i.path === `./${yamlFile}`))
    .map(([out]) => out);
  if (requiring.length === 0 || requiring.some((out) => dirname(out) !== join('dist', 'chunks'))) {
    throw new Error(`build: ${name}'s require of ${yamlFile} must be in dist/chunks/ only (found in: ${requiring.join(', ') || 'none'})`);
  }
  await build({ ...common, format: 'cjs', entryPoints: ['yaml'], outfile: join('dist', 'chunks', yamlFile) });
}

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
for (const [entry, outfile] of pinnedPrograms()) await buildPinned(entry, outfile);
