// Building the evidence sections of a bundle (docs/bundle.md#views) from bytes the caller has already hashed:
// source bytes read from the baseline tree, file bytes whose sha256 equals the manifest entry the
// workspace digest was computed from, and the unit's stored scope history. Pure: no I/O, no clock.
import { sha256Digest } from '../canonical.js';
import { fail } from '../errors.js';
import type { Stage } from '../policy.js';
import { STAGES } from '../review-vocabulary.js';
import { compareUtf8, relationId, sortedUnique } from '../contract/ids.js';
import { planningView } from '../contract/digests.js';
import type { Contract } from '../contract/schema.js';
import { changeId, scopeVersionId } from './ids.js';
import type {
  BaselineFiles,
  ChangeEntry,
  FileEntry,
  PriorReceipt,
  ScopeHistoryEntry,
  SectionName,
  Sections,
  SourceEntry,
} from './schema.js';
import { stageSections } from './views.js';
import { buildPreservationSection, type PreservationSectionInput } from './preservation.js';

/** One file the bundle carries: present with the exact bytes that were hashed, or absent. */
export type FileInput =
  | { readonly path: string; readonly present: true; readonly mode: '100644' | '100755'; readonly sha256: string; readonly bytes: Uint8Array }
  | { readonly path: string; readonly present: false };

export interface ManifestEntryInput {
  readonly path: string;
  readonly mode: '100644' | '100755' | '120000';
  readonly sha256: string;
}

export interface ScopeHistoryInput {
  readonly version: number;
  readonly scopeEpoch: number;
  readonly workRevision: number;
  readonly contractDigest: string;
  readonly sourcesDigest: string;
  /** Whole seconds, runner clock. */
  readonly boundAt: number;
  readonly diff: { readonly additions: readonly string[]; readonly narrowing: readonly string[]; readonly progress: readonly string[] };
  readonly authorities: readonly string[];
}

export interface ChangeInput {
  readonly path: string;
  readonly baseline: string | null;
  readonly current: string | null;
}

export interface SectionInputs {
  readonly stage: Stage;
  readonly contract: Contract;
  /** Source id → the exact bytes read from the baseline tree. */
  readonly sourceBytes: ReadonlyMap<string, Uint8Array>;
  readonly scopeHistory: readonly ScopeHistoryInput[];
  /** Changed paths against the baseline; null for planning (the workspace is not a planning input). */
  readonly changes: readonly ChangeInput[] | null;
  /** Files of `evidencePaths` in the workspace; null for planning. */
  readonly currentFiles: readonly FileInput[] | null;
  readonly baseline: {
    readonly commit: string;
    readonly tree: string;
    readonly manifest: readonly ManifestEntryInput[];
    /** Files of `evidencePaths` in the baseline tree. */
    readonly files: readonly FileInput[];
  };
  /** Receipts of earlier stages (docs/bundle.md#views); only read for stages whose bundle has the section. */
  readonly priorReceipts: readonly PriorReceipt[];
  /** The unit's preservation evidence (planning, integration); absent when no contract is bound. */
  readonly preservation?: PreservationSectionInput | undefined;
}

/**
 * The file paths whose bytes a stage's bundle carries (docs/bundle.md#views "bytes of the target,
 * implementation and evidence files"), sorted by UTF-8 bytes. Planning names only targets: its
 * contract form has no implementation/evidence mappings (docs/contract.md#the-states-a-receipt-is-judged-against).
 */
export function evidencePaths(contract: Contract, stage: Stage): string[] {
  const paths = contract.directives.flatMap((d) => d.targets.flatMap((t) => t.paths));
  if (stage !== 'planning') {
    paths.push(...contract.implementations.flatMap((i) => i.paths), ...contract.evidence.flatMap((e) => e.paths));
  }
  return sortedUnique(paths);
}

const isoOf = (seconds: number): string => new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

function fileEntries(files: readonly FileInput[], wanted: readonly string[], what: string): FileEntry[] {
  const sorted = [...files].sort((a, b) => compareUtf8(a.path, b.path));
  if (sorted.length !== wanted.length || sorted.some((f, i) => f.path !== wanted[i])) fail('internal_error', [`${what}:paths`]);
  return sorted.map((f) => {
    if (!f.present) return { path: f.path, present: false };
    // The bytes must be the ones whose hash the manifest holds (docs/contract.md#workspace-digest "built from the very bytes
    // that were hashed"); the caller checked it, and a pure re-check costs one hash.
    if (sha256Digest(f.bytes) !== `sha256:${f.sha256}`) fail('internal_error', [`${what}:bytes`]);
    return { path: f.path, present: true, mode: f.mode, sha256: f.sha256, bytes_b64: Buffer.from(f.bytes).toString('base64') };
  });
}

function sourcesSection(contract: Contract, bytes: ReadonlyMap<string, Uint8Array>): SourceEntry[] {
  return [...contract.sources]
    .sort((a, b) => compareUtf8(a.id, b.id))
    .map((s) => {
      const b = bytes.get(s.id);
      if (b === undefined) fail('contract_source_bytes_missing', [s.id]);
      return {
        id: s.id,
        path: s.path,
        class: s.class,
        digest: sha256Digest(b),
        bytes_b64: Buffer.from(b).toString('base64'),
        atoms: s.atoms.map((a) => ({ id: a.id, span: [a.span[0], a.span[1]] as [number, number], kind: a.kind })),
      };
    });
}

