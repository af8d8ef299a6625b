// One --json style on failure (docs/commands.md#common-behaviour): walking every command of the
// tree, a failure inside the command (a missing store, an unreadable file, a bad name — every
// required option given a path under a directory that does not exist) and a usage error of
// commander (an unknown option) each print exactly one JSON object on stdout — the command-error
// object `{ok: false, error: {code, exit, message, ids}}` with the process's exit code, or, for the
// commands whose result is a report (gate, verify, audit verify, doctor), that report with
// `ok: false` and the same exit — judged by the published JSON Schemas with ajv. Nothing is
// written where the command was pointed.
import { afterAll, describe, expect, test } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { REPO_ROOT, runCli, type CliResult } from './helpers/cli.js';
import { commandTree, leaves } from './helpers/command-tree.js';

const cwd = mkdtempSync(join(tmpdir(), 'gvd-json-envelope-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
const NOWHERE = join(cwd, 'does-not-exist');
const schema = (stem: string): Record<string, unknown> => JSON.parse(readFileSync(join(REPO_ROOT, 'docs', 'schemas', `${stem}.schema.json`), 'utf8')) as Record<string, unknown>;
const ajv = new Ajv2020({ strict: false });
const commandError = ajv.compile(schema('command-error'));
type Check = ((d: unknown) => boolean) & { errors?: unknown[] | null };
/** The report a failed report command prints instead of the command-error object. */
const REPORTS: Record<string, Check> = {
  gate: ajv.compile(schema('gate-decision')),
  verify: ajv.compile(schema('verify')),
  'audit verify': ajv.compile(schema('audit-verify')),
  doctor: ajv.compile(schema('doctor')),
};

/** The one object a --json failure printed, judged by its schema; returns its error code. */
function envelope(r: CliResult, name: string, label: string): string {
  expect(r.code, `${label}: ${r.stdout}`).not.toBe(0);
  const lines = r.stdout.split('\n').filter((l) => l !== '');
  expect(lines.length, `${label}: ${r.stdout}`).toBe(1);
  const obj = JSON.parse(lines[0] as string) as { ok?: unknown; exit?: unknown; schema_version?: unknown; error?: { code: string; exit: number } | null };
  expect(obj.ok, label).toBe(false);
  expect(r.stderr, label).not.toMatch(/\n\s+at /);
  // Every object, report or error, carries the process's exit code and the format version (docs/commands.md#the-json-style).
  expect(obj.exit, label).toBe(r.code);
  expect(obj.schema_version, label).toBe(1);
  const report = REPORTS[name];
  const isCommandError: boolean = commandError(obj);
  if (report !== undefined && !isCommandError) {
    expect(report(obj), `${label}: ${JSON.stringify(report.errors?.slice(0, 2))}`).toBe(true);
    return obj.error?.code ?? 'report';
  }
  expect(commandError(obj), `${label}: ${JSON.stringify(commandError.errors?.slice(0, 2))}`).toBe(true);
  expect(obj.error?.exit, label).toBe(r.code);
  return obj.error?.code as string;
}

describe('every command prints the same error envelope under --json', async () => {
  const all = leaves(await commandTree());
  const withJson = all.filter((l) => l.command.options.some((o) => o.long === '--json'));
  test('every command takes --json but the daemon itself (runnerd serve: it logs on stderr, it serves) and its internal sandbox host', () => {
    expect(all.filter((l) => !withJson.includes(l)).map((l) => l.path.join(' '))).toEqual(['runnerd serve', 'runnerd sandbox-host']);
  });
  const inside: string[] = [];
  for (const { path, command } of withJson) {
    const name = path.join(' ');
    test(`${name}: a failure inside the command and a usage error`, () => {
      const args = [...path];
      for (const o of command.options) if (o.mandatory && o.long !== undefined) args.push(o.long, join(NOWHERE, o.long.slice(2)));
      for (const a of command.registeredArguments) if (a.required) args.push(join(NOWHERE, a.name()));
      // A command that needs nothing to succeed is pointed at a bubblewrap that does not exist.
      if (command.options.some((o) => o.long === '--bwrap')) args.push('--bwrap', join(NOWHERE, 'bwrap'));
      const env = { GOVERNED_HOME: join(NOWHERE, 'home'), GOVERNED_ATTESTORS_DIR: join(NOWHERE, 'attestors') };
      // completion bash|zsh cannot fail inside: it reads nothing (only its usage error is judged).
      if (name !== 'completion bash' && name !== 'completion zsh') {
        const code = envelope(runCli([...args, '--json'], { cwd, env }), name, `${name} (inside)`);
        if (code !== 'usage_error') inside.push(name);
      }
      envelope(runCli([...path, '--json', '--no-such-option-here'], { cwd, env }), name, `${name} (usage)`);
      expect(existsSync(NOWHERE), `${name} wrote where it was pointed`).toBe(false);
    });
  }
  test('most commands were refused by their own code, not by the command line', () => {
    expect(inside.length, inside.join(', ')).toBeGreaterThanOrEqual(25);
  });
});
