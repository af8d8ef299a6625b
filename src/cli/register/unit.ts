// Units, writers and leases (docs/commands.md#what-each-command-guarantees): `unit create`, `unit bind`, `writer register`,
// `lease acquire | release | list`. Each action lazily imports its command module.
import type { Command } from 'commander';
import { LEASE_DEFAULT_TTL } from '../../core/limits.js';
import { runAction } from '../run-action.js';
import { homeOption, jsonOption, runnerOption } from '../options.js';

/** `unit create` (docs/contract.md#the-request-contract). */
function registerUnitCreate(unit: Command): void {
  unit
    .command('create')
    .description(
      'Register a unit: resolve --baseline once to a commit id and tree id (hardened git, never re-resolved), parse the ' +
        'request contract strictly, validate every rule of docs/contract.md#validation-rules against the source bytes of the baseline tree, and bind ' +
        'scope version 1 (exact contract bytes and digests) in one transaction. Prints the unit id. ' +
        'Exit 0 created, 2 invalid contract/baseline/input (each rule its own code), 4 tampered store, 8 refused by state.',
    )
    .requiredOption('--contract <file>', 'request contract (YAML or JSON, docs/contract.md#the-request-contract)')
    .requiredOption('--baseline <commit>', 'baseline revision (resolved once to a full commit and tree id)')
    .option('--repo <dir>', 'repository top level (default: the current directory)')
    .addOption(runnerOption())
    .addOption(homeOption())
    .addOption(jsonOption())
    .action(async (opts: { contract: string; baseline: string; repo?: string; home?: string; json?: boolean; runner?: string }) => {
      await runAction(opts, async () => {
        const s = (await import('../runnerd/client.js')).runnerSocket(opts.runner);
        if (s !== undefined) return (await import('../runnerd/remote-commands.js')).remoteUnitCreate(s, opts);
        return (await import('../commands/unit.js')).unitCreateCommand(opts);
      });
    });
}

/** `unit bind` (docs/contract.md#scope-history). */
function registerUnitBind(unit: Command): void {
  unit
    .command('bind')
    .description(
      'Bind the next scope version of a unit (docs/contract.md#scope-history). Pure additions and progress (active→done) bind freely; any ' +
        'narrowing needs signed authority records (--authority), each cited in the new contract, covering together exactly ' +
        'the narrowed IDs, consumed once at this log position. Directives, sources, authorities and tombstones never ' +
        'disappear. Every bind increments work_revision, and scope_epoch when the scope changed. --dry-run prints the diff ' +
        'and the state digests an authority request needs, and records nothing. ' +
        'Exit 0 bound, 2 invalid contract, 4 authority or history mismatch, 5 authority expired or replayed, 7 unknown unit ' +
        'or record, 8 narrowing without authority or a concurrent bind.',
    )
    .requiredOption('--unit <id>', 'unit id (UNIT-…)')
    .requiredOption('--contract <file>', 'the new request contract (YAML or JSON)')
    .option('--authority <record...>', 'authority record ids (REC-…) for the narrowing of this bind')
    .option('--dry-run', 'compute and print the diff and state digests; record nothing')
    .option('--repo <dir>', 'repository top level (default: the current directory)')
    .addOption(runnerOption())
    .addOption(homeOption())
    .addOption(jsonOption())
    .action(
      async (opts: { unit: string; contract: string; authority?: string[]; dryRun?: boolean; repo?: string; home?: string; json?: boolean; runner?: string }) => {
        await runAction(opts, async () => {
          const s = (await import('../runnerd/client.js')).runnerSocket(opts.runner);
          if (s !== undefined) return (await import('../runnerd/remote-commands.js')).remoteUnitBind(s, opts);
          return (await import('../commands/unit.js')).unitBindCommand(opts);
        });
      },
    );
}

