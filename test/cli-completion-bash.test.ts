// `governed completion bash` (docs/commands.md#shell-completion): the script printed by the real
// CLI, sourced in a real bash, completes from the one command tree — top-level words, a group's
// subcommands, a command's options, an option's declared choices, file names after a valued
// option — and a command or option added to the tree appears without another list (the generator
// run over the tree with one more command).
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bashCompletionScript } from '../src/cli/completion.js';
import { runCli } from './helpers/cli.js';
import { commandTree, leaves } from './helpers/command-tree.js';

const dir = mkdtempSync(join(tmpdir(), 'gvd-completion-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const scriptFile = join(dir, 'governed.bash');

/** COMPREPLY for the command line `words` (the last word is the one being completed), in a fresh bash. */
function complete(words: string[], script = scriptFile): string[] {
  const quoted = words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
  const body = `source ${script}\nCOMP_WORDS=(${quoted})\nCOMP_CWORD=${words.length - 1}\ncd ${dir}\n_governed\nprintf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', body], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter((l) => l !== '').sort();
}

beforeAll(() => {
  const r = runCli(['completion', 'bash'], { cwd: dir, env: { GOVERNED_HOME: join(dir, 'none') } });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toContain('complete -o filenames -F _governed governed');
  writeFileSync(scriptFile, r.stdout);
  mkdirSync(join(dir, 'policies'));
  writeFileSync(join(dir, 'policy.yaml'), '');
});

describe('governed completion bash, sourced in bash', () => {
  test('bash -n accepts the script', () => {
    const r = spawnSync('bash', ['-n', scriptFile], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  });
  test('top level: every command word, filtered by the prefix', () => {
    expect(complete(['governed', 'au'])).toEqual(['audit', 'authority']);
    expect(complete(['governed', ''])).toEqual(expect.arrayContaining(['gate', 'unit', 'lease', 'audit', 'completion', 'review-run']));
  });
  test('a group: its subcommands', () => {
    expect(complete(['governed', 'audit', ''])).toEqual(['checkpoint', 'cosign', 'export', 'prove', 'verify']);
    expect(complete(['governed', 'lease', 'a'])).toEqual(['acquire']);
    expect(complete(['governed', '--json', 'unit', ''])).toEqual(['bind', 'create', 'dismiss', 'dismiss-veto']);
  });
  test("a command: its options, after other options and their values", () => {
    expect(complete(['governed', 'lease', 'acquire', '--'])).toEqual(['--help', '--home', '--json', '--runner', '--ttl', '--unit', '--writer-session']);
    // --unit takes a value: "audit" there is that value, not the audit group.
    expect(complete(['governed', 'lease', 'list', '--unit', 'audit', '--r'])).toEqual(['--runner']);
    expect(complete(['governed', 'gate', '--unit', 'UNIT-1', '--sub'])).toEqual(['--subject']);
  });
  test("an option's declared choices, and file names after any other valued option", () => {
    expect(complete(['governed', 'review-pass', '--stage', 'd'])).toEqual(['development']);
    expect(complete(['governed', 'setup', '--policy-template', ''])).toEqual(['default', 'strict']);
    expect(complete(['governed', 'init', '--policy', 'pol'])).toEqual(['policies', 'policy.yaml']);
  });
  test('a word that names no command leaves completion at the level reached (the top level here)', () => {
    expect(complete(['governed', 'no-such', ''])).toEqual(expect.arrayContaining(['gate']));
  });
});

describe('the script is generated from the tree', () => {
  test('every leaf command is reachable in the generated script', async () => {
    const program = await commandTree();
    const script = bashCompletionScript(program);
    for (const { path } of leaves(program)) expect(script).toContain(`"${path.join(' ')}") echo `);
  });
  test('a command added to the tree completes with no other change', async () => {
    const program = await commandTree();
    program.command('audit-extra-for-test').option('--frobnicate <n>', 'x');
    const file = join(dir, 'extended.bash');
    writeFileSync(file, bashCompletionScript(program));
    expect(complete(['governed', 'audit-extra'], file)).toEqual(['audit-extra-for-test']);
    expect(complete(['governed', 'audit-extra-for-test', '--fro'], file)).toEqual(['--frobnicate']);
    expect(complete(['governed', 'audit-extra'])).toEqual([]);
  });
  test('a declared name that is not a plain word is refused, not embedded in shell text', async () => {
    const program = await commandTree();
    program.command('x').addOption(new (await import('commander')).Option('--mode <m>').choices(['a', '$(touch pwned)']));
    expect(() => bashCompletionScript(program)).toThrow(/not a plain word/);
  });
});
