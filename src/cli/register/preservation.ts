// Preservation (docs/preservation.md): `preservation set | correct | check`. Each action lazily
// imports its command module.
import type { Command } from 'commander';
import { runAction } from '../run-action.js';
import { homeOption, jsonOption, runnerOption } from '../options.js';

/** `preservation set` (docs/preservation.md#binding-a-contract). */
function registerSet(pres: Command): void {
  pres
    .command('set')
    .description(
      "Bind a unit's preservation contract (docs/preservation.md#binding-a-contract): strict schema, the unit's baseline " +
        'commit, one disposition per surface; a destructive surface (replace|remove|disable|redirect|migrate) needs its signed ' +
        'record (--authority) naming the surface with state_after = its expected_diff_digest; narrowing a bound contract needs ' +
        'one `authorize` record naming exactly the narrowed ids. The incident history is assembled from the log and bound with ' +
        'it. Logged; part of the planning state. Exit 0 bound, 2 invalid contract, 4 authority mismatch, 5 authority expired ' +
        'or replayed, 7 unknown unit or record, 8 refused by state (baseline, narrowing, missing authority, history).',
    )
    .addHelpText(
      'after',
      '\nExample:\n  governed preservation set --unit UNIT-… --contract preservation.yaml\n' +
        '  governed preservation set --unit UNIT-… --contract preservation.yaml --authority REC-…   # a destructive surface\n' +
        '  governed preservation set --runner /run/governed/runnerd.sock --unit UNIT-… --contract preservation.yaml   # separated mode\n',
    )
    .requiredOption('--unit <id>', 'unit id (UNIT-…)')
    .requiredOption('--contract <file>', 'preservation contract (YAML or JSON)')
    .option('--authority <record...>', 'authority record ids (REC-…) for destructive surfaces or narrowing')
    .option('--no-incident-history', "bind 'none' as the incident history (refused when the log holds an incident)")
    .addOption(homeOption())
    .addOption(runnerOption())
    .addOption(jsonOption())
    .action(async (opts: { unit: string; contract: string; authority?: string[]; incidentHistory?: boolean; home?: string; json?: boolean; runner?: string }) => {
      await runAction(opts, async () => {
        const s = (await import('../runnerd/client.js')).runnerSocket(opts.runner);
        if (s !== undefined) return (await import('../runnerd/remote-preservation.js')).remotePreservationSet(s, opts);
        return (await import('../commands/preservation.js')).preservationSetCommand(opts);
      });
    });
}

/** `preservation correct` (docs/preservation.md#incident-history). */
function registerCorrect(pres: Command): void {
  pres
    .command('correct')
    .description(
      "Append a writer's correction (a UTF-8 text file) to the unit's incident history and re-bind the history with the " +
        'bound preservation contract (docs/preservation.md#incident-history). Logged; the planning state changes. ' +
        'Exit 0 recorded, 2 invalid file, 7 unknown unit, 8 no preservation contract bound.',
    )
    .addHelpText('after', '\nExample:\n  governed preservation correct --unit UNIT-… --file correction.md\n')
    .requiredOption('--unit <id>', 'unit id (UNIT-…)')
    .requiredOption('--file <file>', 'the correction text')
    .addOption(homeOption())
    .addOption(jsonOption())
    .action(async (opts: { unit: string; file: string; home?: string; json?: boolean }) => {
      await runAction(opts, async () => (await import('../commands/preservation.js')).preservationCorrectCommand(opts));
    });
}

