// The CLI's whole command tree as src/cli/main.ts builds it: every register module main.ts imports
// (read from its source, so a group added there is walked here without a second list), each
// registering into one commander program.
import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './cli.js';

export function registerGroupNames(): string[] {
  const main = readFileSync(join(REPO_ROOT, 'src', 'cli', 'main.ts'), 'utf8');
  return [...main.matchAll(/import\('\.\/register\/([a-z-]+)\.js'\)/g)].map((m) => m[1] as string);
}

export async function commandTree(): Promise<Command> {
  const program = new Command();
  program.name('governed');
  for (const g of registerGroupNames()) ((await import(`../../src/cli/register/${g}.ts`)) as { register(p: Command): void }).register(program);
  return program;
}

export interface Leaf {
  readonly path: string[];
  readonly command: Command;
}

export function leaves(program: Command): Leaf[] {
  const out: Leaf[] = [];
  const walk = (c: Command, path: string[]): void => {
    if (c.commands.length === 0 && path.length > 0) out.push({ path, command: c });
    for (const s of c.commands) walk(s, [...path, s.name()]);
  };
  walk(program, []);
  return out;
}
