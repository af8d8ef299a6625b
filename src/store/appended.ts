// Which state directories this process appended to (docs/audit.md "Automatic checkpoints"): `mutate`
// notes a home once its transaction committed an entry; the command wiring takes the list after the
// command and brings each store's automatic checkpoint up to date. No imports: the CLI reads it
// without loading the store.
const homes = new Set<string>();

export function noteAppended(home: string): void {
  homes.add(home);
}

/** The homes appended to since the last call (and forget them). */
export function takeAppendedHomes(): string[] {
  const out = [...homes];
  homes.clear();
  return out;
}
