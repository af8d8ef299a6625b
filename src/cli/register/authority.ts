// Commands of the authority group (docs/commands.md#what-each-command-guarantees, docs/authority.md#human-authority-records, docs/policy.md#policy-and-trust-root): `authority request|sign|record`,
// `policy update`, `trust update`. Each action lazily imports its command module.
import type { Command } from 'commander';
import { runAction } from '../run-action.js';
import { homeOption, jsonOption, runnerOption } from '../options.js';

const OPERATIONS =
  'authorize, add, replace, supersede, defer, abandon (scope); remove, disable, redirect, migrate (destructive dispositions); ' +
  'dismiss, dismiss_veto; policy_update, trust_update';

/** `authority request` (docs/authority.md#the-flow). */
function registerRequest(authority: Command): void {
  authority
    .command('request')
    .description(
      'Issue a one-time authority request: stores a nonce (logged) and writes the presentation (the exact ' +
        'canonical in-toto statement to sign plus a human-readable rendering) to FILE, never overwriting. ' +
        `Operations: ${OPERATIONS}. Unit operations need --unit and --ids; policy/trust updates take neither and ` +
        'default --state-before to the pinned digest. State digests per operation: docs/authority.md. ' +
        'Exit 0 written, 2 invalid request or file exists, 7 unknown unit.',
    )
    .requiredOption('--operation <op>', 'the decision to ask for')
    .option('--ids <list>', 'comma-separated IDs the decision covers, exactly (contract IDs, FROM>TO relations, receipt ids)')
    .option('--unit <unit>', 'the unit (UNIT-<32 hex>) for unit operations')
    .option('--state-before <digest>', 'sha256:<hex> of the state the decision starts from')
    .option('--state-after <digest>', 'sha256:<hex> of the state the decision approves')
    .option('--document <file>', 'policy_update / trust_update: the new policy or trust root (its digest becomes --state-after)')
    .option('--contract <file>', 'scope operations: the contract to be bound (its authority scope digest becomes --state-after)')
    .option('--ttl <duration>', 'how long the request stays valid, 1s..7d (default 1h)')
    .requiredOption('--out <file>', 'where to write the presentation (must not exist)')
    .addOption(runnerOption())
    .addOption(homeOption())
    .addOption(jsonOption())
    .action(async (opts: import('../commands/authority-request.js').AuthorityRequestCliOptions & { json?: boolean; runner?: string }) => {
      await runAction(opts, async () => {
        const s = (await import('../runnerd/client.js')).runnerSocket(opts.runner);
        if (s !== undefined) return (await import('../runnerd/remote-authority.js')).remoteAuthorityRequest(s, opts);
        return (await import('../commands/authority-request.js')).authorityRequestCommand(opts);
      });
    });
}

/** `authority sign` (docs/authority.md#what-the-terminal-prompt-proves-and-what-it-does-not). */
function registerSign(authority: Command): void {
  authority
    .command('sign')
    .description(
      'Sign an authority presentation where the authority key lives. Re-renders the statement from the bytes to ' +
        'sign (a presentation whose stored rendering differs is refused), shows it on the controlling terminal ' +
        '(/dev/tty) and signs only after the confirmation code is typed there; stdin pipes do not count. The key ' +
        'must be a PKCS#8 Ed25519 file with no group/other permission bits. Writes the DSSE envelope to FILE. ' +
        'Exit 0 signed, 2 malformed presentation / no terminal / file exists, 4 rendering mismatch or exposed key, ' +
        '5 expired request, 8 not confirmed.',
    )
    .requiredOption('--request <file>', 'the presentation written by `authority request`')
    .requiredOption('--key <file>', 'the authority private key (PKCS#8 PEM, mode 0600)')
    .requiredOption('--out <file>', 'where to write the signed record (must not exist)')
    .addOption(jsonOption())
    .action(async (opts: { request: string; key: string; out: string; json?: boolean }) => {
      await runAction(opts, async () => (await import('../commands/authority-sign.js')).authoritySignCommand(opts));
    });
}

/** `authority record` (docs/authority.md#record-format). */
function registerRecord(authority: Command): void {
  authority
    .command('record')
    .description(
      'Verify a signed authority record and store its exact bytes (logged): one signature by a key with the ' +
        'authority role in the pinned trust root, valid now; the request id and nonce issued by this store, unused ' +
        'and unexpired; the statement exactly as issued. Prints the record id (REC-<24 hex>) to cite. ' +
        'Exit 0 recorded, 4 invalid or edited record / statement differs from the request, 5 expired / unknown or ' +
        'reused nonce / trust root expired, 6 unknown, revoked or wrong-role key, 2 usage.',
    )
    .requiredOption('--record <file>', 'the signed record (DSSE envelope JSON)')
    .addOption(runnerOption())
    .addOption(homeOption())
    .addOption(jsonOption())
    .action(async (opts: { record: string; home?: string; json?: boolean; runner?: string }) => {
      await runAction(opts, async () => {
        const s = (await import('../runnerd/client.js')).runnerSocket(opts.runner);
        if (s !== undefined) return (await import('../runnerd/remote-authority.js')).remoteAuthorityRecord(s, opts);
        return (await import('../commands/authority-record.js')).authorityRecordCommand(opts);
      });
    });
}

/** `policy update` and `trust update` (docs/authority.md#policy-and-trust-updates). */
function registerPinUpdate(program: Command, group: string, kind: 'policy' | 'trust', fileFlag: string, what: string): void {
  program
    .command(group)
    .description(`The pinned ${what} (docs/policy.md#policy-and-trust-root).`)
    .command('update')
    .description(
      `Replace the pinned ${what} (logged). Needs a recorded \`${kind}_update\` authority record whose state ` +
        `before is the pinned digest and whose state after is the new document's digest; it is consumed here, ` +
        `judged under the trust root in force before the update${kind === 'trust' ? ' (a new trust root cannot authorise itself)' : ''}. ` +
        'Every streak restarts: receipts before the update no longer count. ' +
        'Exit 0 replaced, 2 invalid document, 4 record does not name these digests, 5 record expired or already ' +
        'consumed, 6 key no longer trusted, 7 unknown record.',
    )
    .requiredOption(`--${fileFlag} <file>`, `the new ${what} (JSON or YAML)`)
    .requiredOption('--authority <record>', `the recorded ${kind}_update authority record id (REC-<24 hex>)`)
    .addOption(runnerOption())
    .addOption(homeOption())
    .addOption(jsonOption())
    .action(async (opts: Record<string, string | boolean | undefined>) => {
      const args = { file: String(opts[fileFlag]), authority: String(opts.authority), home: opts.home as string | undefined };
      await runAction(opts, async () => {
        const s = (await import('../runnerd/client.js')).runnerSocket(opts.runner as string | undefined);
        if (s !== undefined) return (await import('../runnerd/remote-authority.js')).remotePinUpdate(s, kind, args);
        return (await import('../commands/authority-pin-update.js')).pinUpdateCommand(kind, args);
      });
    });
}

export function register(program: Command): void {
  const authority = program
    .command('authority')
    .description(
      'Human authority records (docs/authority.md#human-authority-records): `request` on the pipeline machine writes the statement to sign, ' +
        '`sign` runs where the authority key lives and asks for confirmation on a terminal, `record` brings the ' +
        'signed record back. A record is judged and consumed once, by the command that uses it. See docs/authority.md.',
    );

  registerRequest(authority);
  registerSign(authority);
  registerRecord(authority);
  registerPinUpdate(program, 'policy', 'policy', 'policy', 'policy');
  registerPinUpdate(program, 'trust', 'trust', 'trust', 'trust root');
}
