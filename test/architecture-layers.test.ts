// The dependency direction of the design (docs/architecture.md): cli → flows → store | workspace |
// runner → core | protocols, and core/protocols pure (no I/O, no SQLite, no processes, no clock).
// Read from every source file's import specifiers (static, re-exports and dynamic `import()`), so a
// sideways or upward import fails here instead of surviving review. Type-only imports are allowed
// anywhere (they vanish at build time).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.ts$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** Runtime import specifiers of a TypeScript source (type-only imports and exports skipped). */
export function runtimeImports(source: string): string[] {
  const specs: string[] = [];
  const text = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  for (const m of text.matchAll(/^\s*(?:import|export)\s+(type\s+)?[^;'"]*?from\s+'([^']+)'/gm)) {
    if (m[1] === undefined) specs.push(m[2] as string);
  }
  for (const m of text.matchAll(/^\s*import\s+'([^']+)'/gm)) specs.push(m[1] as string);
  for (const m of text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)) specs.push(m[1] as string);
  return specs;
}

type Layer = 'cli' | 'flows' | 'store' | 'workspace' | 'runner' | 'core' | 'protocols' | 'attestors' | 'other';

function layerOf(repoPath: string): Layer {
  if (repoPath.startsWith('src/cli/')) return 'cli';
  if (repoPath.startsWith('src/flows/')) return 'flows';
  if (repoPath.startsWith('src/store/')) return 'store';
  if (repoPath.startsWith('src/workspace/')) return 'workspace';
  if (repoPath.startsWith('src/core/')) return 'core';
  if (repoPath.startsWith('src/protocols/')) return 'protocols';
  if (repoPath.startsWith('runner/')) return 'runner';
  if (repoPath.startsWith('attestors/')) return 'attestors';
  return 'other';
}

/** Which layers each layer may import at run time (itself included). */
const MAY_IMPORT: Record<Exclude<Layer, 'other'>, readonly Layer[]> = {
  cli: ['cli', 'flows', 'store', 'workspace', 'runner', 'core', 'protocols'],
  flows: ['flows', 'store', 'workspace', 'runner', 'core', 'protocols'],
  store: ['store', 'core'],
  workspace: ['workspace', 'core'],
  runner: ['runner', 'core'],
  // Pinned programs are bundled from these sources into one self-contained file (docs/formats.md#attestors).
  attestors: ['attestors', 'core'],
  protocols: ['protocols', 'core'],
  core: ['core'],
};

/** Node built-ins and packages that do I/O, spawn processes or read the machine: never in a pure layer. */
const IMPURE = /^(node:)?(fs|fs\/promises|child_process|worker_threads|net|http|https|dgram|os|process|readline|tty|cluster|timers|timers\/promises)$|^(better-sqlite3|execa)$/;

const FILES = [...sourceFiles('src'), ...sourceFiles('runner'), ...sourceFiles('attestors/src')];

/** Reads of the clock, the environment or randomness: the caller passes them into a pure layer. */
const AMBIENT = /\bDate\.now\(|\bnew Date\(\s*\)|\bperformance\.now\(|\bMath\.random\(|\bprocess\.(env|hrtime|argv|cwd)\b|\brandom(Bytes|UUID|Int)\(/;

function violations(file: string): string[] {
  const from = layerOf(file);
  if (from === 'other') return [];
  const out: string[] = [];
  const source = readFileSync(join(ROOT, file), 'utf8');
  if (from === 'core' || from === 'protocols') {
    const ambient = AMBIENT.exec(source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, ''));
    if (ambient !== null) out.push(`${file} reads ${ambient[0]} (${from} is pure)`);
  }
  for (const spec of runtimeImports(source)) {
    if (spec.startsWith('.')) {
      const target = relative(ROOT, resolve(ROOT, dirname(file), spec)).replace(/\.js$/, '.ts');
      const to = layerOf(target);
      if (!MAY_IMPORT[from].includes(to)) out.push(`${file} → ${target} (${from} may not import ${to})`);
    } else if ((from === 'core' || from === 'protocols') && IMPURE.test(spec)) {
      out.push(`${file} → ${spec} (${from} is pure)`);
    }
  }
  return out;
}

describe('architecture: imports only go down the layers', () => {
  it('finds the source files (positive control for the walk)', () => {
    for (const layer of ['cli', 'flows', 'store', 'workspace', 'runner', 'core', 'protocols', 'attestors'] as const) {
      expect(FILES.some((f) => layerOf(f) === layer), layer).toBe(true);
    }
  });

  it('the parser sees static, re-export and dynamic imports but not type-only ones', () => {
    const src = [
      "import { a } from '../store/x.js';",
      "import type { B } from '../flows/y.js';",
      "export { c } from './z.js';",
      "export type { D } from '../cli/w.js';",
      "const m = await import('node:fs');",
      "// import { e } from '../flows/commented.js';",
      "import 'node:os';",
    ].join('\n');
    expect(runtimeImports(src).sort()).toEqual(['../store/x.js', './z.js', 'node:fs', 'node:os'].sort());
  });

  it('a sideways import would be caught (negative control on a synthetic path)', () => {
    const from = layerOf('runner/sandbox/run.ts');
    const to = layerOf(relative(ROOT, resolve(ROOT, 'runner/sandbox', '../../src/store/process-identity.js')).replace(/\.js$/, '.ts'));
    expect(MAY_IMPORT[from as Exclude<Layer, 'other'>].includes(to)).toBe(false);
  });

  it('the purity scan sees clock, environment and randomness reads (negative control)', () => {
    for (const bad of ['Date.now()', 'new Date()', 'performance.now()', 'Math.random()', 'process.env.X', 'randomBytes(8)']) {
      expect(AMBIENT.test(bad), bad).toBe(true);
    }
    expect(AMBIENT.test('new Date(seconds * 1000)')).toBe(false);
  });

  it.each(FILES.filter((f) => layerOf(f) !== 'other'))('%s', (file) => {
    expect(violations(file)).toEqual([]);
  });
});
