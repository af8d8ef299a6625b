// The cold bundles (dist/gate.mjs, dist/review-run.mjs and their chunks) do not carry zod's JSON-Schema
// generator: every format they reach is zod/mini and nothing there generates a JSON Schema
// (`npm run schemas:doc` goes through the full CLI). Guards docs/performance.md "Zod core in the gate bundle".
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/cli.js';

const DIST = join(REPO_ROOT, 'dist');
// A message only zod/v4/core/to-json-schema.js holds.
const MARKER = 'Cycle detected: ';
const chunks = readdirSync(join(DIST, 'chunks'));
const holds = (file: string): boolean => readFileSync(file, 'utf8').includes(MARKER);

describe('zod JSON-Schema generator in the built bundles', () => {
  it('the marker is zod core\'s own generator message', () => {
    expect(readFileSync(join(REPO_ROOT, 'node_modules', 'zod', 'v4', 'core', 'to-json-schema.js'), 'utf8')).toContain(MARKER);
  });

  it.each(['gate', 'review-run'])('%s: neither the entry nor any of its chunks holds the generator', (name) => {
    const own = chunks.filter((c) => c.startsWith(`${name}-`)).map((c) => join(DIST, 'chunks', c));
    expect(own.length).toBeGreaterThan(0);
    expect([join(DIST, `${name}.mjs`), ...own].filter(holds)).toEqual([]);
  });

  it('positive control: the full CLI bundle holds it (schemas:doc needs it), so the scan can find it', () => {
    const cli = chunks.filter((c) => !/^(?:gate|review-run)-/.test(c)).map((c) => join(DIST, 'chunks', c));
    expect(cli.filter(holds).length).toBeGreaterThan(0);
  });
});
