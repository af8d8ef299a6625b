// The gate's own bundle as scripts/build.mjs builds dist/gate.mjs (the gate entry alone, split only
// for its lazy paths), as an esbuild metafile, and the static-import closure of its outputs: what a
// cold `governed gate` loads. Shared by test/gate-cold-imports.test.ts and test/gate-export.test.ts.
import { build, type Metafile } from 'esbuild';
import { REPO_ROOT } from './cli.js';
import { makeTempDir } from './temp.js';

export const GATE_ENTRY = 'src/cli/commands/gate-argv.ts';

export async function gateBundleMetafile(): Promise<Metafile> {
  const r = await build({
    absWorkingDir: REPO_ROOT,
    preserveSymlinks: true, // node_modules may be a symlink (a worktree): keep paths as written
    entryPoints: { gate: GATE_ENTRY },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    splitting: true,
    chunkNames: 'chunks/gate-[name]-[hash]',
    outdir: makeTempDir('governed-gate-bundle-'),
    outExtension: { '.js': '.mjs' },
    external: ['bindings'],
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  return r.metafile;
}

/** The output files' own static imports (not dynamic, not external). */
export function staticImports(meta: Metafile, file: string): string[] {
  return (meta.outputs[file]?.imports ?? []).filter((i) => i.kind === 'import-statement' && !i.external).map((i) => i.path);
}

/** Every output file reachable from `roots` through static imports. */
export function staticClosure(meta: Metafile, roots: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const stack = [...roots];
  while (stack.length > 0) {
    const f = stack.pop() as string;
    if (seen.has(f)) continue;
    seen.add(f);
    stack.push(...staticImports(meta, f));
  }
  return seen;
}

/** The output file of the gate entry. */
export function gateEntryOutput(meta: Metafile): string {
  return Object.keys(meta.outputs).find((f) => meta.outputs[f]?.entryPoint === GATE_ENTRY) as string;
}
