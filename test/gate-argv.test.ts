// The lean `gate` entry (src/cli/commands/gate-argv.ts) parses exactly the options commander
// declares for `gate` (register/decide.ts), resolves the state directory by the same rule, refuses
// anything else as a usage error (exit 2, one DENY decision object under --json, the offending
// word never echoed), and otherwise runs the very same command.
import { Command } from 'commander';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { gateMain, GATE_ARGV_OPTIONS, wantsHelp } from '../src/cli/commands/gate-argv.js';
import { resolveHome } from '../src/cli/options.js';
import { resolveHome as homeRule } from '../src/cli/home.js';
import { readFileSync as readSourceFile } from 'node:fs';
import { join as joinPath, resolve as resolvePath } from 'node:path';
import { REPO_ROOT as ROOT_DIR } from './helpers/cli.js';
import { register } from '../src/cli/register/decide.js';
import { tempDir } from './state-helpers.js';

afterEach(() => vi.restoreAllMocks());

function capture(): { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => {
    out += String(c);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => {
    err += String(c);
    return true;
  });
  return { out: () => out, err: () => err };
}

describe('one grammar for gate', () => {
  it('the argv options are exactly the commander options of `gate`', () => {
    const program = new Command();
    register(program);
    const gate = program.commands.find((c) => c.name() === 'gate');
    const declared = Object.fromEntries(
      (gate?.options ?? []).map((o) => [o.long?.replace(/^--/, '') ?? '', { type: o.required || o.optional ? 'string' : 'boolean' }]),
    );
    expect(declared).toEqual(Object.fromEntries(Object.entries(GATE_ARGV_OPTIONS).map(([k, v]) => [k, { type: v.type }])));
  });

  it('resolves --home like every other command', () => {
    // One rule, one module (src/cli/home.ts), re-exported by ../options.ts; the commander-free entry
    // imports it rather than restating it.
    expect(resolveHome).toBe(homeRule);
    const source = readSourceFile(joinPath(ROOT_DIR, 'src', 'cli', 'commands', 'gate.ts'), 'utf8');
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

  it('leaves --help to commander', () => {
    expect(wantsHelp(['--unit', 'U', '--help'])).toBe(true);
    expect(wantsHelp(['-h'])).toBe(true);
    expect(wantsHelp(['--unit', 'U'])).toBe(false);
  });
});

describe('usage errors exit 2 with one DENY decision', () => {
  it.each([
    ['an unknown option', ['--bogus-CANARY77', 'x', '--json']],
    ['a positional word', ['CANARY77', '--json']],
    ['an option without its value', ['--unit', '--json']],
    // Meaningful with --runner only: the lean gate refuses them rather than ignore them.
    ['--runner-checkpoint without --runner', ['--runner-checkpoint', 'CANARY77', '--json']],
    ['--runner-checkpoint-out without --runner', ['--runner-checkpoint-out', 'CANARY77', '--json']],
  ])('%s', async (_name, argv) => {
    const io = capture();
    const code = await gateMain(argv);
    expect(code).toBe(2);
    const d = JSON.parse(io.out().trim()) as { decision: string; exit: number; error: { code: string } };
    expect(d).toMatchObject({ decision: 'DENY', exit: 2, error: { code: 'usage_error' } });
    expect(io.out() + io.err()).not.toContain('CANARY77');
  });

  it('missing anchors are the gate flow\'s own refusal, through the same command', async () => {
    const io = capture();
    const code = await gateMain(['--home', join(tempDir(), 'none'), '--json']);
    expect(code).toBe(2);
    const d = JSON.parse(io.out().trim()) as { error: { code: string; ids: string[] } };
    expect(d.error).toMatchObject({ code: 'gate_anchor_missing', ids: ['--unit', '--trust', '--policy-digest', '--subject'] });
  });
});
