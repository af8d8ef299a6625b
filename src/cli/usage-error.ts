// What a usage error names (docs/commands.md#usage-errors): the declared option or argument that is
// missing or refused, else the command whose usage was wrong, and where its help is. Only names
// the command tree declares are ever returned — never a word of the input (an unknown option, a
// stray argument, a rejected value is not echoed: docs/threat-model.md#rules-that-hold-everywhere).

export interface UsageNode {
  readonly commands: readonly UsageNode[];
  readonly options: readonly { readonly long?: string; readonly short?: string }[];
  readonly registeredArguments: readonly { name(): string }[];
  name(): string;
  aliases(): string[];
}

/** The command `args` reach: program → each word that names a subcommand, up to the first leaf. */
export function commandReached(program: UsageNode, args: readonly string[]): { node: UsageNode; path: string[] } {
  let node = program;
  const path: string[] = [];
  for (const word of args) {
    if (node.commands.length === 0) break;
    if (word.startsWith('-')) continue;
    const next = node.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (next === undefined) break;
    node = next;
    path.push(next.name());
  }
  return { node, path };
}

/**
 * The ids of a usage error from commander's message about `node`: each option flag or argument
 * name the message cites that `node` (or the program, for the global flags) declares, in order;
 * none when the message cites only input (an unknown option, an excess argument).
 */
export function declaredNamesIn(message: string, node: UsageNode, program: UsageNode): string[] {
  const declared = new Set<string>();
  for (const c of [node, program]) {
    for (const o of c.options) for (const f of [o.long, o.short]) if (f !== undefined) declared.add(f);
  }
  const args = new Set(node.registeredArguments.map((a) => a.name()));
  const out: string[] = [];
  // Commander quotes an option as `option '--flag <value>'` and an argument as `argument 'name'`;
  // the quoted rejected value of `argument 'X' is invalid` is input and never matched as a name.
  for (const m of message.matchAll(/option '(-{1,2}[A-Za-z][A-Za-z0-9-]*)/g)) {
    const flag = m[1] as string;
    if (declared.has(flag) && !out.includes(flag)) out.push(flag);
  }
  for (const m of message.matchAll(/missing required argument '([A-Za-z][A-Za-z0-9_-]*)'/g)) {
    const name = m[1] as string;
    if (args.has(name) && !out.includes(`<${name}>`)) out.push(`<${name}>`);
  }
  return out;
}

/** The declared option commander suggests for an unknown one (its "Did you mean --x?"), if it is declared. */
export function suggestionIn(message: string, node: UsageNode, program: UsageNode): string | null {
  const m = /\(Did you mean (-{1,2}[A-Za-z][A-Za-z0-9-]*)\?\)/.exec(message);
  if (m === null) return null;
  const flag = m[1] as string;
  return [node, program].some((c) => c.options.some((o) => o.long === flag || o.short === flag)) ? flag : null;
}
