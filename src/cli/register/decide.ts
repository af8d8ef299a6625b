// Commands of the decide group (docs/commands.md#what-each-command-guarantees, docs/decision.md#the-rules-in-short): `status` and `gate`. Each action lazily imports its
// command module, so `gate` loads only its lean path (docs/gate.md#6-the-cold-gate-path; bench/gate).
import { Option, type Command } from 'commander';
import { runAction } from '../run-action.js';
import { homeOption, jsonOption, runnerOption } from '../options.js';
import type { GateOptions } from '../commands/gate.js';

/** `status` (docs/gate.md#1-governed-status---unit-u---repo-dir---json---home-dir). */
function registerStatus(program: Command): void {
  program
    .command('status')
    .description(
      'Show the delivery state of a unit (docs/decision.md#the-rules-in-short) on its current state — the bound scope and the live workspace ' +
        '(fully re-hashed): per stage and slot the streak, what is counted and what is missing, what blocks a slot, open ' +
        'leases (expired but unswept ones included: they still block), standing vetoes, preservation (required, or the ' +
        "policy's stated waiver), and REVIEW_ONLY / RELEASE_ELIGIBLE with every reason as {code, ids}. Judged under the " +
        'pinned policy and trust root; every record the state relies on is re-verified. Read-only. --json prints one stable ' +
        'object (docs/gate.md). Exit 0 when it could report (the state is inside, REVIEW_ONLY included), 2 usage or no ' +
        'store or unreadable workspace, 4 tampered store or a relied-on record that does not verify, 6 untrusted key, ' +
        '7 unknown unit.',
    )
    .requiredOption('--unit <id>', 'unit id (UNIT-…)')
    .option('--repo <dir>', 'repository top level holding the workspace (default: the current directory)')
    .addOption(runnerOption())
    .addOption(homeOption())
    .addOption(jsonOption())
    .action(async (opts: { unit: string; repo?: string; home?: string; json?: boolean; runner?: string }) => {
      await runAction(opts, async () => {
        const s = (await import('../runnerd/client.js')).runnerSocket(opts.runner);
        if (s !== undefined) return (await import('../runnerd/remote-commands.js')).remoteStatus(s, opts);
        return (await import('../commands/status.js')).statusCommand(opts);
      });
    });
}

/** `gate` (docs/gate.md#2-governed-gate). */
function registerGate(program: Command): void {
  program
    .command('gate')
    .description(
      'Deploy gate (docs/gate.md#2-governed-gate): exit 0 only when the unit is RELEASE_ELIGIBLE for exactly the commit being shipped. ' +
        'All three anchors come from the deploy side and are required: --trust (the trust root the deploy environment ' +
        'holds, JSON or YAML), --policy-digest (the policy it expects; the pinned policy must match) and --subject (the full ' +
        'commit id about to ship). The commit\'s manifest is computed from git objects (empty environment, explicit GIT_DIR, ' +
        'replace objects off) and is the workspace the decision is computed on; every receipt and authority record the ' +
        'decision relies on is re-verified under --trust at its log position. --json prints ONE decision object, also on ' +
        'failure (docs/gate.md). --attest FILE writes the decision as a SLSA Verification Summary Attestation signed by the ' +
        "policy's gate credential through its pinned attestor — <attestors>/gate.json and gate.mjs (else the shipped " +
        'attestors/ed25519-file.mjs), as review-run finds its attestors; only the policy\'s digests count. --export DIR (a ' +
        'directory that must not exist) writes the deploy record of a reached decision (RELEASE_ELIGIBLE or REVIEW_ONLY) for ' +
        'archiving: decision.json, receipts/ and authority/ (the exact envelopes re-verified), trust.json|yaml (the --trust ' +
        'bytes), vsa.json (with --attest), manifest.json; `governed verify DIR/receipts/*.json --trust DIR/trust.json` checks ' +
        'it anywhere. It is complete or absent, and a record that could not be written makes the gate fail. Read-only store. ' +
        'Exit 0 RELEASE_ELIGIBLE, 3 REVIEW_ONLY (reasons inside), 2 usage (missing anchor, malformed digest or subject, no ' +
        'store, --attest file or --export directory already there or not writable), 4 verification (policy digest differs, tampered receipt or row, subject is not the reviewed content), ' +
        '5 expired trust root, 6 untrusted key or attestor, 7 unknown unit, no receipt, or no work-stage review of the ' +
        'subject; precedence 1 > 4 > 6 > 5 > 8 > 7 > 2 > 3. Never 0 on an error. With --runner SOCKET (separated mode, ' +
        'docs/runnerd.md#the-deploy-side-gate---runner) the store judged is a private copy the daemon sends for a unit of ' +
        'the calling uid; the anchors, the subject\'s repository and every check stay on this side. The copy must extend the ' +
        "daemon's newest signed checkpoint sent with it and each --runner-checkpoint, verified under --trust (runnerd_store_copy_stale, tlog_root_mismatch, 4).",
    )
    // Required, but checked by the command (not by commander) so --json still prints the decision object.
    .addOption(new Option('--unit <id>', 'unit id (UNIT-…) [required]'))
    .addOption(new Option('--trust <file>', 'deploy-side trust root, JSON or YAML (docs/policy.md#policy-and-trust-root) [required]'))
    .addOption(new Option('--policy-digest <digest>', 'expected policy digest, sha256:<64 hex> [required]'))
    .addOption(new Option('--subject <commit>', 'full hex id of the commit being shipped [required]'))
    .option('--repo <dir>', 'repository holding the subject commit (default: the current directory)')
    .option('--attest <file>', 'write the signed decision (DSSE envelope of a SLSA VSA) to this new file')
    .option('--attestors <dir>', 'where gate.json (and an optional gate.mjs) live (default: $GOVERNED_ATTESTORS_DIR, else <home>/attestors)')
    .option('--attestor-config <file>', "the gate attestor's config file instead (its sha256 must be in credentials.gate.attestor_config_sha256)")
    .option('--attestor <file>', "the gate attestor program instead (its sha256 must be in credentials.gate.attestor_sha256)")
    .option(
      '--export <dir>',
      'write the deploy record of this decision to this new directory: decision.json, the relied-on receipts and authority ' +
        'records (exact signed bytes), the --trust file, the VSA (with --attest) and manifest.json (sha256 of every file); ' +
        'all or nothing, never exit 0 without it',
    )
    .addOption(runnerOption())
    .option(
      '--runner-checkpoint <file...>',
      "with --runner: signed checkpoints of the daemon's log this side kept (e.g. from an earlier gate's copy); the copy must extend each, " +
        'else runnerd_store_copy_stale (docs/runnerd.md#checkpoints)',
    )
    .option(
      '--runner-checkpoint-out <file>',
      'with --runner: write the newest verified checkpoint the copy extends to this new file, to pass as --runner-checkpoint next time',
    )
    .addOption(homeOption())
    .addOption(jsonOption())
    .action(async (opts: GateOptions) => {
      await runAction(opts, async () => {
        const remote = (await import('../runnerd/client.js')).runnerSocket(opts.runner) === undefined ? undefined : (await import('../commands/gate-remote.js')).storeCopySource(opts);
        return (await import('../commands/gate.js')).gateCommand(opts, remote);
      });
    });
}

export function register(program: Command): void {
  registerStatus(program);
  registerGate(program);
}