/** `unit dismiss` and `unit dismiss-veto` (docs/authority.md#dismissals-unit-dismiss-and-unit-dismiss-veto). */
function registerUnitDismissals(unit: Command): void {
  for (const [name, operation, what, ids] of [
    [
      'dismiss',
      'dismiss',
      'Lift the block of DIRTY receipts or ABORTED runs of a unit (docs/decision.md#the-rules-in-short) by consuming a signed `dismiss` authority ' +
        'record that names them (receipt ids sha256:…, run ids RUN-…), all judged on one reviewed content (its state_before: the planning-state digest for planning, else the content digest).',
      'sha256:<receipt>,RUN-<run>',
    ],
    [
      'dismiss-veto',
      'dismiss_veto',
      'Lift veto findings of a receipt of a unit (docs/decision.md#6-vetoes) by consuming a signed `dismiss_veto` authority record that ' +
        'names the receipt and every ref of each finding it dismisses; its state_before is the reviewed content the receipt was judged on.',
      'sha256:<receipt>,DIR-1,TGT-1',
    ],
  ] as const) {
    unit
      .command(name)
      .description(
        `${what} The record is judged once, at this log position (signature, operation, unit, IDs, state digests, not ` +
          'consumed, not expired) and consumed; the decision rules then count it (docs/decision.md). --dry-run --ids ' +
          'records nothing and prints the state_before an `authority request` for those IDs needs. ' +
          'Exit 0 consumed (or possible), 2 usage, 4 record or targets do not fit (wrong operation, unit, IDs, state; not ' +
          'dismissable), 5 record expired or already consumed, 6 untrusted key, 7 unknown unit or record.',
      )
      .addHelpText(
        'after',
        '\nExample:\n' +
          `  governed unit ${name} --unit UNIT-… --dry-run --ids ${ids}      # prints state_before\n` +
          `  governed authority request --operation ${operation} --unit UNIT-… --ids ${ids} --state-before sha256:… --out r.json\n` +
          '  governed authority sign --request r.json --key authority.key --out r.record.json   # where the key lives\n' +
          '  governed authority record --record r.record.json                                    # prints REC-…\n' +
          `  governed unit ${name} --unit UNIT-… --authority REC-…\n` +
          `  governed unit ${name} --runner /run/governed/runnerd.sock --unit UNIT-… --authority REC-…   # separated mode`,
      )
      .requiredOption('--unit <id>', 'unit id (UNIT-…)')
      .option('--authority <record>', `the recorded ${operation} authority record (REC-…) to consume`)
      .option('--ids <list>', 'with --dry-run: comma-separated IDs the record would name')
      .option('--dry-run', 'check the IDs and print the state_before digest; record nothing')
      .addOption(runnerOption())
      .addOption(homeOption())
      .addOption(jsonOption())
      .action(async (opts: { unit: string; authority?: string; ids?: string; dryRun?: boolean; home?: string; json?: boolean; runner?: string }) => {
        await runAction(opts, async () => {
          const s = (await import('../runnerd/client.js')).runnerSocket(opts.runner);
          if (s !== undefined) return (await import('../runnerd/remote-authority.js')).remoteUnitDismiss(s, operation, opts);
          return (await import('../commands/unit-dismiss.js')).unitDismissCommand(operation, opts);
        });
      });
  }
}

/** `writer register` (docs/state.md#writers-and-leases). */
function registerWriter(program: Command): void {
  const writer = program.command('writer').description('Writer sessions (docs/overview.md#words).');
  writer
    .command('register')
    .description(
      'Record a writer session of a unit with the identity of its host process (boot id, pid, start time from ' +
        '/proc/<pid>/stat). Default --pid: the parent of this governed process (the shell or agent that ran it). ' +
        'Exit 0 registered, 2 invalid session id or no such process, 7 unknown unit, 8 session or process already registered.',
    )
    .requiredOption('--unit <id>', 'unit id (UNIT-…)')
    .requiredOption('--writer-session <id>', 'writer session id ([A-Za-z0-9][A-Za-z0-9._:@-]{0,127})')
    .option('--pid <pid>', 'host process of the writer (default: parent process)')
    .addOption(runnerOption())
    .addOption(homeOption())
    .addOption(jsonOption())
    .action(async (opts: { unit: string; writerSession: string; pid?: string; home?: string; json?: boolean; runner?: string }) => {
      await runAction(opts, async () => {
        const s = (await import('../runnerd/client.js')).runnerSocket(opts.runner);
        if (s !== undefined) return (await import('../runnerd/remote-commands.js')).remoteWriterRegister(s, opts);
        return (await import('../commands/writer.js')).writerRegisterCommand(opts);
      });
    });
}