/** `preservation probe` (docs/preservation.md#probes). */
function registerProbe(pres: Command): void {
  pres
    .command('probe')
    .description(
      'Run the real entry of each surface (or --surface S) in the check sandbox on a sealed snapshot of the baseline commit ' +
        'or of the current workspace, with the allowlisted adapter (--adapter, its sha256 on preservation_adapters.sha256); ' +
        'for the baseline also derive the surface inventory. Each result is signed by the probe credential (DSSE, attestor ' +
        'kind probe) and recorded. No command accepts probe JSON from anyone else. Exit 0 recorded, 2 usage or not ' +
        'configured, 4 snapshot altered, 6 adapter not allowlisted or untrusted key, 8 no contract bound, 9 adapter failed.',
    )
    .addHelpText(
      'after',
      '\nExample:\n  governed preservation probe --unit UNIT-… --phase baseline --adapter runner/preservation/node-adapter.mjs\n' +
        '  governed preservation probe --runner /run/governed/runnerd.sock --unit UNIT-… --phase current --adapter node-adapter.mjs   # separated mode: the daemon seals, runs and signs (docs/runnerd.md#probes-through-the-daemon)\n',
    )
    .requiredOption('--unit <id>', 'unit id (UNIT-…)')
    .requiredOption('--phase <phase>', 'baseline | current')
    .requiredOption('--adapter <file>', 'the adapter program (allowlisted by sha256 in the policy)')
    .option('--surface <id>', 'probe only this surface')
    .option('--attestors <dir>', 'directory of probe.json (and probe.mjs) (default: <home>/attestors)')
    .option('--repo <dir>', 'repository top level (default: the current directory)')
    .addOption(homeOption())
    .addOption(runnerOption())
    .addOption(jsonOption())
    .action(async (opts: { unit: string; phase: string; adapter: string; surface?: string; attestors?: string; repo?: string; home?: string; json?: boolean; runner?: string }) => {
      await runAction(opts, async () => {
        const s = (await import('../runnerd/client.js')).runnerSocket(opts.runner);
        if (s !== undefined) return (await import('../runnerd/remote-preservation.js')).remotePreservationProbe(s, opts);
        return (await import('../commands/preservation.js')).preservationProbeCommand(opts);
      });
    });
}

/** `preservation vendor-attest` (docs/preservation.md#vendor-sources). */
function registerVendorAttest(pres: Command): void {
  pres
    .command('vendor-attest')
    .description(
      "Verify vendor sources against their origin repositories (a clone or mirror given here): the tree digest is computed " +
        "from the origin's own objects at the contract's commit and must equal the contract's tree_digest; the product itself " +
        '(or a copy of it) is refused as an origin. Records the verification (the delivery state counts it). Exit 0 recorded, ' +
        '2 usage, 4 digest mismatch or local copy, 7 unknown unit, 8 no contract bound.',
    )
    .addHelpText('after', '\nExample:\n  governed preservation vendor-attest --unit UNIT-… --origin VND-lib=/src/lib-origin\n')
    .requiredOption('--unit <id>', 'unit id (UNIT-…)')
    .requiredOption('--origin <vendor=dir...>', 'origin repository of a vendor source')
    .option('--repo <dir>', 'repository top level (default: the current directory)')
    .addOption(homeOption())
    .addOption(jsonOption())
    .action(async (opts: { unit: string; origin: string[]; repo?: string; home?: string; json?: boolean }) => {
      await runAction(opts, async () => (await import('../commands/preservation.js')).preservationVendorAttestCommand(opts));
    });
}

/** `preservation check` (docs/preservation.md#rules). */
function registerCheck(pres: Command): void {
  pres
    .command('check')
    .description(
      'Judge the bound preservation contract against the baseline and the workspace (docs/preservation.md#rules) and report ' +
        'per surface: disposition, real diff digest, probes, violations. --origin VND=DIR gives the origin repository of a ' +
        'vendor source, whose tree digest is computed at check time. Records nothing. Exit 0 satisfied, 3 not satisfied ' +
        '(reasons), 4 tampered store or history, 7 unknown unit.',
    )
    .addHelpText('after', '\nExample:\n  governed preservation check --unit UNIT-… --json\n  governed preservation check --unit UNIT-… --origin VND-lib=/src/lib-origin\n')
    .requiredOption('--unit <id>', 'unit id (UNIT-…)')
    .option('--origin <vendor=dir...>', 'origin repository (a clone or mirror) of a vendor source')
    .option('--repo <dir>', 'repository top level (default: the current directory)')
    .addOption(homeOption())
    .addOption(jsonOption())
    .action(async (opts: { unit: string; origin?: string[]; repo?: string; home?: string; json?: boolean }) => {
      await runAction(opts, async () => (await import('../commands/preservation.js')).preservationCheckCommand(opts));
    });
}

export function register(program: Command): void {
  const pres = program.command('preservation').description('Preservation contracts, incident history and the preservation check (docs/preservation.md).');
  registerSet(pres);
  registerCorrect(pres);
  registerProbe(pres);
  registerVendorAttest(pres);
  registerCheck(pres);
}
