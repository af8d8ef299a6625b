// An unknown command word is a usage error (exit 2) with or without --help: commander alone would print the enclosing group's help and exit 0.
import { afterAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CliResult } from './helpers/cli.js';

const WORD = 'N0SUCH-command-word';
const home = mkdtempSync(join(tmpdir(), 'unknown-cmd-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const run = (args: string[]): CliResult => runCli(args, { cwd: home, env: { GOVERNED_HOME: join(home, 'none') } });

function expectUsageJson(r: CliResult, label: string): void {
  expect(r.code, label).toBe(2);
  const lines = r.stdout.trim().split('\n');
  expect(lines.length, label).toBe(1);
  expect(JSON.parse(lines[0] as string), label).toMatchObject({ ok: false, error: { code: 'usage_error', exit: 2 } });
  expect(r.stdout + r.stderr, label).not.toContain(WORD);
}

describe('unknown command words', () => {
  for (const [label, path] of [
    ['top level', [WORD]],
    ['inside a group', ['unit', WORD]],
    ['inside another group', ['authority', WORD]],
  ] as const) {
    test(`${label}: --help is refused, not answered with the group's help`, () => {
      for (const help of ['--help', '-h']) {
        const r = run([...path, help]);
        expect(r.code, `${label} ${help}`).toBe(2);
        expect(r.stdout, `${label} ${help}`).toBe('');
        expect(r.stderr).toContain('usage_error');
        expect(r.stderr).not.toContain(WORD);
        expectUsageJson(run([...path, help, '--json']), `${label} ${help} --json`);
        expectUsageJson(run([...path, '--json', help]), `${label} --json ${help}`);
      }
      expectUsageJson(run([...path, '--json']), `${label} without --help`);
    });
  }
  test('positive controls: known commands still show their help with exit 0', () => {
    for (const path of [[], ['unit'], ['unit', 'create'], ['help', 'unit'], ['gate'], ['authority', 'record']]) {
      const r = run([...path, '--help']);
      expect(r.code, path.join(' ')).toBe(0);
      expect(r.stdout, path.join(' ')).toMatch(/^Usage: governed/);
    }
  });
});