/** `lease acquire | release | list` (docs/state.md#writers-and-leases). */
function registerLease(program: Command): void {
  const lease = program.command('lease').description('Mutation leases: "I am changing the workspace now" (docs/overview.md#words).');
  lease
    .command('acquire')
    .description(
      'Acquire the mutation lease of a unit for a registered writer session. While any lease is active no review challenge ' +
        'is issued. Expired leases are swept first (logged). ' +
        'Exit 0 acquired, 2 invalid TTL or session, 7 unknown unit, 8 writer not registered or lease already held.',
    )
    .requiredOption('--unit <id>', 'unit id (UNIT-…)')
    .requiredOption('--writer-session <id>', 'registered writer session')
    .option('--ttl <duration>', 'time to live, e.g. 30m, 2h, 1d (max 7d)', LEASE_DEFAULT_TTL)
    .addOption(runnerOption())
    .addOption(homeOption())
    .addOption(jsonOption())
    .action(async (opts: { unit: string; writerSession: string; ttl: string; home?: string; json?: boolean; runner?: string }) => {
      await runAction(opts, async () => {
        const s = (await import('../runnerd/client.js')).runnerSocket(opts.runner);
        if (s !== undefined) return (await import('../runnerd/remote-commands.js')).remoteLeaseAcquire(s, opts);
        return (await import('../commands/lease.js')).leaseAcquireCommand(opts);
      });
    });
  lease
    .command('release')
    .description(
      'Release a lease; only the holder session may, only while it is active. Increments the unit work_revision (docs/contract.md#the-states-a-receipt-is-judged-against). ' +
        'Exit 0 released, 2 unknown lease, 5 lease expired, 8 not the holder or already released.',
    )
    .requiredOption('--lease <id>', 'lease id (LSE-…)')
    .requiredOption('--writer-session <id>', 'the holder session')
    .addOption(runnerOption())
    .addOption(homeOption())
    .addOption(jsonOption())
    .action(async (opts: { lease: string; writerSession: string; home?: string; json?: boolean; runner?: string }) => {
      await runAction(opts, async () => {
        const s = (await import('../runnerd/client.js')).runnerSocket(opts.runner);
        if (s !== undefined) return (await import('../runnerd/remote-commands.js')).remoteLeaseRelease(s, opts);
        return (await import('../commands/lease.js')).leaseReleaseCommand(opts);
      });
    });
  lease
    .command('list')
    .description('List leases (of one unit with --unit), each active, released or expired as of now. Read-only. Exit 0, 7 unknown unit.')
    .option('--unit <id>', 'only this unit')
    .addOption(runnerOption())
    .addOption(homeOption())
    .addOption(jsonOption())
    .action(async (opts: { unit?: string; home?: string; json?: boolean; runner?: string }) => {
      await runAction(opts, async () => {
        const s = (await import('../runnerd/client.js')).runnerSocket(opts.runner);
        if (s !== undefined) return (await import('../runnerd/remote-commands.js')).remoteLeaseList(s, opts);
        return (await import('../commands/lease.js')).leaseListCommand(opts);
      });
    });
}

export function register(program: Command): void {
  const unit = program.command('unit').description('Units of work and their request contracts (docs/contract.md#the-request-contract).');
  registerUnitCreate(unit);
  registerUnitBind(unit);
  registerUnitDismissals(unit);
  registerWriter(program);
  registerLease(program);
}
