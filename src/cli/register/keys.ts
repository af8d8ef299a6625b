// `governed keygen` and `governed verify` (docs/commands.md#what-each-command-guarantees).
import type { Command } from 'commander';
import { runAction } from '../run-action.js';
import { homeOption, jsonOption } from '../options.js';

export function register(program: Command): void {
  program
    .command('keygen')
    .description(
      'Make an Ed25519 key pair: <ID>.key (PKCS#8 PEM, mode 0600) and <ID>.pub (SPKI PEM) in DIR. ' +
        'Refuses to overwrite. Prints the key id (sha256 of the DER SubjectPublicKeyInfo). ' +
        // docs/commands.md#common-behaviour: every command's help states its exit codes.
        'Exit 0 key pair written, 2 usage (invalid credential id, a key file already there, DIR not writable), 1 internal error.',
    )
    .requiredOption('--credential <id>', 'credential id, e.g. reviewer, runner, gate, log, authority')
    .requiredOption('--out <dir>', 'directory for the key files (created 0700 if missing)')
    .addOption(jsonOption())
    .action(async (opts: { credential: string; out: string; json?: boolean }) => {
      await runAction(opts, async () => (await import('../commands/keygen.js')).keygenCommand(opts));
    });

  program
    .command('verify')
    .description(
      'Verify receipts offline (docs/formats.md#receipt): DSSE structure, canonical payload, in-toto Statement and ' +
        'review-receipt predicate schema, one valid signature from a reviewer key and one from a distinct ' +
        'runner key, key roles, validity windows and revocation in the trust root. ' +
        'A file signed by a probe key is a preservation probe receipt (docs/preservation.md#verifying-a-probe-receipt-offline): ' +
        'one signature by a key in role probe, the closed probe predicate, its subject the snapshot it names; with --contract FILE ' +
        'every result must name a surface of that contract, its probe entry and its evidence id for the phase. ' +
        'With --vsa FILE: a signed decision of `gate --attest` instead (one signature by a gate key, a SLSA VSA v1 ' +
        'statement passing its schema and rules; --subject COMMIT: it must be about that commit). With --log-checkpoint FILE: ' +
        'a log checkpoint of `audit checkpoint` (one signature by a log key, a closed checkpoint statement; whether a log ' +
        'extends it is `audit verify --checkpoint`). A FAILED decision that verifies is valid: read its result. ' +
        'Exit 0 all valid, 4 invalid, 6 untrusted key, 5 trust root expired, 2 usage.',
    )
    .argument('[receipt...]', 'receipt files (DSSE envelope JSON)')
    .option('--vsa <file>', 'verify one signed decision (docs/gate.md "Verifying a signed decision") instead of receipts')
    .option('--subject <commit>', 'with --vsa: the full commit id the decision must be about')
    .option('--log-checkpoint <file>', 'verify one signed log checkpoint of `audit checkpoint` instead of receipts')
    .option('--trust <file>', 'trust root (JSON or YAML); defaults to the pinned one of the state directory')
    .option('--policy <file>', "policy (JSON or YAML): each receipt must be signed by its credentials' reviewer and runner keys (a probe receipt: its probe key, and its adapter on preservation_adapters), in those roles")
    .option('--contract <file>', 'a preservation contract (JSON or YAML): every file must be a probe receipt bound to it')
    .option('--inclusion-proof <file>', 'an inclusion proof (governed audit prove): its entry must be in the tree of --checkpoint and, with one receipt, record it (docs/audit.md "Proofs")')
    .option('--checkpoint <file>', 'the C2SP checkpoint the inclusion proof is checked against (signed by a log key of the trust root)')
    .addOption(homeOption())
    .addOption(jsonOption())
    .action(async (receipts: string[], opts: { trust?: string; policy?: string; home?: string; inclusionProof?: string; checkpoint?: string; json?: boolean; vsa?: string; logCheckpoint?: string; subject?: string; contract?: string }) => {
      await runAction(opts, async () => (await import('../commands/verify.js')).verifyCommand(receipts, opts));
    });
}
