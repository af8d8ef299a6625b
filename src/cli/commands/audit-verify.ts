// `governed audit verify [--export DIR]` (docs/commands.md#what-each-command-guarantees, docs/state.md#the-store): wiring only. Exit 0 only when every check passed.
import { fail } from '../../core/errors.js';
import { auditVerify, type AuditReport } from '../../flows/audit/verify.js';
import { readInputFile } from '../../flows/read-input.js';
import { CHECKPOINT_FILE_MAX_BYTES, INPUT_FILE_MAX_BYTES } from '../../core/limits.js';
import { loadPinnedTrustRoot, loadTrustRootFile } from '../../flows/verify.js';
import { auditVerifyProofs, type AuditProofsReport } from '../../flows/audit/verify-proofs.js';
import { receiptWorkerFile } from '../../flows/audit/receipt-pool.js';
import { resolveHome } from '../options.js';
import { progressSink } from '../progress.js';
import type { CommandResult } from '../output.js';
import type { AuditVerifyJson } from '../../core/command-output.js';
import { parseVerifierKey } from '../../core/tlog-checkpoint.js';
import { loadSigningKey } from '../../flows/authority/private-key.js';
import { DIGEST_RE } from '../../core/ids.js';
import { POSITIVE_DECIMAL_RE } from '../../core/ids.js';

/** --witness-key K... [--witness-threshold N] (docs/audit.md "Witnesses"). */
function witnessOptions(opts: { witnessKey?: string[]; witnessThreshold?: string }) {
  if (opts.witnessKey === undefined) {
    if (opts.witnessThreshold !== undefined) fail('usage_error', ['--witness-threshold']);
    return {};
  }
  const keys = opts.witnessKey.map((k, i) => parseVerifierKey(k, `--witness-key:${i + 1}`));
  const t = opts.witnessThreshold === undefined ? keys.length : Number(opts.witnessThreshold);
  if (!Number.isSafeInteger(t) || t < 1 || t > keys.length || !/^[1-9][0-9]*$/.test(opts.witnessThreshold ?? '1')) fail('usage_error', ['--witness-threshold']);
  return { witnesses: { keys, threshold: t } };
}

const CO_LOCATED_CAVEAT =
  'co-located trust mode (docs/threat-model.md#trust-modes): a writer running as the uid that owns the keys and the store could ' +
  'rewrite the log and re-sign it consistently; only entries covered by a checkpoint that left the machine ' +
  '(audit verify --checkpoint) are safe from that.';

function human(r: AuditReport, exportDir?: string): string {
  const lines = [
    `${r.exit === 0 ? 'AUDIT OK' : 'AUDIT FAILED'}${r.unit === null ? '' : ` (unit ${r.unit})`}${exportDir === undefined ? '' : ` (export ${exportDir})`}`,
    r.log === null ? '  log chain      BROKEN' : `  log chain      ${r.log.entries} entries, head ${r.log.head}`,
    r.replay === null
      ? '  replay         not run'
      : exportDir === undefined
        ? `  replay         ${r.replay.matches ? `matches the stored state (${r.replay.state_digest})` : 'DIFFERS from the stored state'}`
        : `  replay         ${r.replay.matches ? `every entry applies (state ${r.replay.state_digest})` : 'an entry does not apply'}`,
    `  receipts       ${r.receipts.checked} checked, ${r.receipts.failed} failed (trust root: ${r.trust === 'given' ? '--trust' : 'pinned at each log position'})`,
    `  authority      ${r.authority_records.checked} checked, ${r.authority_records.failed} failed`,
    `  challenges     ${r.challenges.issued} issued, ${r.challenges.claimed} claimed, ${r.challenges.answered} answered, ${r.challenges.aborted} aborted`,
  ];
  for (const c of r.checkpoints) lines.push(`  checkpoint     ${c.file}: ${c.matches ? `the log extends it (entry ${c.log_entries})` : 'NOT extended by this log'}`);
  if (r.state !== undefined)
    lines.push(
      `  state          ${r.state.resumed_from === null ? 'full audit' : `resumed after entry ${r.state.resumed_from}`}; ${r.state.saved === null ? 'nothing saved' : `saved at entry ${r.state.saved}`}`,
    );
  for (const f of r.failures) lines.push(`  FAIL ${f.code} (exit ${f.exit})${f.ids.length > 0 ? ` [${f.ids.join(', ')}]` : ''}`);
  if (r.trust_modes.includes('co-located') && !r.checkpoints.some((c) => c.matches)) lines.push(`  note: ${CO_LOCATED_CAVEAT}`);
  return lines.join('\n');
}

