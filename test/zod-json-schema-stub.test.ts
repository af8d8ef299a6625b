// The cold bundles' stub of zod's JSON-Schema generator (scripts/zod-json-schema-stub.mjs,
// docs/performance.md#zods-json-schema-generator-left-out-of-the-cold-bundles): generated from the
// installed zod's own exports (never a hand copy that could drift), it keeps the generator's ≈ 31 KB
// off the gate's and review-run's start, and any use of it fails loudly instead of emitting a wrong
// JSON Schema. The full CLI bundle (schemas:doc) keeps the real generator.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/cli.js';
import { makeTempDir } from './helpers/temp.js';
import { gateEntryOutput, staticClosure } from './helpers/gate-bundle.js';

const stubModule = pathToFileURL(join(REPO_ROOT, 'scripts', 'zod-json-schema-stub.mjs')).href;
const zodCore = join(REPO_ROOT, 'node_modules', 'zod', 'v4', 'core');
const REAL = ['to-json-schema.js', 'json-schema-processors.js'].map((f) => join(zodCore, f));

interface StubLib {
  jsonSchemaStubSource(path: string): Promise<string>;
  noZodJsonSchema: import('esbuild').Plugin;
  JSON_SCHEMA_MODULE_RE: RegExp;
  JSON_SCHEMA_UNAVAILABLE: string;
}
const lib = async (): Promise<StubLib> => (await import(stubModule)) as StubLib;

describe('the stub is generated from the real generator modules', () => {
  it.each(REAL)('%s: same export names, every function throws JSON_SCHEMA_UNAVAILABLE', async (real) => {
    const { jsonSchemaStubSource, JSON_SCHEMA_MODULE_RE, JSON_SCHEMA_UNAVAILABLE } = await lib();
    expect(JSON_SCHEMA_MODULE_RE.test(real)).toBe(true);
    const dir = makeTempDir('governed-zod-stub-');
    const file = join(dir, 'stub.mjs');
    writeFileSync(file, await jsonSchemaStubSource(real));
    const stub = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    const actual = (await import(pathToFileURL(real).href)) as Record<string, unknown>;
    expect(Object.keys(stub).sort()).toEqual(Object.keys(actual).sort());
    for (const [name, value] of Object.entries(stub)) {
      expect(typeof value, name).toBe(typeof actual[name]);
      if (typeof value !== 'function') continue;
      // A create…Method export makes a method without throwing (classic zod does so in a getter); the method throws.
      const call = /^create\w*Method$/.test(name) ? () => (value as () => () => unknown)()() : () => (value as () => unknown)();
      expect(call, name).toThrow(JSON_SCHEMA_UNAVAILABLE);
    }
  });

  it('positive control: a real module with one more export gives a stub with that export (names are read, not listed)', async () => {
    const { jsonSchemaStubSource } = await lib();
    const dir = makeTempDir('governed-zod-stub-');
    const file = join(dir, 'to-json-schema.js');
    writeFileSync(file, `${readFileSync(REAL[0] as string, 'utf8')}\nexport function extraForTest() {}\n`.replace(/from "\.\//g, `from "${pathToFileURL(zodCore).href}/`));
    expect(await jsonSchemaStubSource(file)).toMatch(/^export const extraForTest = unavailable;$/m);
  });
});

describe('what the bundles hold', () => {
  it('the gate bundle built with the plugin holds the stub at load, and still zod/mini', async () => {
    const { noZodJsonSchema } = await lib();
    const outdir = makeTempDir('governed-zod-stub-bundle-');
    const r = await build({
      absWorkingDir: REPO_ROOT,
      preserveSymlinks: true,
      entryPoints: { gate: 'src/cli/commands/gate-argv.ts' },
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      splitting: true,
      chunkNames: 'chunks/gate-[name]-[hash]',
      outdir,
      outExtension: { '.js': '.mjs' },
      external: ['bindings'],
      metafile: true,
      write: false,
      logLevel: 'silent',
      plugins: [noZodJsonSchema],
    });
    const meta = r.metafile;
    const atLoad = staticClosure(meta, [gateEntryOutput(meta)]);
    const bytesAtLoad = (re: RegExp) =>
      [...atLoad].flatMap((f) => Object.entries(meta.outputs[f]?.inputs ?? {})).filter(([k]) => re.test(k)).reduce((n, [, v]) => n + v.bytesInOutput, 0);
    const generator = /node_modules\/zod\/v4\/core\/(?:to-json-schema|json-schema-processors)\.js$/;
    // The stub: a few hundred bytes per module instead of ≈ 31 KB (only what the gate's chunks still reference).
    expect(bytesAtLoad(generator)).toBeLessThan(3_000);
    expect(bytesAtLoad(/node_modules\/zod\/v4\/mini\//)).toBeGreaterThan(0);
  }, 60_000);

  it('positive control: the same bundle without the plugin holds the real generator (so the check can fail)', async () => {
    const outdir = makeTempDir('governed-zod-stub-bundle-');
    const r = await build({
      absWorkingDir: REPO_ROOT,
      preserveSymlinks: true,
      entryPoints: { gate: 'src/cli/commands/gate-argv.ts' },
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      splitting: true,
      chunkNames: 'chunks/gate-[name]-[hash]',
      outdir,
      outExtension: { '.js': '.mjs' },
      external: ['bindings'],
      metafile: true,
      write: false,
      logLevel: 'silent',
    });
    const meta = r.metafile;
    const atLoad = staticClosure(meta, [gateEntryOutput(meta)]);
    const n = [...atLoad]
      .flatMap((f) => Object.entries(meta.outputs[f]?.inputs ?? {}))
      .filter(([k]) => /zod\/v4\/core\/(?:to-json-schema|json-schema-processors)\.js$/.test(k))
      .reduce((s, [, v]) => s + v.bytesInOutput, 0);
    expect(n).toBeGreaterThan(20_000);
  }, 60_000);

  it('the built dist: the cold bundles carry the stub message, the full CLI bundle the real generator', () => {
    const dist = join(REPO_ROOT, 'dist');
    const chunks = readdirSync(join(dist, 'chunks')).filter((f) => f.endsWith('.mjs'));
    const holding = (needle: string) => chunks.filter((f) => readFileSync(join(dist, 'chunks', f), 'utf8').includes(needle));
    const stubbed = holding('JSON Schema generation is not part of this bundle');
    expect(stubbed.some((f) => f.startsWith('gate-'))).toBe(true);
    expect(stubbed.some((f) => f.startsWith('review-run-'))).toBe(true);
    expect(stubbed.every((f) => f.startsWith('gate-') || f.startsWith('review-run-'))).toBe(true);
    // The main CLI's chunks (npm run schemas:doc runs through them) keep zod's generator.
    expect(holding('function toJSONSchema(').some((f) => !f.startsWith('gate-') && !f.startsWith('review-run-'))).toBe(true);
  });
});
