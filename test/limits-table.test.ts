// src/core/limits.ts stays a table esbuild can tree-shake: every limit is a plain literal with its own doc comment
// (an arithmetic value, even `4 * 1024`, is kept by esbuild in every pinned bundle that imports any limit, so a change
// to an unrelated limit would change the attestor's and the reviewer's sha256).
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './helpers/cli.js';

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