export interface AuditVerifyOpts {
  unit?: string;
  trust?: string;
  checkpoint?: string[];
  witnessKey?: string[];
  witnessThreshold?: string;
  home?: string;
  export?: string;
  inclusionProof?: string[];
  consistencyProof?: string[];
  receipt?: string;
  entry?: string;
  jobs?: string;
  state?: string;
  stateKey?: string;
  json?: boolean;
  progress?: boolean;
}

/** --jobs N: worker threads for the receipt checks (0: in this thread); default chosen by the audit. */
function jobsOption(opts: AuditVerifyOpts): { jobs?: number; workerFile: string | null } {
  const workerFile = receiptWorkerFile(import.meta.url);
  if (opts.jobs === undefined) return { workerFile };
  if (!/^(?:[0-9]|1[0-6])$/.test(opts.jobs)) fail('usage_error', ['--jobs']);
  return { jobs: Number(opts.jobs), workerFile };
}

/** Proofs only, no log (docs/audit.md#checking-proofs-without-the-log). */
function proofsHuman(r: Omit<AuditProofsReport, 'ok'>): string {
  const lines = [r.exit === 0 ? 'PROOFS OK' : 'PROOFS FAILED'];
  for (const c of r.checkpoints) lines.push(`  checkpoint     ${c.file}: ${c.verified ? `signed by the log key (${c.origin}, size ${c.tree_size})` : 'NOT verified'}`);
  for (const p of r.inclusion) lines.push(`  inclusion      ${p.proof}: ${p.verified ? `entry ${p.seq} is in the tree of ${p.checkpoint} (size ${p.tree_size})` : 'NOT verified'}`);
  for (const p of r.consistency) lines.push(`  consistency    ${p.proof}: ${p.verified ? `${p.to} (size ${p.new_size}) extends ${p.from} (size ${p.old_size})` : 'NOT verified'}`);
  for (const f of r.failures) lines.push(`  FAIL ${f.code} (exit ${f.exit})${f.ids.length > 0 ? ` [${f.ids.join(', ')}]` : ''}`);
  return lines.join('\n');
}

function auditVerifyProofsCommand(opts: AuditVerifyOpts, now: Date): CommandResult {
  // No log is read: the options that audit a log or an export have nothing to act on.
  if (opts.export !== undefined || opts.unit !== undefined) fail('usage_error', [opts.export !== undefined ? '--export' : '--unit']);
  if (opts.state !== undefined) fail('usage_error', ['--state']);
  if ((opts.checkpoint ?? []).length === 0) fail('usage_error', ['--checkpoint']);
  const inclusion = opts.inclusionProof ?? [];
  if ((opts.receipt !== undefined || opts.entry !== undefined) && inclusion.length !== 1) fail('usage_error', ['--inclusion-proof']);
  // A malformed --receipt or --entry is never echoed (docs/commands.md#exit-codes).
  if (opts.receipt !== undefined && !DIGEST_RE.test(opts.receipt)) fail('usage_error', ['--receipt']);
  if (opts.entry !== undefined && !POSITIVE_DECIMAL_RE.test(opts.entry)) fail('usage_error', ['--entry']);
  const trust = opts.trust !== undefined ? loadTrustRootFile(opts.trust, now) : loadPinnedTrustRoot(resolveHome(opts.home), now);
  const read = (max: number) => (file: string) => ({ file, bytes: readInputFile(file, max) });
  const r = auditVerifyProofs({
    checkpoints: (opts.checkpoint ?? []).map(read(CHECKPOINT_FILE_MAX_BYTES)),
    inclusion: inclusion.map(read(INPUT_FILE_MAX_BYTES)),
    consistency: (opts.consistencyProof ?? []).map(read(INPUT_FILE_MAX_BYTES)),
    ...(opts.receipt === undefined ? {} : { receipt: opts.receipt }),
    ...(opts.entry === undefined ? {} : { entry: Number(opts.entry) }),
    trust,
    now,
    ...witnessOptions(opts),
  });
  return { exit: r.exit, json: { ok: r.exit === 0, ...r } satisfies AuditVerifyJson, human: proofsHuman(r) };
}

