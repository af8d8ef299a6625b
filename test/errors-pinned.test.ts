// Pinned programs are built against src/core/errors-pinned.ts instead of src/core/errors.ts
// (scripts/pinned-build.mjs): the same API and codes, no error-code tables. So the shipped attestor's
// sha256 — allowlisted by every policy — does not change when an unrelated error code is added.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs build script without type declarations
import { buildPinned } from '../scripts/pinned-build.mjs';
import * as full from '../src/core/errors.js';
import * as pinned from '../src/core/errors-pinned.js';
import { ATTESTOR, REPO_ROOT } from './helpers/cli.js';
import { tempDir } from './helpers/receipts.js';

describe('the pinned error module', () => {
  it('exports a subset of errors.ts with the same behaviour for code, ids and instanceof', () => {
    for (const name of Object.keys(pinned)) expect(Object.keys(full), name).toContain(name);
    const e = new pinned.GovernedError('key_invalid', { ids: ['k'] });
    expect(e).toBeInstanceOf(Error);
    expect({ code: e.code, ids: e.ids, name: e.name, exit: e.exit }).toEqual({ code: 'key_invalid', ids: ['k'], name: 'GovernedError', exit: 1 });
    expect(pinned.isGovernedError(e)).toBe(true);
    expect(pinned.isGovernedError(new Error('x'))).toBe(false);
    expect(() => pinned.fail('key_invalid', ['k'])).toThrow(pinned.GovernedError);
  });

  it('the shipped attestor carries no error-code table: no summary of any code is in it', () => {
    const bundle = readFileSync(ATTESTOR, 'utf8');
    expect(bundle).toContain('src/core/errors-pinned.ts');
    expect(bundle).not.toMatch(/^\/\/ src\/core\/errors\.ts$/m);
    expect(bundle).not.toMatch(/^\/\/ src\/core\/error-codes\//m);
    for (const [code, def] of Object.entries(full.ERROR_CODES)) expect(bundle.includes(def.summary), code).toBe(false);
  });

  it('adding an error code to a table leaves the attestor bundle byte for byte the same', async () => {
    const dir = tempDir('governed-errors-pinned-');
    const plain = join(dir, 'plain.mjs');
    const edited = join(dir, 'edited.mjs');
    await buildPinned('attestors/src/ed25519-file.ts', plain, REPO_ROOT);
    // The same build with a new code appended to the store's table, on the fly.
    const addCode = {
      name: 'add-code',
      setup(b: { onLoad: (o: { filter: RegExp }, f: (a: { path: string }) => { contents: string; loader: 'ts' }) => void }) {
        b.onLoad({ filter: /error-codes[\\/]store\.ts$/ }, (a) => ({
          contents: readFileSync(a.path, 'utf8').replace("} as const satisfies Record<string, ErrorDef>;", "  store_added_in_test: def(8, 'A code added by a test.'),\n} as const satisfies Record<string, ErrorDef>;"),
          loader: 'ts',
        }));
      },
    };
    await buildPinned('attestors/src/ed25519-file.ts', edited, REPO_ROOT, [addCode]);
    expect(readFileSync(edited).equals(readFileSync(plain))).toBe(true);
    expect(readFileSync(plain).equals(readFileSync(ATTESTOR))).toBe(true);
  });
});
