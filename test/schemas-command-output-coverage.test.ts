// Every command whose --json prints an object has a published JSON Schema for it (docs/formats.md):
// the whole commander tree of src/cli/main.ts is walked, and a leaf with a --json option (or
// `runnerd serve`, which always prints JSON lines) must be listed in COMMAND_JSON_SCHEMAS
// (src/core/command-output-areas.ts) with stems that exist in docs/schemas/ and have one definition.
// Guards against a new --json command shipping an object nobody can validate.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_JSON_SCHEMAS } from '../src/core/command-output-areas.js';
import { publishedDefinition } from '../src/core/json-schemas.js';
import { REPO_ROOT } from './helpers/cli.js';
import { commandTree, leaves, type Leaf } from './helpers/command-tree.js';

/** Commands that print JSON without a --json option (always JSON on stdout). */
const ALWAYS_JSON = new Set(['runnerd serve']);

const jsonCommands = (all: Leaf[]): string[] =>
  all.filter((l) => l.command.options.some((o) => o.long === '--json') || ALWAYS_JSON.has(l.path.join(' '))).map((l) => l.path.join(' '));

describe('every --json command has a published schema', async () => {
  const all = leaves(await commandTree());
  it('the walk sees the whole CLI', () => {
    expect(all.length).toBeGreaterThan(40);
    expect(jsonCommands(all).length).toBeGreaterThan(40);
  });
  it('each command with --json is in the table', () => {
    expect(jsonCommands(all).filter((c) => !(c in COMMAND_JSON_SCHEMAS))).toEqual([]);
  });
  it('the table names only commands that exist and print JSON', () => {
    const have = new Set(jsonCommands(all));
    expect(Object.keys(COMMAND_JSON_SCHEMAS).filter((c) => !have.has(c))).toEqual([]);
  });
  it('each stem is a published file with its one definition, and the error object is published too', () => {
    const stems = [...new Set([...Object.values(COMMAND_JSON_SCHEMAS).flat(), 'command-error'])];
    expect(stems.filter((s) => !existsSync(join(REPO_ROOT, 'docs', 'schemas', `${s}.schema.json`)))).toEqual([]);
    expect(stems.filter((s) => publishedDefinition(s) === undefined)).toEqual([]);
  });
  it('positive control: a command with --json taken out of the table is caught', () => {
    const { gate: _gate, ...rest } = COMMAND_JSON_SCHEMAS;
    expect(jsonCommands(all).filter((c) => !(c in rest))).toEqual(['gate']);
  });
});
