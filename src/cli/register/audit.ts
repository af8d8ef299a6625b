// Commands of the audit group (SPEC §4.1). Each action lazily imports its command module.
import type { Command } from 'commander';

export function register(_program: Command): void {
  // Registered by the audit domain.
}
