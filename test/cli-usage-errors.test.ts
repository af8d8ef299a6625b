// The command-line surface of EVERY command (docs/commands.md#common-behaviour, docs/commands.md#usage-errors, docs/commands.md#exit-codes, docs/threat-model.md#rules-that-hold-everywhere). Commander's own
// errors (unknown option or command, excess argument, rejected choice, missing option or
// subcommand) must still follow the product's rules: under --json exactly ONE JSON object on
// stdout with the stable code `usage_error`, exit 2, no stack trace, and the rejected word never
// echoed; its ids name the declared option or argument at fault, else the command reached, and
// stderr points to that command's --help. `--help` of every command exits 0 and says what it does
// and its exit codes. The command tree is the whole CLI (every register module of src/cli/main.ts).
import { describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { runCli, type CliResult } from './helpers/cli.js';
import { makeTempDir } from './helpers/temp.js';
import { commandTree, leaves } from './helpers/command-tree.js';

async function leafCommands(): Promise<{ path: string[]; args: number }[]> {
  return leaves(await commandTree()).map((l) => ({ path: l.path, args: l.command.registeredArguments.length }));
}

const SECRET = 'S3CRET-rejected-word';
const home = makeTempDir('governed-cli-usage-home-');
const cwd = makeTempDir('governed-cli-usage-cwd-');
const run = (args: string[]): CliResult => runCli(args, { cwd, env: { GOVERNED_HOME: join(home, 'none') } });

/** The one coded usage error: exit 2, one JSON line, nothing echoed, no stack. */
function expectUsage(r: CliResult, label: string): void {
  expect(r.code, label).toBe(2);
  const lines = r.stdout.trim().split('\n');
  expect(lines.length, `${label}: ${r.stdout}`).toBe(1);
  const obj = JSON.parse(lines[0] as string) as { error?: { code?: string } };
  expect(obj.error?.code, label).toBe('usage_error');
  expect(r.stdout + r.stderr, label).not.toContain(SECRET);
  expect(r.stderr, label).not.toMatch(/\n\s+at /);
}

describe('every command, commander-level refusals under --json', async () => {
  const leaves = await leafCommands();
  test('the command list is complete enough to mean something', () => {
    expect(leaves.length).toBeGreaterThan(20);
  });
  for (const { path, args } of leaves) {
    const name = path.join(' ');
    test(`${name}: unknown option`, () => {
      expectUsage(run([...path, '--json', `--${SECRET}`]), `${name} unknown option`);
    });
    if (args === 0) {
      test(`${name}: stray argument`, () => {
        expectUsage(run([...path, '--json', SECRET]), `${name} stray argument`);
      });
    }
    test(`${name}: --help exits 0 and names its exit codes`, () => {
      const r = run([...path, '--help']);
      expect(r.code, name).toBe(0);
      expect(r.stdout, name).toMatch(/[Ee]xit/);
    });
  }
  test('an unknown command, a group without its subcommand, a rejected choice', () => {
    expectUsage(run([SECRET, '--json']), 'unknown command');
    expectUsage(run(['unit', '--json']), 'group without subcommand');
    expectUsage(run(['review-pass', '--json', '--stage', SECRET]), 'rejected choice');
  });
  test('a missing required option names the declared flag, not a value', () => {
    const r = run(['unit', 'create', '--json', '--baseline', SECRET]);
    expectUsage(r, 'missing --contract');
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'usage_error', ids: ['--contract'] } });
  });
  test('ids name the declared option or argument at fault, else the command reached; stderr points to its --help', () => {
    const idsOf = (args: string[], json: 'first' | 'last' = 'last'): { ids: string[]; stderr: string } => {
      const r = run(json === 'last' ? [...args, '--json'] : [...args.slice(0, 2), '--json', ...args.slice(2)]);
      expectUsage(r, args.join(' '));
      return { ids: (JSON.parse(r.stdout) as { error: { ids: string[] } }).error.ids, stderr: r.stderr };
    };
    expect(idsOf(['review-pass', '--stage', SECRET]).ids).toEqual(['--stage']);
    expect(idsOf(['audit', 'export', '--out'], 'first').ids).toEqual(['--out']);
    const unknown = idsOf(['lease', 'list', `--${SECRET}`]);
    expect(unknown.ids).toEqual(['governed lease list']);
    expect(unknown.stderr).toContain('see `governed lease list --help`');
    expect(idsOf(['keygen', '--credential', 'reviewer', '--out', 'k', SECRET]).ids).toEqual(['governed keygen']);
    expect(idsOf(['unit', SECRET]).ids).toEqual(['governed unit']);
    expect(idsOf([SECRET]).ids).toEqual(['governed']);
    // gate's own parser (its cold path, src/cli/commands/gate-argv.ts) names the same way in its decision object.
    expect(idsOf(['gate', `--${SECRET}`]).ids).toEqual(['governed gate']);
    expect(idsOf(['gate', SECRET]).ids).toEqual(['governed gate']);
    expect(idsOf(['gate', '--unit'], 'first').ids).toEqual(['--unit']);
    expect(run(['gate', `--${SECRET}`]).stderr).toContain('see `governed gate --help`');
    // commander's suggestion is repeated only when it is a declared option of that command.
    const near = run(['keygen', '--credential', 'reviewer', '--out', 'k', '--outt', 'x']);
    expect(near.code).toBe(2);
    expect(near.stderr).toContain('did you mean --out? see `governed keygen --help`');
    expect(near.stderr).not.toContain('--outt');
  });
});
