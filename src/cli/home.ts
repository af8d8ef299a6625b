// The state directory rule (docs/commands.md#common-behaviour): --home, else $GOVERNED_HOME, else ./.governed. Its own module,
// free of commander, so the commander-free entries (gate, review-run) share it with every command.
import { resolve } from 'node:path';

export function resolveHome(home: string | undefined): string {
  return resolve(home ?? process.env.GOVERNED_HOME ?? '.governed');
}
