// When an automatic checkpoint is due (docs/audit.md "Automatic checkpoints"): a function of the
// policy's `tlog_checkpoints` and of the log alone, so the writer that appends and any later reader
// (the gate, an auditor) reach the same answer. "Every T" is measured in log time: a checkpoint is
// due once the newest entry is T or more later than the newest entry the newest checkpoint covers
// (with no checkpoint yet: than the first entry), so it does not become due while nothing is
// appended. "Every N" is due once the log holds N or more entries beyond the newest checkpoint. Pure.
import { parseDurationSeconds } from './duration.js';

export interface TlogCheckpointPolicy {
  readonly every_entries?: number | undefined;
  readonly every?: string | undefined;
}

export interface LogExtent {
  /** Entries in the log. */
  readonly entries: number;
  /** Time of the newest entry (seconds). */
  readonly headTime: number;
}

export interface CoveredExtent {
  /** The newest checkpoint's tree size (0: none yet). */
  readonly size: number;
  /** Time of entry `size` (with none yet: of entry 1). */
  readonly time: number;
}

export function checkpointDue(policy: TlogCheckpointPolicy, log: LogExtent, newest: CoveredExtent): boolean {
  if (log.entries <= newest.size) return false;
  if (policy.every_entries !== undefined && log.entries - newest.size >= policy.every_entries) return true;
  if (policy.every !== undefined && log.headTime - newest.time >= parseDurationSeconds(policy.every, 'tlog_checkpoints.every')) return true;
  return false;
}
