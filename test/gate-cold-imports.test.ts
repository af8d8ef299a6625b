// The cold gate path (docs/architecture.md "One definition per format"): what `governed gate` loads
// at run time, read from esbuild's metafile of the real CLI bundle — the static import closure of
// the CLI entry and of the gate command chunk (dynamic imports are not followed: they load only when
// taken) — holds the formats' one schema (zod/mini) but no classic zod, no yaml and no execa. YAML (a .yaml trust root or pinned document), authority
// records and --attest load their modules on demand only. No command of the CLI and no pinned program
// holds classic zod at all, and no product source imports it.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { gateBundleMetafile, gateEntryOutput, staticClosure } from './helpers/gate-bundle.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/cli.js';
import { makeTempDir } from './helpers/temp.js';

let meta: Metafile;

beforeAll(async () => {
  const outdir = makeTempDir('governed-gate-lean-');
  const r = await build({
    absWorkingDir: REPO_ROOT,
    preserveSymlinks: true, // node_modules may be a symlink (a worktree): keep paths as written
    entryPoints: ['src/cli/main.ts', 'src/cli/commands/gate-argv.ts'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    splitting: true,
    outdir,
    outExtension: { '.js': '.mjs' },
    external: ['better-sqlite3'],
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  meta = r.metafile;
}, 60_000);

/** Inputs loaded when `source` is imported: the static closure of its chunk (plus the entries given). */
function staticInputs(source: string, alsoEntries: readonly string[] = []): Set<string> {
  const outputs = meta.outputs;
  const holder = Object.keys(outputs).find((f) => Object.keys(outputs[f]?.inputs ?? {}).includes(source) || outputs[f]?.entryPoint === source);
  if (holder === undefined) throw new Error(`no chunk holds ${source}`);
  const stack = [holder, ...Object.keys(outputs).filter((f) => alsoEntries.includes(outputs[f]?.entryPoint ?? ''))];
  const seen = new Set<string>();
  while (stack.length > 0) {
    const f = stack.pop() as string;
    if (seen.has(f)) continue;
    seen.add(f);
    for (const i of outputs[f]?.imports ?? []) if (i.kind === 'import-statement' && !i.external) stack.push(i.path);
  }
  const inputs = new Set<string>();
  for (const f of seen) for (const k of Object.keys(outputs[f]?.inputs ?? {})) inputs.add(k);
  return inputs;
}

// Classic zod (its `zod/v4/classic` layer or the package root); zod/mini and zod's core are allowed.
const HEAVY = /^node_modules\/(?:zod\/(?:v4\/classic\/|index\.js$|v4\/index\.js$)|yaml\/|execa\/|@noble\/)/;
const MINI = /^node_modules\/zod\/v4\/mini\//;
const CLASSIC_ZOD = /^node_modules\/zod\/(?:v4\/classic\/|index\.js$|v4\/index\.js$)/;
// esbuild (minify off, as scripts/build.mjs builds) names each bundled module in a `// path` line.
const CLASSIC_ZOD_IN_TEXT = /^\/\/ node_modules\/zod\/v4\/classic\//m;

/** The control: a one-line module importing classic zod, bundled like the product. */
async function bundleClassic(): Promise<{ metafile: Metafile; text: string }> {
  const r = await build({
    absWorkingDir: REPO_ROOT,
    preserveSymlinks: true,
    stdin: { contents: "import * as z from 'zod';\nexport const s = z.object({ a: z.string() });\n", resolveDir: REPO_ROOT, sourcefile: 'classic-control.ts', loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  return { metafile: r.metafile, text: r.outputFiles.map((f) => f.text).join('') };
}

describe('the gate path loads zod/mini only: no classic zod, YAML parser, execa or noble', () => {
  it('through the CLI entry (commander) and the gate command', () => {
    const inputs = staticInputs('src/cli/commands/gate.ts', ['src/cli/main.ts']);
    expect(inputs.has('src/flows/decide/gate.ts')).toBe(true);
    expect(inputs.has('src/core/verify-receipt.ts')).toBe(true);
    // The gate reads its formats through their compiled form (docs/architecture.md#compiled-formats):
    // no zod at load at all.
    expect(inputs.has('src/core/format/compiled.ts')).toBe(true);
    expect([...inputs].filter((i) => MINI.test(i) || i.startsWith('node_modules/zod/'))).toEqual([]);
    expect([...inputs].filter((i) => HEAVY.test(i))).toEqual([]);
  });

  it('through the lean argv entry (no commander at all)', () => {
    const inputs = staticInputs('src/cli/commands/gate-argv.ts');
    expect([...inputs].filter((i) => HEAVY.test(i) || i.startsWith('node_modules/commander/'))).toEqual([]);
  });

  it('the CLI entry itself loads neither commander nor any command group before routing', () => {
    const inputs = staticInputs('src/cli/main.ts');
    expect([...inputs].filter((i) => i.startsWith('node_modules/') || i.startsWith('src/cli/register/') || i.startsWith('src/flows/'))).toEqual([]);
  });

  it('no command loads classic zod: every input of the whole CLI bundle (lazy paths included)', () => {
    // Every format is zod/mini now, the review-pass configs and protocols included (docs/architecture.md
    // "One definition per format"); this bundle holds every command, so review-pass's modules are in it.
    const all = Object.keys(meta.inputs);
    expect(all).toContain('src/flows/review-pass/config-schema.ts');
    expect(all).toContain('src/protocols/simple/schema.ts');
    expect(all.some((i) => MINI.test(i))).toBe(true);
    expect(all.filter((i) => CLASSIC_ZOD.test(i))).toEqual([]);
  });

  it('positive control: a module that imports classic zod is detected (input path and bundle text)', async () => {
    const r = await bundleClassic();
    expect(Object.keys(r.metafile.inputs).filter((i) => CLASSIC_ZOD.test(i)).length).toBeGreaterThan(0);
    expect(r.text).toMatch(CLASSIC_ZOD_IN_TEXT);
  });

  it('the on-demand paths are dynamic imports: YAML, authority verification, attestation', () => {
    const dynamic = (source: string): string[] => {
      const holder = Object.values(meta.outputs).find((o) => Object.keys(o.inputs).includes(source));
      return (holder?.imports ?? []).filter((i) => i.kind === 'dynamic-import').map((i) => i.path);
    };
    expect(dynamic('src/core/structured.ts').length).toBeGreaterThan(0);
    expect(dynamic('src/flows/decide/verify.ts').length).toBeGreaterThan(0);
    expect(dynamic('src/flows/decide/gate.ts').length).toBeGreaterThan(0);
  });
});

describe('source rule: the gate modules import nothing heavy at run time', () => {
  const dir = join(REPO_ROOT, 'src', 'flows', 'decide');
  const files = [...readdirSync(dir).filter((f) => f.endsWith('.ts')), '../read-file.ts'];
  const runtimeImports = (source: string): string[] =>
    [...source.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'/gms)].map((m) => m[1] as string);

  it.each(files.filter((f) => f !== 'attest.ts' && f !== 'status.ts'))('%s', (file) => {
    const imports = runtimeImports(readFileSync(join(dir, file), 'utf8'));
    for (const spec of imports) {
      expect(spec, `${file} imports ${spec}`).not.toMatch(/^(zod|yaml|execa)$|strict-parse|store\/index\.js$|workspace\/index\.js$/);
    }
  });
});

describe('YAML documents take the lazy path and mean the same', () => {
  it('a pinned YAML policy loads (yaml imported on demand) with the digest and result of loadPolicy', async () => {
    const { stringify } = await import('yaml');
    const { initStore, closeStore } = await import('../src/store/index.js');
    const { readPinnedPolicy } = await import('../src/flows/decide/pins.js');
    const { loadPolicy } = await import('../src/core/policy.js');
    const { makeKeys, policyDoc, trustDoc, tempDir } = await import('./state-helpers.js');
    const keys = makeKeys();
    const doc = policyDoc(keys);
    const yamlText = `# a comment and YAML layout do not change the digest\n${stringify(doc, { aliasDuplicateObjects: false })}`;
    const store = initStore(join(tempDir(), 'state'), { policyBytes: Buffer.from(yamlText), trustBytes: Buffer.from(JSON.stringify(trustDoc(keys))), now: 1_780_000_000 });
    try {
      const pinned = await readPinnedPolicy(store.db);
      const ref = loadPolicy(structuredClone(doc));
      expect(pinned.digest).toBe(ref.digest);
      expect(pinned).toEqual(ref);
    } finally {
      closeStore(store);
    }
  });
});

describe('the gate bundle of scripts/build.mjs (dist/gate.mjs)', () => {
  // build.mjs bundles src/cli/commands/gate-argv.ts as its own entry (code-split only for its lazy
  // paths) and the CLI entry imports it for `governed gate`: the gate's static closure is that one
  // file plus the few chunks it shares with its own lazy paths.
  let gateMeta: Metafile;
  beforeAll(async () => {
    gateMeta = await gateBundleMetafile();
  }, 60_000);

  it('few files, no classic zod, YAML, execa, noble or commander at load', () => {
    const outputs = gateMeta.outputs;
    const seen = staticClosure(gateMeta, [gateEntryOutput(gateMeta)]);
    const inputs = [...seen].flatMap((f) => Object.keys(outputs[f]?.inputs ?? {}));
    expect(inputs).toContain('src/flows/decide/gate.ts');
    expect(inputs).toContain('node_modules/better-sqlite3/lib/database.js');
    expect(inputs.filter((i) => HEAVY.test(i) || i.startsWith('node_modules/commander/'))).toEqual([]);
    // 8: the lazy paths added since (preservation, the deploy record's proofs and standard containers)
    // share modules with the decision path, which esbuild splits into chunks; 9: the one definition of
    // the id formats (src/core/ids.ts, a 564-byte chunk) is shared by the cold and the lazy paths. The
    // bound still fails when a new static import lands on the cold path (docs/gate.md#6-the-cold-gate-path).
    expect(seen.size).toBeLessThanOrEqual(9);
  });

  // The store's reducer payloads and the authority presentation are zod/mini like every format, so
  // no gate path — cold or lazy — reaches classic zod, and the gate's static closure carries only the
  // part of zod's shared core that zod/mini needs (classic zod put ≈ 159 KB of core there, zod/mini
  // alone ≈ 60 KB: docs/performance.md#zod-core-in-the-gate-bundle).
  const ZOD_CORE = /^node_modules\/zod\/v4\/core\//;
  const ZOD_CORE_AT_LOAD_MAX = 90_000;
  const zodCoreBytes = (m: Metafile, files: Iterable<string>): number =>
    [...files].reduce((n, f) => n + Object.entries(m.outputs[f]?.inputs ?? {}).reduce((k, [i, v]) => k + (ZOD_CORE.test(i) ? v.bytesInOutput : 0), 0), 0);

  it('no classic zod anywhere in the gate bundle (lazy paths included), and no zod core at load (compiled formats)', () => {
    expect(Object.keys(gateMeta.inputs).filter((i) => HEAVY.test(i) && i.startsWith('node_modules/zod/'))).toEqual([]);
    expect(Object.keys(gateMeta.inputs)).toContain('src/store/reducers/preservation.ts');
    expect(Object.keys(gateMeta.inputs)).toContain('src/core/authority/presentation.ts');
    const atLoad = zodCoreBytes(gateMeta, staticClosure(gateMeta, [gateEntryOutput(gateMeta)]));
    expect(atLoad).toBe(0);
    // Lazy paths (an authority record, a preservation fact) still parse with zod/mini.
    expect(zodCoreBytes(gateMeta, Object.keys(gateMeta.outputs))).toBeGreaterThan(0);
  });

  it('positive control: a bundle that loads classic zod exceeds that zod-core bound', async () => {
    const { metafile } = await bundleClassic();
    expect(zodCoreBytes(metafile, Object.keys(metafile.outputs))).toBeGreaterThan(ZOD_CORE_AT_LOAD_MAX);
  });

  it('the VSA schema is built only by --attest: the policy is read through its compiled form', () => {
    const outputs = gateMeta.outputs;
    const inputsOf = (files: Iterable<string>): string[] => [...files].flatMap((f) => Object.keys(outputs[f]?.inputs ?? {}));
    const atLoad = inputsOf(staticClosure(gateMeta, [gateEntryOutput(gateMeta)]));
    expect(atLoad).toContain('src/core/policy.ts');
    expect(atLoad).toContain('src/core/format/compiled.ts');
    expect(atLoad).not.toContain('src/core/policy-schema.ts');
    expect(atLoad).not.toContain('src/core/vsa.ts');
    // Positive control: the attest path (a dynamic import) does load it, so the check can fail.
    const attest = Object.keys(outputs).find((f) => Object.keys(outputs[f]?.inputs ?? {}).includes('src/flows/decide/attest.ts')) as string;
    expect(inputsOf(staticClosure(gateMeta, [attest]))).toContain('src/core/vsa.ts');
  });
});

describe('one schema language for every format module', () => {
  // The formats of docs/schemas/ (and the cold paths' schemas) are zod/mini: classic zod in one of
  // them would put classic zod back on the gate, review-run, attestor or reviewer start.
  const FORMAT_MODULES = [
    'src/core/policy.ts', 'src/core/trust-root.ts', 'src/core/receipt-predicate.ts', 'src/core/vsa.ts', 'src/core/dsse.ts',
    'src/core/intoto.ts', 'src/core/attestor-protocol.ts', 'src/core/contract/schema.ts', 'src/core/checkpoint.ts',
    'src/core/closed-record.ts', 'src/core/schema-primitives.ts', 'src/core/authority/predicate.ts', 'src/core/audit/export-schema.ts',
    'src/core/verify-receipt.ts', 'src/core/authority/presentation.ts', 'src/store/reducers.ts',
    ...readdirSync(join(REPO_ROOT, 'src', 'store', 'reducers')).map((f) => `src/store/reducers/${f}`),
  ];
  it.each(FORMAT_MODULES)('%s imports zod/mini, never classic zod', (file) => {
    const text = readFileSync(join(REPO_ROOT, file), 'utf8');
    expect(text).not.toMatch(/from 'zod'/);
  });

  // And no product source at all (src/, runner/, attestors/, scripts/): one schema language.
  const CLASSIC_IMPORT = /(?:from|import)\s+'zod(?:\/v4)?(?:\/classic)?'/;
  const sources = (dir: string): string[] =>
    readdirSync(join(REPO_ROOT, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.(?:ts|mts)$/.test(f))
      .map((f) => `${dir}/${f}`);
  const ALL = ['src', 'runner', 'attestors', 'scripts'].flatMap(sources);

  it('no product source imports classic zod', () => {
    expect(ALL).toContain('src/flows/review-pass/config-schema.ts');
    expect(ALL).toContain('runner/reviewers/adapters/eslint.ts');
    expect(ALL.filter((f) => CLASSIC_IMPORT.test(readFileSync(join(REPO_ROOT, f), 'utf8')))).toEqual([]);
  });

  it('positive control: the rule sees each spelling of a classic zod import, and not zod/mini', () => {
    for (const line of ["import * as z from 'zod';", "import { config } from 'zod';", "import type * as z from 'zod/v4';", "import 'zod';"]) expect(line).toMatch(CLASSIC_IMPORT);
    expect("import * as z from 'zod/mini';").not.toMatch(CLASSIC_IMPORT);
  });
});

describe('the pinned programs hold no classic zod (their committed bytes, check-pinned: a fresh build)', () => {
  const dirs = ['attestors', 'runner/reviewers', 'runner/egress'];
  const files = dirs.flatMap((d) => readdirSync(join(REPO_ROOT, d)).filter((f) => f.endsWith('.mjs')).map((f) => `${d}/${f}`));

  it.each(files)('%s', (file) => {
    expect(readFileSync(join(REPO_ROOT, file), 'utf8')).not.toMatch(CLASSIC_ZOD_IN_TEXT);
  });

  it('the ESLint check reviewer, whose adapter was the last classic zod of a pinned program, is among them and is zod/mini', () => {
    expect(files).toContain('runner/reviewers/check-eslint.mjs');
    expect(readFileSync(join(REPO_ROOT, 'runner/reviewers/check-eslint.mjs'), 'utf8')).toMatch(/^\/\/ node_modules\/zod\/v4\/mini\//m);
  });
});
