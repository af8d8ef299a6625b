// `governed writer register --unit U --writer-session S [--pid PID]` (docs/commands.md#what-each-command-guarantees; docs/state.md#writers-and-leases).
// The writer's host process identity (boot id, pid, start time from /proc/<pid>/stat) is read from
// outside and recorded with the session. Default pid: the parent of this `governed` process — the
// shell or agent that ran the command — because a CLI invocation's own pid dies with it.
//
// A writer must be independent of every reviewer (docs/runner.md "Reviewer independence"): the
// process must share this host's pid, user and mount namespaces (a sandboxed reviewer and all its
// descendants live in namespaces of their own), and must not descend from the runner of a live run
// (the outer bwrap, the lifeline watcher and the attestors do). Refused with
// `writer_process_not_independent`, nothing recorded. review-run checks the other direction: a run
// whose reviewer identity is a registered writer's ends ABORTED (`review_process_not_independent`).
import { fail } from '../core/errors.js';
import { ancestry, claimedRunners, closeStore, namespaceOutsideHost, openStore, readProcessIdentity, registerWriter, type ProcessIdentity } from '../store/index.js';

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
    const outside = namespaceOutsideHost(args.pid);
    if (outside !== null) fail('writer_process_not_independent', [`pid:${args.pid}`, outside]);
    const live = claimedRunners(store.db);
    if (live.length > 0) {
      const same = (a: ProcessIdentity, b: ProcessIdentity): boolean => a.bootId === b.bootId && a.pid === b.pid && a.startTime === b.startTime;
      for (const p of ancestry(args.pid)) {
        const run = live.find((r) => same(r.runner, p));
        if (run !== undefined) fail('writer_process_not_independent', [`pid:${args.pid}`, `run:${run.runId}`]);
      }
    }
    // The checks judged the process of `identity`: the pid must not have been recycled meanwhile.
    if (readProcessIdentity(args.pid).startTime !== identity.startTime) fail('process_not_found', [`pid:${args.pid}`]);
    registerWriter(store, { unit: args.unit, writerSession: args.writerSession, identity, now: args.now });
    return { unit: args.unit, writerSession: args.writerSession, ...identity };
  } finally {
    closeStore(store);
  }
}
