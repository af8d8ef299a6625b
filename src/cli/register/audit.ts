// Commands of the audit group (docs/commands.md#what-each-command-guarantees). Each action lazily imports its command module.
import type { Command } from 'commander';
import { runAction } from '../run-action.js';
import { homeOption, jsonOption } from '../options.js';
import { progressOption } from '../progress.js';

export function register(program: Command): void {
  const audit = program.command('audit').description('Re-check the state directory from its hash-chained log (docs/state.md#the-store).');
  registerVerify(audit);
  registerCheckpoint(audit);
  registerProve(audit);
  registerCosign(audit);
  registerExport(audit);
}

// `audit verify` (docs/commands.md#what-each-command-guarantees).
function registerVerify(audit: Command): void {
  audit
    .command('verify')
    .description(
      'Verify the whole store offline, read-only: the log chain (hashes, links, payloads), that replaying the log ' +
        'into an empty database gives exactly the stored state, every receipt (signatures by distinct reviewer and ' +
        'runner keys valid at its log position, canonical payload, statement, predicate) and that its signed ' +
        'predicate equals the issue, claim and receipt entries it belongs to, single use of every challenge, and every ' +
        'authority record at the position it took effect. The trust root is the one pinned at each log position ' +
        'unless --trust gives the auditor\'s own. In co-located trust mode this proves consistency and trusted ' +
        'signatures, not that a same-uid writer holding the keys did not rewrite everything (docs/threat-model.md#trust-modes). ' +
        'Exit 0 all checks passed; 4 chain, replay, signature or binding failure; 6 untrusted key; 5 a challenge ' +
        'used twice or an expired --trust root; 7 unknown --unit; 2 usage. With --checkpoint, the log must also extend ' +
        'each signed checkpoint (audit_checkpoint_mismatch, 4): that is what detects a consistent rewrite. ' +
        'With --export DIR (an `audit export` output; not with --home) no store is read: DIR must match its manifest ' +
        '(every listed file with its sha256, nothing else, only regular files: audit_export_invalid, 4 — the manifest is not ' +
        'signed, this is a consistency check), the store is rebuilt from DIR/log.jsonl alone in a private temporary ' +
        'directory and given every check above, and each exported envelope, pin and key must equal what the log records ' +
        '(audit_export_mismatch, 4). DIR is never written. ' +
        'With --inclusion-proof or --consistency-proof no log is read (proofs only; the trust root is --trust, else the pinned one): ' +
        'each --checkpoint must be signed by a log key of the trust root now (tlog_checkpoint_untrusted, 6), each proof must lead ' +
        'from its entry (or older tree) to the root of the checkpoint of its origin and size (tlog_proof_invalid, tlog_fork, ' +
        'tlog_proof_size_mismatch, tlog_origin_mismatch: 4), and with --receipt/--entry its entry must be that one (tlog_proof_entry_mismatch, 4).',
    )
    .option('--unit <id>', 'check only the receipts and authority records of this unit (chain and replay always cover the whole log)')
    .option('--trust <file>', 'the auditor\'s trust root (JSON or YAML), applied at every log position instead of the pinned ones')
    .option(
      '--checkpoint <file...>',
      'signed checkpoints (governed audit checkpoint) this log must extend: each must verify under a log key of the trust root (now, not revoked) and name the hash of the entry at its position',
    )
    .option('--witness-key <key...>', 'witness verifier keys (name+hash+base64, Go note format) whose cosignatures each C2SP checkpoint must carry')
    .option('--witness-threshold <n>', 'how many of the --witness-key cosignatures each checkpoint needs (default: all of them)')
    .option('--export <dir>', 'verify this `governed audit export` directory instead of a store (read-only; exclusive with --home)')
    .option(
      '--inclusion-proof <file...>',
      'check these inclusion proofs (audit prove) against the --checkpoint of their origin and tree size, with no log: the store is not read (docs/audit.md#checking-proofs-without-the-log)',
    )
    .option('--consistency-proof <file...>', 'check these consistency proofs (audit prove --from --to) between the two --checkpoint files of their sizes, with no log')
    .option('--receipt <id>', 'with one --inclusion-proof: its entry must be the run_receipt entry recording this receipt id')
    .option('--entry <seq>', 'with one --inclusion-proof: its entry must be this log position')
    .option('--jobs <n>', 'worker threads for the receipt signature and binding checks, 0-16 (0: none; default: up to 4, one less than the cores, for a log of 256 receipts or more)')
    .option(
      '--state <dir>',
      "the auditor's state directory (docs/audit.md#incremental-audit): empty or missing, a full audit saves its state there when clean; " +
        'holding a state note, only the entries after it are replayed and checked (the ones before are re-hashed against its Merkle root), then the state moves forward. Needs --state-key; not with --unit or --export',
    )
    .option('--state-key <file>', "the auditor's own Ed25519 PKCS#8 private key file (0600) that signs and checks the --state note")
    .addOption(homeOption())
    .addOption(jsonOption())
    .addOption(progressOption())
    .action(async (opts: import('../commands/audit-verify.js').AuditVerifyOpts & { json?: boolean }) => {
      await runAction(opts, async () => (await import('../commands/audit-verify.js')).auditVerifyCommand(opts));
    });
}

