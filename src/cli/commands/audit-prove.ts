// `governed audit prove` (docs/audit.md "Proofs"): wiring only. The proof file's text is printed
// (human) or carried in `proof` (--json); with --out it is written once instead.
import { fail } from '../../core/errors.js';
import { peekTlogConfig } from '../../../runner/tlog-attestor-host.js';
import { proveCheckpointConsistency, proveEntryInclusion } from '../../flows/audit/prove.js';
import { readInputFile } from '../../flows/read-input.js';
import { attestorFiles, resolveLocations } from '../../flows/run/locations.js';
import { writeOnce } from '../../flows/write-once.js';
import { resolveHome } from '../options.js';
import type { CommandResult } from '../output.js';
import { POSITIVE_DECIMAL_RE } from '../../core/ids.js';

export interface AuditProveOpts {
  receipt?: string;
  entry?: string;
  checkpoint?: string;
  from?: string;
  to?: string;
  out?: string;
  attestors?: string;
  home?: string;
}

const read = (file: string): { file: string; bytes: Buffer } => ({ file, bytes: readInputFile(file, 1024 * 1024) });

export function auditProveCommand(opts: AuditProveOpts): CommandResult {
  const home = resolveHome(opts.home);
  const consistency = opts.from !== undefined || opts.to !== undefined;
  const inclusion = opts.receipt !== undefined || opts.entry !== undefined;
  if (consistency === inclusion || (consistency && (opts.from === undefined || opts.to === undefined || opts.checkpoint !== undefined))) fail('usage_error', ['--receipt|--entry|--from --to']);
  if (opts.receipt !== undefined && opts.entry !== undefined) fail('usage_error', ['--receipt', '--entry']);
  let text: string;
  let json: Record<string, unknown>;
  if (consistency) {
    const r = proveCheckpointConsistency(home, read(opts.from as string), read(opts.to as string));
    text = r.text;
    json = { kind: 'consistency', old_size: r.old_size, new_size: r.new_size };
  } else {
    if (opts.entry !== undefined && !POSITIVE_DECIMAL_RE.test(opts.entry)) fail('usage_error', ['--entry']);
    const origin = opts.checkpoint === undefined ? peekTlogConfig(attestorFiles(resolveLocations({ home, attestorsDir: opts.attestors }), 'log').config)?.origin : undefined;
    const r = proveEntryInclusion({
      home,
      ...(opts.entry === undefined ? {} : { entry: Number(opts.entry) }),
      ...(opts.receipt === undefined ? {} : { receipt: opts.receipt }),
      ...(opts.checkpoint === undefined ? {} : { checkpoint: read(opts.checkpoint) }),
      ...(origin === undefined ? {} : { origin }),
    });
    text = r.text;
    json = { kind: 'inclusion', seq: r.seq, tree_size: r.tree_size };
  }
  if (opts.out !== undefined) {
    writeOnce(opts.out, text, { exists: 'tlog_output_exists', unwritable: 'audit_checkpoint_output_unwritable' });
    return { exit: 0, json: { ok: true, ...json, path: opts.out }, human: `proof written: ${opts.out}` };
  }
  return { exit: 0, json: { ok: true, ...json, proof: JSON.parse(text) as unknown }, human: text.trimEnd() };
}
