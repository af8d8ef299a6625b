// The commander-free `review-run` entry (src/cli/commands/review-run-argv.ts) takes exactly the
// argument lists it understands as commander does for register/run.ts, and hands every other one
// to commander (help, unknown option, positional, missing value, missing --challenge) — so an entry
// point routing `governed review-run` there first changes no behaviour, only the start-up cost.
// Also: the state directory resolves by the same rule as every other command, and the zod one-shot
// setting is on once the review-run entry loaded it.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseReviewRunArgv, REVIEW_RUN_ARGV_OPTIONS } from '../src/cli/commands/review-run-argv.js';
import { resolveHome } from '../src/cli/options.js';
import { resolveHome as homeRule } from '../src/cli/home.js';
import { readFileSync as readSourceFile } from 'node:fs';
import { join as joinPath, resolve as resolvePath } from 'node:path';
import { REPO_ROOT as ROOT_DIR } from './helpers/cli.js';
import { register } from '../src/cli/register/run.js';

/** What commander produces for `review-run <argv>`: the options object, or null for an error/help. */
function viaCommander(argv: readonly string[]): Record<string, unknown> | null {
  const program = new Command();
  program.exitOverride().configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
  register(program);
  const cmd = program.commands.find((c) => c.name() === 'review-run') as Command;
  let seen: Record<string, unknown> | null = null;
  cmd.exitOverride().configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
  cmd.action((opts: Record<string, unknown>) => {
    seen = { ...opts };
  });
  try {
    program.parse(['node', 'governed', 'review-run', ...argv]);
  } catch {
    return null;
  }
  return seen;
}

const C = 'CHL-0123456789abcdef0123456789abcdef';
const CASES: readonly (readonly string[])[] = [
  ['--challenge', C],
  [`--challenge=${C}`],
  ['--challenge', C, '--json'],
  ['--json', '--challenge', C, '--home', '/h', '--repo', 'r', '--reviewers-dir', 'rd', '--attestors', 'a', '--bwrap', '/usr/bin/bwrap', '--policy', 'p.json', '--trust', 't.json'],
  ['--challenge', C, '--challenge', 'CHL-x'],
  ['--challenge', '--json'],
  ['--challenge', '-x'],
  ['--challenge', ''],
  ['--challenge='],
  ['--home=', '--challenge', C],
  ['--challenge', C, '--home'],
  ['--challenge'],
  [],
  ['--json'],
  ['--home', '/h'],
  ['--challenge', C, 'extra'],
  ['extra', '--challenge', C],
  ['--challenge', C, '--unknown'],
  ['--challenge', C, '--unknown=1'],
  ['--challenge', C, '-j'],
  ['--challenge', C, '--json=1'],
  ['--challenge', C, '--help'],
  ['--help'],
  ['-h'],
  ['--challenge', C, '--'],
  ['--', '--challenge', C],
  ['--challenge', C, '--reviewer', 'x'],
  ['--challenge', C, '--version'],
  ['--challenge', C, '-V'],
  ['--Challenge', C],
  ['--challenge', C, '--no-json'],
  ['--challenge', C, '--json', '--json'],
];

describe('review-run argv: one grammar with commander', () => {
  it('declares exactly the options of register/run.ts', () => {
    const program = new Command();
    register(program);
    const cmd = program.commands.find((c) => c.name() === 'review-run') as Command;
    const declared = Object.fromEntries(cmd.options.map((o) => [o.long?.replace(/^--/, '') ?? '', o.required || o.optional]));
    expect(declared).toEqual(REVIEW_RUN_ARGV_OPTIONS);
  });

  it('every argv it accepts gives the options commander gives; everything else goes to commander', () => {
    let accepted = 0;
    let handedOver = 0;
    for (const argv of CASES) {
      const lean = parseReviewRunArgv(argv);
      const commander = viaCommander(argv);
      if (lean === null) {
        handedOver++;
        continue;
      }
      accepted++;
      expect(commander, JSON.stringify(argv)).not.toBeNull();
      expect({ ...lean }, JSON.stringify(argv)).toEqual(commander);
    }
    expect(accepted).toBeGreaterThanOrEqual(9);
    expect(handedOver).toBeGreaterThanOrEqual(15);
  });

  it('hands over help, unknown options, positionals and a missing --challenge', () => {
    for (const argv of [['--help'], ['-h'], ['--challenge', C, '--help'], ['--challenge', C, 'extra'], ['--challenge', C, '--unknown'], ['--json'], ['--challenge'], ['--challenge', C, '--json=1'], ['--', '--challenge', C]]) {
      expect(parseReviewRunArgv(argv), JSON.stringify(argv)).toBeNull();
    }
  });

  it('resolves the state directory like every other command', () => {
    // One rule, one module (src/cli/home.ts), re-exported by ../options.ts; the commander-free entry
    // imports it rather than restating it.
    expect(resolveHome).toBe(homeRule);
    const source = readSourceFile(joinPath(ROOT_DIR, 'src', 'cli', 'commands', 'review-run.ts'), 'utf8');
    expect(source).toContain("from '../home.js'");
    expect(source).not.toContain('GOVERNED_HOME');
    const saved = process.env.GOVERNED_HOME;
    try {
      delete process.env.GOVERNED_HOME;
      expect(homeRule(undefined)).toBe(resolvePath('.governed'));
      expect(homeRule('x')).toBe(resolvePath('x'));
      expect(homeRule('/abs/y')).toBe('/abs/y');
      process.env.GOVERNED_HOME = '/env/home';
      expect(homeRule(undefined)).toBe('/env/home');
      expect(homeRule('x')).toBe(resolvePath('x'));
    } finally {
      if (saved === undefined) delete process.env.GOVERNED_HOME;
      else process.env.GOVERNED_HOME = saved;
    }
  });
});