// `audit checkpoint` (docs/commands.md#what-each-command-guarantees).
function registerCheckpoint(audit: Command): void {
  audit
    .command('checkpoint')
    .description(
      'Sign the head of the log (entry count, head hash, state digest, pinned policy and trust digests) through the ' +
        'policy\'s pinned `log` attestor, after checking the chain and that replay equals the stored state; write the DSSE ' +
        'envelope to --out (never overwritten). Copy the file OFF this machine: a later rewrite of any entry it covers — even ' +
        're-signed by a writer holding the keys (co-located mode, docs/threat-model.md#trust-modes) — then fails `audit verify --checkpoint`. ' +
        'The log attestor is <attestors dir>/log.json (+ log.mjs, else the shipped program); only the policy digests count. ' +
        'Exit 0 written; 4 the log is not sound or the attestor output does not verify; 6 attestor or key not trusted; 2 usage or the file exists.',
    )
    .requiredOption('--out <file>', 'where to write the signed checkpoint (created, never overwritten)')
    .option('--attestors <dir>', 'directory of the attestor configs (default $GOVERNED_ATTESTORS_DIR, else <home>/attestors)')
    .addOption(homeOption())
    .addOption(jsonOption())
    .action(async (opts: { out: string; attestors?: string; home?: string; json?: boolean }) => {
      await runAction(opts, async () => (await import('../commands/audit-checkpoint.js')).auditCheckpointCommand(opts));
    });
}

// `audit prove` (docs/commands.md#what-each-command-guarantees).
function registerProve(audit: Command): void {
  audit
    .command('prove')
    .description(
      'Print an inclusion proof of one log entry (--entry N, or the entry of --receipt R) in the tree of --checkpoint F ' +
        '(default: the whole log now), or a consistency proof between two checkpoints (--from F1 --to F2). ' +
        'The checkpoints must have the roots of this log (tlog_root_mismatch, tlog_log_truncated: 4). Formats: docs/audit.md "Proof files". ' +
        'Exit 0 printed or written; 4 a checkpoint this log does not have; 7 no such entry or receipt; 2 usage or the output exists.',
    )
    .option('--receipt <id>', 'the receipt id (sha256:...) whose run_receipt entry to prove')
    .option('--entry <seq>', 'the log entry (seq, from 1) to prove')
    .option('--checkpoint <file>', 'the C2SP checkpoint whose tree the proof is for')
    .option('--from <file>', 'the older checkpoint of a consistency proof')
    .option('--to <file>', 'the newer checkpoint of a consistency proof')
    .option('--out <file>', 'write the proof here (created, never overwritten) instead of printing it')
    .option('--attestors <dir>', 'where log.json names the origin, when no --checkpoint is given')
    .addOption(homeOption())
    .addOption(jsonOption())
    .action(async (opts: { receipt?: string; entry?: string; checkpoint?: string; from?: string; to?: string; out?: string; attestors?: string; home?: string; json?: boolean }) => {
      await runAction(opts, async () => (await import('../commands/audit-prove.js')).auditProveCommand(opts));
    });
}

// `audit cosign` (docs/commands.md#what-each-command-guarantees).
function registerCosign(audit: Command): void {
  audit
    .command('cosign')
    .description(
      'As an independent witness, add your signature line to a C2SP checkpoint of a log you follow, after checking the ' +
        "log's signature (--log-key) and consistency with the last checkpoint you cosigned (--state; --proof, a consistency " +
        'proof from it, when the tree grew). A fork is refused (tlog_fork, 4) and nothing is written. Your key is your own ' +
        'PKCS#8 PEM file, not a governed credential (docs/audit.md "Witnesses"). ' +
        'Exit 0 cosigned; 4 a fork, a bad proof or checkpoint; 6 the log key did not sign it; 2 usage, a bad state file or the output exists.',
    )
    .requiredOption('--checkpoint <file>', 'the checkpoint to cosign')
    .requiredOption('--log-key <vkey>', "the log's verifier key (name+hash+base64, as audit checkpoint prints it)")
    .requiredOption('--key <file>', 'your Ed25519 private key (PKCS#8 PEM, readable by you only)')
    .requiredOption('--name <name>', 'your witness key name (printable, no spaces or +)')
    .requiredOption('--state <file>', 'your state file: the last checkpoint you cosigned (created on first use)')
    .option('--proof <file>', 'a consistency proof (audit prove --from --to) from your last cosigned checkpoint to this one')
    .requiredOption('--out <file>', 'where to write the cosigned checkpoint (created, never overwritten)')
    .addOption(jsonOption())
    .action(async (opts: { checkpoint: string; logKey: string; key: string; name: string; state: string; proof?: string; out: string; json?: boolean }) => {
      await runAction(opts, async () => (await import('../commands/audit-cosign.js')).auditCosignCommand(opts));
    });
}

// `audit export` (docs/commands.md#what-each-command-guarantees).
function registerExport(audit: Command): void {
  audit
    .command('export')
    .description(
      'Write what an auditor needs to re-check this store without it: log.jsonl (every log entry with its hashes), ' +
        'receipts/<sha256>.json and authority/<REC-id>.json (the exact signed envelopes from the log), the pinned policy ' +
        'and trust root, keys/<key id>.pub, and manifest.json (log head, pin digests, sha256 of every file). ' +
        '`governed verify receipts/*.json --trust trust.pinned.json` works anywhere. The chain must be intact. ' +
        'DIR must not exist; it appears complete or not at all (built aside, then renamed). The store is read-only. ' +
        'Exit 0 written; 4 the chain is broken; 7 unknown --unit; 2 usage or DIR exists.',
    )
    .requiredOption('--out <dir>', 'the export directory to create (must not exist)')
    .option('--unit <id>', 'export only this unit\'s receipts and authority records (the log is always whole: the chain needs it)')
    .addOption(homeOption())
    .addOption(jsonOption())
    .action(async (opts: { out: string; unit?: string; home?: string; json?: boolean }) => {
      await runAction(opts, async () => (await import('../commands/audit-export.js')).auditExportCommand(opts));
    });
}
