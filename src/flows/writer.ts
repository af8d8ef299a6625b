// `governed writer register --unit U --writer-session S [--pid PID]` (docs/commands.md#what-each-command-guarantees; docs/state.md#writers-and-leases).
// The writer's host process identity (boot id, pid, start time from /proc/<pid>/stat) is read from
// outside and recorded with the session. Default pid: the parent of this `governed` process — the
// shell or agent that ran the command — because a CLI invocation's own pid dies with it.
import { closeStore, openStore, readProcessIdentity, registerWriter } from '../store/index.js';

export interface WriterRegisterArgs {
  readonly home: string;
  readonly unit: string;
  readonly writerSession: string;
  readonly pid: number;
  readonly now: number;
}

export interface WriterRegisterResult {
  readonly unit: string;
  readonly writerSession: string;
  readonly bootId: string;
  readonly pid: number;
  readonly startTime: number;
}

export function registerWriterFlow(args: WriterRegisterArgs): WriterRegisterResult {
  const store = openStore(args.home);
  try {
    const identity = readProcessIdentity(args.pid);
    registerWriter(store, { unit: args.unit, writerSession: args.writerSession, identity, now: args.now });
    return { unit: args.unit, writerSession: args.writerSession, ...identity };
  } finally {
    closeStore(store);
  }
}
