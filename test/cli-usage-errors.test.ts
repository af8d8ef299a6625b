// The command-line surface of EVERY command (docs/commands.md#common-behaviour, docs/commands.md#exit-codes, docs/threat-model.md#rules-that-hold-everywhere). Commander's own
// errors (unknown option or command, excess argument, rejected choice, missing option or
// subcommand) must still follow the product's rules: under --json exactly ONE JSON object on
// stdout with the stable code `usage_error`, exit 2, no stack trace, and the rejected word never
// echoed. `--help` of every command exits 0 and says what it does and its exit codes.
import { describe, expect, test } from 'vitest';
import { Command } from 'commander';
import { join } from 'node:path';
import { runCli, type CliResult } from './helpers/cli.js';
import { makeTempDir } from './helpers/temp.js';

const GROUPS = ['keys', 'store', 'unit', 'authority', 'challenge', 'run', 'sandbox', 'decide', 'audit', 'review-pass'];

async function leafCommands(): Promise<{ path: string[]; args: number }[]> {
  const program = new Command();
  for (const g of GROUPS) ((await import(`../src/cli/register/${g}.ts`)) as { register(p: Command): void }).register(program);
  const out: { path: string[]; args: number }[] = [];
  const walk = (c: Command, path: string[]): void => {
    if (c.commands.length === 0 && path.length > 0) out.push({ path, args: c.registeredArguments.length });
    for (const s of c.commands) walk(s, [...path, s.name()]);
  };
  walk(program, []);
  return out;
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
});
