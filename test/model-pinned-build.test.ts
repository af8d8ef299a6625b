// The model reviewer and the egress broker are pinned programs (docs/egress.md "The broker
// process", docs/reviewers.md "The model reviewer"): one self-contained file each, importing only
// Node built-ins, and the committed bytes are exactly what the build makes from the sources — so a
// policy's sha256 covers every line that runs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error the build helper is plain JavaScript
import { buildPinned } from '../scripts/pinned-build.mjs';
import { REPO_ROOT } from './helpers/cli.js';
import { tempDir } from './state-helpers.js';

const PROGRAMS = [
  ['runner/reviewers/src/model.ts', 'runner/reviewers/model.mjs'],
  ['runner/egress/src/broker.ts', 'runner/egress/broker.mjs'],
] as const;

describe.each(PROGRAMS)('%s', (entry, committed) => {
  it('builds to the committed bytes, which import only node: built-ins', async () => {
    const out = join(tempDir('governed-model-build-'), 'out.mjs');
    await (buildPinned as (e: string, o: string, r: string) => Promise<void>)(entry, out, REPO_ROOT);
    const built = readFileSync(out);
    expect(built.equals(readFileSync(join(REPO_ROOT, committed))), `${committed} is stale: run npm run build`).toBe(true);
    const text = built.toString('utf8');
    const specifiers = [...text.matchAll(/^import .* from ["']([^"']+)["'];?$/gm)].map((m) => m[1]);
    expect(specifiers.length).toBeGreaterThan(0);
    for (const s of specifiers) expect(s?.startsWith('node:'), s).toBe(true);
    expect(text).not.toMatch(/\bimport\(|require\(["'](?!node:)/);
  });
});
