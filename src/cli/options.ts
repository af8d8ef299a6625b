// Options every command shares (docs/commands.md#common-behaviour): --json and --home.
import { Option } from 'commander';

export const jsonOption = (): Option => new Option('--json', 'print one JSON object on stdout (also on failure)');
export const homeOption = (): Option =>
  new Option('--home <dir>', 'state directory (default: $GOVERNED_HOME, else ./.governed)');

/** The state directory: --home, else GOVERNED_HOME, else ./.governed (docs/commands.md#common-behaviour). */
export { resolveHome } from './home.js';
