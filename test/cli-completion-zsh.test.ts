// `governed completion zsh` (docs/commands.md#shell-completion): the script printed by the real CLI,
// in a real zsh (Debian's zsh 5.9). zsh -n accepts it; loaded after compinit it registers _governed
// for governed, and installed as _governed in $fpath it is autoloaded by compinit; its completion
// function, run with compsys's `words`/`CURRENT` and a recording compadd/_files, offers the same
// words as the bash script: top-level words, a group's subcommands, a command's options after other
// options and their values, an option's declared choices, file names after other valued options.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zshCompletionScript } from '../src/cli/completion.js';
import { jsonOut, runCli } from './helpers/cli.js';
import { commandTree } from './helpers/command-tree.js';

const ZSH = spawnSync('zsh', ['--version'], { encoding: 'utf8' }).status === 0;
const dir = mkdtempSync(join(tmpdir(), 'gvd-completion-zsh-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fpathDir = join(dir, 'functions');
const scriptFile = join(fpathDir, '_governed');

function zsh(body: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync('zsh', ['-f', '-c', body], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * What the completion function offers for the command line `line` (the last word is the one being
 * completed): compadd records its words, filtered by that word's prefix as compsys would; _files
 * records FILES.
 */
function complete(line: string[], script = scriptFile): string[] {
  const quoted = line.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
  const body = [
    'typeset -a offered',
    'compadd() { [[ $1 == -- ]] && shift; local x; for x in "$@"; do [[ $x == "${words[CURRENT]}"* ]] && offered+=("$x"); done }',
    '_files() { offered+=(FILES) }',
    `source ${script}`,
    `words=(${quoted})`,
    `CURRENT=${line.length}`,
    '_governed',
    "print -rl -- $offered",
  ].join('\n');
  // compdef is only defined after compinit: sourcing outside compsys defines a stub so the script loads.
  const r = zsh(`compdef() { : }\n${body}`);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter((l) => l !== '').sort();
}

beforeAll(() => {
  const r = runCli(['completion', 'zsh'], { cwd: dir, env: { GOVERNED_HOME: join(dir, 'none') } });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout.startsWith('#compdef governed\n')).toBe(true);
  mkdirSync(fpathDir);
  writeFileSync(scriptFile, r.stdout);
});

describe('governed completion zsh, in zsh', () => {
  test('--json wraps the same script', () => {
    const r = runCli(['completion', 'zsh', '--json'], { cwd: dir, env: { GOVERNED_HOME: join(dir, 'none') } });
    expect(r.code, r.stderr).toBe(0);
    expect(jsonOut(r)).toMatchObject({ ok: true, shell: 'zsh', exit: 0, schema_version: 1 });
    expect(jsonOut(r).script).toBe(runCli(['completion', 'zsh'], { cwd: dir, env: { GOVERNED_HOME: join(dir, 'none') } }).stdout);
  });

  test.skipIf(!ZSH)('zsh -n accepts the script', () => {
    const r = spawnSync('zsh', ['-n', scriptFile], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  });

  test.skipIf(!ZSH)('compsys: sourced after compinit it registers _governed; in $fpath compinit autoloads it', () => {
    const sourced = zsh(`autoload -Uz compinit && compinit -u -d ${join(dir, 'zcompdump-1')}\nsource ${scriptFile}\nprint -r -- $_comps[governed]`);
    expect(sourced.code, sourced.stderr).toBe(0);
    expect(sourced.stdout.trim()).toBe('_governed');
    const autoloaded = zsh(`fpath=(${fpathDir} $fpath)\nautoload -Uz compinit && compinit -u -d ${join(dir, 'zcompdump-2')}\nprint -r -- $_comps[governed]`);
    expect(autoloaded.code, autoloaded.stderr).toBe(0);
    expect(autoloaded.stdout.trim()).toBe('_governed');
    // Positive control: without the file in $fpath nothing completes governed.
    const none = zsh(`autoload -Uz compinit && compinit -u -d ${join(dir, 'zcompdump-3')}\nprint -r -- "[$_comps[governed]]"`);
    expect(none.stdout.trim()).toBe('[]');
  });

  test.skipIf(!ZSH)('top level and groups: command words and subcommands, filtered by the prefix', () => {
    expect(complete(['governed', 'au'])).toEqual(['audit', 'authority']);
    expect(complete(['governed', ''])).toEqual(expect.arrayContaining(['gate', 'unit', 'lease', 'audit', 'completion', 'review-run']));
    expect(complete(['governed', 'audit', ''])).toEqual(['checkpoint', 'cosign', 'export', 'prove', 'verify']);
    expect(complete(['governed', 'completion', ''])).toEqual(['bash', 'zsh']);
    expect(complete(['governed', '--json', 'unit', ''])).toEqual(['bind', 'create', 'dismiss', 'dismiss-veto']);
  });

  test.skipIf(!ZSH)("a command's options, after other options and their values; choices; file names", () => {
    expect(complete(['governed', 'lease', 'acquire', '--'])).toEqual(['--help', '--home', '--json', '--runner', '--ttl', '--unit', '--writer-session']);
    // --unit takes a value: "audit" there is that value, not the audit group.
    expect(complete(['governed', 'lease', 'list', '--unit', 'audit', '--r'])).toEqual(['--runner']);
    expect(complete(['governed', 'review-pass', '--stage', 'd'])).toEqual(['development']);
    expect(complete(['governed', 'setup', '--policy-template', ''])).toEqual(['default', 'strict']);
    expect(complete(['governed', 'init', '--policy', 'pol'])).toEqual(['FILES']);
    expect(complete(['governed', 'audit', 'verify', '--pro'])).toEqual(['--progress']);
  });

  test.skipIf(!ZSH)('a command added to the tree completes without another list', async () => {
    const program = await commandTree();
    program.command('zz-new').option('--zz-flag <v>', 'x').option('--zz-mode <m>', 'y');
    (program.commands.find((c) => c.name() === 'zz-new')?.options.find((o) => o.long === '--zz-mode') as { argChoices?: string[] }).argChoices = ['one', 'two'];
    const extended = join(dir, '_governed_extended');
    writeFileSync(extended, zshCompletionScript(program));
    expect(complete(['governed', 'zz'], extended)).toEqual(['zz-new']);
    expect(complete(['governed', 'zz-new', '--zz'], extended)).toEqual(['--zz-flag', '--zz-mode']);
    expect(complete(['governed', 'zz-new', '--zz-mode', ''], extended)).toEqual(['one', 'two']);
  });
});