function contractSection(contract: Contract, stage: Stage): NonNullable<Sections['contract']> {
  if (stage === 'planning') {
    const view = planningView(contract) as unknown as { directives: NonNullable<Sections['contract']>['directives'] };
    return { form: 'planning', title: contract.title, directives: view.directives } as NonNullable<Sections['contract']>;
  }
  return {
    form: 'full',
    title: contract.title,
    directives: contract.directives.map((d) => ({
      id: d.id,
      statement: d.statement,
      state: d.state,
      sources: [...d.sources],
      targets: d.targets.map((t) => ({ id: t.id, paths: [...t.paths] })),
      criteria: d.criteria.map((c) => ({ id: c.id, statement: c.statement, atoms: [...c.atoms] })),
      implementations: [...d.implementations],
      evidence: [...d.evidence],
    })),
    implementations: contract.implementations.map((i) => ({ id: i.id, paths: [...i.paths] })),
    evidence: contract.evidence.map((e) => ({ id: e.id, kind: e.kind, paths: [...e.paths] })),
  };
}

function scopeHistorySection(history: readonly ScopeHistoryInput[]): ScopeHistoryEntry[] {
  return [...history]
    .sort((a, b) => a.version - b.version)
    .map((v) => ({
      id: scopeVersionId(v.version),
      version: v.version,
      scope_epoch: v.scopeEpoch,
      work_revision: v.workRevision,
      contract_digest: v.contractDigest,
      sources_digest: v.sourcesDigest,
      bound_at: isoOf(v.boundAt),
      additions: sortedUnique(v.diff.additions),
      narrowing: sortedUnique(v.diff.narrowing),
      progress: sortedUnique(v.diff.progress),
      authorities: sortedUnique(v.authorities),
    }));
}

function changesSection(changes: readonly ChangeInput[]): ChangeEntry[] {
  return [...changes]
    .sort((a, b) => compareUtf8(a.path, b.path))
    .map((c) => ({ id: changeId(c.path), path: c.path, baseline: c.baseline, current: c.current }));
}

function baselineSection(input: SectionInputs['baseline'], wanted: readonly string[]): BaselineFiles {
  return {
    commit: input.commit,
    tree: input.tree,
    manifest: [...input.manifest].sort((a, b) => compareUtf8(a.path, b.path)).map((e) => ({ path: e.path, mode: e.mode, sha256: e.sha256 })),
    files: fileEntries(input.files, wanted, 'baseline_files'),
  };
}

/** Every section the stage's bundle has (docs/bundle.md#views), before a view selects from them. */
export function buildStageSections(input: SectionInputs): Sections {
  const names = new Set<SectionName>(stageSections(input.stage));
  const planning = input.stage === 'planning';
  if (planning !== (input.changes === null) || planning !== (input.currentFiles === null)) fail('internal_error', ['stage_inputs']);
  const wanted = evidencePaths(input.contract, input.stage);
  const out: Sections = {};
  if (names.has('sources')) out.sources = sourcesSection(input.contract, input.sourceBytes);
  if (names.has('source_map')) {
    out.source_map = {
      relations: sortedUnique(input.contract.sources.flatMap((s) => s.atoms.flatMap((a) => a.directives.map((d) => relationId(a.id, d))))),
    };
  }
  if (names.has('contract')) out.contract = contractSection(input.contract, input.stage);
  if (names.has('authorities')) out.authorities = input.contract.authorities.map((a) => ({ id: a.id, operation: a.operation, record: a.record }));
  if (names.has('tombstones')) {
    out.tombstones = input.contract.tombstones.map((t) => ({
      id: t.id,
      directive: t.directive ?? null,
      authority: t.authority,
      disposes: [...t.disposes],
    }));
  }
  if (names.has('scope_history')) out.scope_history = scopeHistorySection(input.scopeHistory);
  if (names.has('changes') && input.changes !== null) out.changes = changesSection(input.changes);
  if (names.has('current_files') && input.currentFiles !== null) out.current_files = fileEntries(input.currentFiles, wanted, 'current_files');
  if (names.has('baseline_files')) out.baseline_files = baselineSection(input.baseline, wanted);
  if (names.has('preservation') && input.preservation !== undefined) {
    const stage = input.stage === 'planning' ? 'planning' : 'integration';
    if (input.stage !== stage) fail('internal_error', ['preservation_stage']);
    out.preservation = buildPreservationSection(input.preservation, stage, input.changes);
  }
  if (names.has('prior_receipts')) {
    // Only receipts of stages before this one (docs/bundle.md#views "of earlier stages only").
    const order: readonly Stage[] = STAGES;
    const before = new Set(order.slice(0, order.indexOf(input.stage)));
    if (input.priorReceipts.some((r) => !before.has(r.stage))) fail('internal_error', ['prior_receipts']);
    out.prior_receipts = [...input.priorReceipts].sort((a, b) => compareUtf8(a.receipt_id, b.receipt_id));
  }
  return out;
}
