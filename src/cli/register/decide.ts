// Commands of the decide group (SPEC §4.1). Each action lazily imports its command module.
import type { Command } from 'commander';

export function register(_program: Command): void {
  // Registered by the decide domain.
}