export async function auditVerifyCommand(opts: AuditVerifyOpts): Promise<CommandResult> {
  const now = new Date();
  if (opts.inclusionProof !== undefined || opts.consistencyProof !== undefined) return auditVerifyProofsCommand(opts, now);
  if (opts.receipt !== undefined || opts.entry !== undefined) fail('usage_error', ['--inclusion-proof']);
  // An export is audited without any store: a --home beside it would be ignored, so it is refused.
  if (opts.export !== undefined && opts.home !== undefined) fail('usage_error', ['--export', '--home']);
  // --state DIR --state-key K (docs/audit.md#incremental-audit): a store audit of the whole log only.
  if ((opts.state === undefined) !== (opts.stateKey === undefined)) fail('usage_error', [opts.state === undefined ? '--state' : '--state-key']);
  if (opts.state !== undefined && (opts.export !== undefined || opts.unit !== undefined)) fail('usage_error', ['--state', opts.export !== undefined ? '--export' : '--unit']);
  const stateOption = opts.state === undefined ? {} : { state: { dir: opts.state, key: loadSigningKey(opts.stateKey as string) } };
  const trust = opts.trust === undefined ? undefined : loadTrustRootFile(opts.trust, now);
  const checkpoints = (opts.checkpoint ?? []).map((file) => ({ file, bytes: readInputFile(file, CHECKPOINT_FILE_MAX_BYTES) }));
  const options = {
    ...jobsOption(opts),
    ...(opts.unit === undefined ? {} : { unit: opts.unit }),
    ...(trust === undefined ? {} : { trust }),
    checkpoints,
    now,
    ...witnessOptions(opts),
    progress: progressSink('audit-verify', opts),
    ...stateOption,
  };
  if (opts.export !== undefined) {
    const { auditVerifyExport } = await import('../../flows/audit/export-verify.js');
    const r = await auditVerifyExport(opts.export, options);
    const caveat = r.trust_modes.includes('co-located') ? { caveat: CO_LOCATED_CAVEAT } : {};
    const e = r.export;
    const text = [
      human(r, opts.export),
      `  export         ${e.files} files; manifest ${e.manifest === 'matches' ? 'matches' : 'DIFFERS'}; contents ${e.contents === 'matches' ? 'match the log' : e.contents === 'differs' ? 'DIFFER from the log' : 'not checked'}${e.unit === null ? '' : ` (unit export ${e.unit})`}`,
      `  note: the manifest is not signed; integrity rests on the chain, the signatures and a checkpoint that left the machine.`,
    ].join('\n');
    return { exit: r.exit, json: { ok: r.exit === 0, ...r, ...caveat } satisfies AuditVerifyJson, human: text };
  }
  const r = await auditVerify(resolveHome(opts.home), options);
  // With a matching checkpoint that left the machine, the entries it covers are no longer open to a
  // consistent rewrite; entries after it still are, so the caveat stays in the JSON either way.
  const caveat = r.trust_modes.includes('co-located') ? { caveat: CO_LOCATED_CAVEAT } : {};
  return { exit: r.exit, json: { ok: r.exit === 0, ...r, ...caveat } satisfies AuditVerifyJson, human: human(r) };
}
