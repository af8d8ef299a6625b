// Every command's --help (docs/commands.md#common-behaviour) exits 0 and ends with an "Examples:"
// (or "Example:") section, walking the whole command tree of src/cli/main.ts; the examples table
// (src/cli/help-examples.ts) names no command that does not exist.
import { afterAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HELP_EXAMPLES, leafPaths } from '../src/cli/help-examples.js';
import { runCli } from './helpers/cli.js';
import { commandTree, leaves } from './helpers/command-tree.js';

const cwd = mkdtempSync(join(tmpdir(), 'gvd-help-examples-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe('--help of every command has an example', async () => {
  const program = await commandTree();
  const all = leaves(program);
  test('the tree is the whole CLI (every group of main.ts)', () => {
    expect(all.length).toBeGreaterThan(40);
    expect(leafPaths(program as never)).toEqual(all.map((l) => l.path.join(' ')));
  });
  test('the examples table names only commands that exist', () => {
    const paths = new Set(all.map((l) => l.path.join(' ')));
    expect(Object.keys(HELP_EXAMPLES).filter((k) => !paths.has(k))).toEqual([]);
  });
  for (const { path } of all) {
    const name = path.join(' ');
    test(`${name} --help: exit 0 and an Examples section`, () => {
      const r = runCli([...path, '--help'], { cwd, env: { GOVERNED_HOME: join(cwd, 'none') } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^Usage: governed /);
      const section = /\nExamples?:\n((?: {2}.+\n?)+)/.exec(r.stdout);
      expect(section, `${name}: no Examples section`).not.toBeNull();
      // Each example runs this very command (the first line of each; continuation lines start with spaces).
      const first = (section?.[1] ?? '').split('\n').filter((l) => /^ {2}\S/.test(l));
      expect(first.some((l) => l.includes(`governed ${name}`)), `${name}: ${first.join(' | ')}`).toBe(true);
    });
  }
});
