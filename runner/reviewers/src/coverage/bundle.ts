// Reading the review bundle at $GOVERNED_BUNDLE (docs/bundle.md#views, docs/reviewers.md#the-reviewers-world; docs/bundle.md and
// docs/schemas/bundle.schema.json are the format). The reviewer trusts nothing it cannot check, so a bundle
// is accepted only when:
//   - its bytes are valid UTF-8 and exactly the RFC 8785 form of the parsed value (this also rules
//     out duplicate keys, which JSON.parse would silently collapse);
//   - every object is closed and every field has its schema type (shape.ts);
//   - the view is coherent: `sections` holds exactly `view.included`, in SECTION_NAMES order, and
//     no section is both included and withheld; the contract form matches the stage (planning form
//     only in planning, docs/contract.md#the-states-a-receipt-is-judged-against);
//   - every base64 field is canonical base64 and hashes to the digest beside it (sources' `digest`,
//     files' `sha256`), every change id is derived from its path (docs/bundle.md `CHG-…`), atom spans
//     lie inside their source's bytes, every implementation and evidence ID a directive names is
//     defined in the contract, and every coverage list is sorted and unique.
// Anything else is `Malformed`: the reviewer then exits non-zero with no stdout (docs/reviewers.md).
import { createHash } from 'node:crypto';
import { isIsoSeconds } from '../../../../src/core/iso-time.js';
import { preservationSectionSchema, preservationSectionViolation, type PreservationSurfaceEntry } from '../../../../src/core/bundle/preservation-schema.js';
import { canonicalJson, isSortedUnique } from './canonical.js';
import {
  arr,
  BASE64_RE,
  bool,
  check,
  DIGEST_RE,
  GIT_OID_RE,
  HEX64_RE,
  id,
  idOrRelation,
  int,
  malformed,
  nullable,
  obj,
  oneOf,
  path,
  RECORD_ID_RE,
  RELATION_RE,
  SLOT_RE,
  str,
} from './shape.js';
import { CHALLENGE_ID_RE, UNIT_ID_RE } from '../../../../src/core/ids.js';

export const BUNDLE_SCHEMA_ID = 'governed.review-bundle/v1';
import { STAGES } from '../../../../src/core/review-vocabulary.js'; export { STAGES };
export const SECTION_NAMES = [
  'sources',
  'source_map',
  'contract',
  'authorities',
  'tombstones',
  'scope_history',
  'changes',
  'current_files',
  'baseline_files',
  'preservation',
  'prior_receipts',
] as const;
export const COVERAGE_KINDS = [
  'sources',
  'atoms',
  'directives',
  'targets',
  'criteria',
  'implementations',
  'evidence',
  'authorities',
  'tombstones',
  'changes',
  'scope_versions',
  'surfaces',
] as const;
export const DIRECTIVE_STATES = ['active', 'done', 'deferred', 'superseded', 'abandoned'] as const;
export const EVIDENCE_KINDS = ['test', 'fixture', 'benchmark', 'doc', 'log', 'other'] as const;

export type Stage = (typeof STAGES)[number];
export type SectionName = (typeof SECTION_NAMES)[number];
export type CoverageKind = (typeof COVERAGE_KINDS)[number];
export type Coverage = Record<CoverageKind | 'relations', string[]>;
export type DirectiveState = (typeof DIRECTIVE_STATES)[number];
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

export interface Atom {
  readonly id: string;
  readonly span: readonly [number, number];
  readonly kind: 'obligation' | 'context';
}
export interface Source {
  readonly id: string;
  readonly class: 'directive' | 'context' | 'reference';
  readonly bytes: Buffer;
  readonly atoms: readonly Atom[];
}
export interface Target {
  readonly id: string;
  readonly paths: readonly string[];
}
export interface Criterion {
  readonly id: string;
  readonly atoms: readonly string[];
}
export interface FullDirective {
  readonly id: string;
  readonly state: DirectiveState;
  readonly sources: readonly string[];
  readonly targets: readonly Target[];
  readonly criteria: readonly Criterion[];
  readonly implementations: readonly string[];
  readonly evidence: readonly string[];
}
export interface FullContract {
  readonly form: 'full';
  readonly directives: readonly FullDirective[];
  readonly implementations: readonly { readonly id: string; readonly paths: readonly string[] }[];
  readonly evidence: readonly { readonly id: string; readonly kind: EvidenceKind; readonly paths: readonly string[] }[];
}
export interface PlanningContract {
  readonly form: 'planning';
  readonly directives: readonly { readonly id: string; readonly targets: readonly Target[]; readonly criteria: readonly Criterion[] }[];
}
export interface Tombstone {
  readonly id: string;
  readonly directive: string | null;
  readonly authority: string;
  readonly disposes: readonly string[];
}
export interface ScopeVersion {
  readonly id: string;
  readonly version: number;
  readonly narrowing: readonly string[];
  readonly authorities: readonly string[];
}
export interface Change {
  readonly id: string;
  readonly path: string;
  readonly baseline: string | null;
  readonly current: string | null;
}
export type FileEntry = { readonly path: string; readonly present: true; readonly bytes: Buffer } | { readonly path: string; readonly present: false };

export interface Sections {
  readonly sources?: readonly Source[];
  readonly source_map?: readonly string[];
  readonly contract?: FullContract | PlanningContract;
  readonly authorities?: readonly { readonly id: string; readonly operation: string }[];
  readonly tombstones?: readonly Tombstone[];
  readonly scope_history?: readonly ScopeVersion[];
  readonly changes?: readonly Change[];
  readonly current_files?: readonly FileEntry[];
  readonly baseline_files?: { readonly files: readonly FileEntry[] };
  readonly prior_receipts?: readonly { readonly verdict: 'CLEAN' | 'DIRTY' }[];
  readonly preservation?: Preservation;
}

export interface PreservationSurface {
  readonly id: string;
  readonly disposition: PreservationSurfaceEntry['disposition'];
  readonly probe: string | null;
  readonly authorityId: string | null;
  readonly expectedDiffDigest: string | null;
  readonly diffDigest: string | null;
}
export interface PreservationProbe {
  readonly surface: string;
  readonly phase: 'baseline' | 'current';
  readonly exitCode: number;
  readonly capabilities: readonly string[];
}
export interface Preservation {
  readonly surfaces: readonly PreservationSurface[];
  readonly probes: readonly PreservationProbe[];
  readonly authorities: readonly { readonly record: string; readonly operation: string; readonly surfaces: readonly string[]; readonly stateAfter: string | null }[];
}

export interface Bundle {
  readonly stage: Stage;
  readonly slot: string;
  readonly view: { readonly name: string; readonly included: readonly SectionName[] };
  readonly sections: Sections;
  readonly coverage: Coverage;
}

const sha256Hex = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** Canonical base64 only: the regex of the schema, and decoding must round-trip. */
function b64(v: unknown): Buffer {
  const s = str(v, BASE64_RE);
  const bytes = Buffer.from(s, 'base64');
  check(bytes.toString('base64') === s);
  return bytes;
}

const idList = (v: unknown): string[] => arr(v, id);

function sources(v: unknown): Source[] {
  return arr(v, (x) => {
    const o = obj(x, ['id', 'path', 'class', 'digest', 'bytes_b64', 'atoms']);
    path(o.path);
    const bytes = b64(o.bytes_b64);
    check(str(o.digest, DIGEST_RE) === `sha256:${sha256Hex(bytes)}`);
    const atoms = arr(o.atoms, (a): Atom => {
      const ao = obj(a, ['id', 'span', 'kind']);
      const span = arr(ao.span, (n) => int(n));
      check(span.length === 2);
      const [start, end] = span as [number, number];
      check(start <= end && end <= bytes.length);
      return { id: id(ao.id), span: [start, end], kind: oneOf(ao.kind, ['obligation', 'context'] as const) };
    });
    return { id: id(o.id), class: oneOf(o.class, ['directive', 'context', 'reference'] as const), bytes, atoms };
  });
}

const target = (x: unknown): Target => {
  const o = obj(x, ['id', 'paths']);
  return { id: id(o.id), paths: arr(o.paths, path) };
};
const criterion = (x: unknown): Criterion => {
  const o = obj(x, ['id', 'statement', 'atoms']);
  str(o.statement);
  return { id: id(o.id), atoms: idList(o.atoms) };
};

function contract(v: unknown, stage: Stage): FullContract | PlanningContract {
  const form = obj(v, ['form'], ['title', 'directives', 'implementations', 'evidence']).form;
  // docs/contract.md#the-states-a-receipt-is-judged-against: planning bundles carry the planning view of the contract, every other stage the full one.
  check(form === (stage === 'planning' ? 'planning' : 'full'));
  if (form === 'planning') {
    const o = obj(v, ['form', 'title', 'directives']);
    str(o.title);
    const directives = arr(o.directives, (x) => {
      const d = obj(x, ['id', 'statement', 'disposition', 'sources', 'targets', 'criteria']);
      str(d.statement);
      oneOf(d.disposition, ['in_scope', 'deferred', 'superseded', 'abandoned']);
      idList(d.sources);
      return { id: id(d.id), targets: arr(d.targets, target), criteria: arr(d.criteria, criterion) };
    });
    return { form: 'planning', directives };
  }
  const o = obj(v, ['form', 'title', 'directives', 'implementations', 'evidence']);
  str(o.title);
  const directives = arr(o.directives, (x): FullDirective => {
    const d = obj(x, ['id', 'statement', 'state', 'sources', 'targets', 'criteria', 'implementations', 'evidence']);
    str(d.statement);
    return {
      id: id(d.id),
      state: oneOf(d.state, DIRECTIVE_STATES),
      sources: idList(d.sources),
      targets: arr(d.targets, target),
      criteria: arr(d.criteria, criterion),
      implementations: idList(d.implementations),
      evidence: idList(d.evidence),
    };
  });
  const implementations = arr(o.implementations, (x) => {
    const i = obj(x, ['id', 'paths']);
    return { id: id(i.id), paths: arr(i.paths, path) };
  });
  const evidence = arr(o.evidence, (x) => {
    const e = obj(x, ['id', 'kind', 'paths']);
    return { id: id(e.id), kind: oneOf(e.kind, EVIDENCE_KINDS), paths: arr(e.paths, path) };
  });
  // Every implementation and evidence a directive names is defined (docs/contract.md#validation-rules mappings).
  const implIds = new Set(implementations.map((i) => i.id));
  const evidenceIds = new Set(evidence.map((e) => e.id));
  for (const d of directives) check(d.implementations.every((i) => implIds.has(i)) && d.evidence.every((e) => evidenceIds.has(e)));
  return { form: 'full', directives, implementations, evidence };
}

function fileEntries(v: unknown): FileEntry[] {
  return arr(v, (x): FileEntry => {
    const present = bool(obj(x, ['path', 'present'], ['mode', 'sha256', 'bytes_b64']).present);
    if (!present) return { path: path(obj(x, ['path', 'present']).path), present: false };
    const o = obj(x, ['path', 'present', 'mode', 'sha256', 'bytes_b64']);
    oneOf(o.mode, ['100644', '100755']);
    const bytes = b64(o.bytes_b64);
    check(str(o.sha256, HEX64_RE) === sha256Hex(bytes));
    return { path: path(o.path), present: true, bytes };
  });
}

function changes(v: unknown): Change[] {
  return arr(v, (x): Change => {
    const o = obj(x, ['id', 'path', 'baseline', 'current']);
    const p = path(o.path);
    // docs/bundle.md: a change id is derived from its path, never chosen.
    const cid = id(o.id);
    check(cid === `CHG-${sha256Hex(Buffer.from(p, 'utf8')).slice(0, 24)}`);
    return { id: cid, path: p, baseline: nullable(o.baseline, (s) => str(s, HEX64_RE)), current: nullable(o.current, (s) => str(s, HEX64_RE)) };
  });
}

function scopeHistory(v: unknown): ScopeVersion[] {
  return arr(v, (x): ScopeVersion => {
    const o = obj(x, [
      'id',
      'version',
      'scope_epoch',
      'work_revision',
      'contract_digest',
      'sources_digest',
      'bound_at',
      'additions',
      'narrowing',
      'progress',
      'authorities',
    ]);
    int(o.scope_epoch, 1);
    int(o.work_revision);
    str(o.contract_digest, DIGEST_RE);
    str(o.sources_digest, DIGEST_RE);
    // The one timestamp rule (a real calendar instant, not just its shape): src/core/iso-time.ts.
    check(isIsoSeconds(str(o.bound_at)));
    arr(o.additions, idOrRelation);
    idList(o.progress);
    return {
      id: id(o.id),
      version: int(o.version, 1),
      narrowing: arr(o.narrowing, idOrRelation),
      authorities: arr(o.authorities, (s) => str(s, RECORD_ID_RE)),
    };
  });
}

/**
 * The `preservation` section: parsed by governed's own definition of it, the zod/mini schema and its
 * rule function (src/core/bundle/preservation-schema.ts), bundled into this file — one definition for
 * the writer and the reader. Anything it refuses is malformed.
 */
function preservation(v: unknown, stage: Stage): Preservation {
  const parsed = preservationSectionSchema.safeParse(v);
  if (!parsed.success) malformed();
  const p = parsed.data;
  check(preservationSectionViolation(p, stage) === null);
  return {
    surfaces: p.surfaces.map((s) => ({
      id: s.id,
      disposition: s.disposition,
      probe: s.probe,
      authorityId: s.authority_id,
      expectedDiffDigest: s.expected_diff_digest,
      diffDigest: s.diff_digest,
    })),
    probes: p.probes.map((x) => ({ surface: x.surface, phase: x.phase, exitCode: x.exit_code, capabilities: x.capabilities })),
    authorities: p.authorities.map((a) => ({ record: a.record, operation: a.operation, surfaces: a.surfaces, stateAfter: a.state_after })),
  };
}

function sectionsOf(v: unknown, stage: Stage): Sections {
  const o = obj(v, [], SECTION_NAMES);
  const out: Record<string, unknown> = {};
  if ('sources' in o) out.sources = sources(o.sources);
  if ('source_map' in o) out.source_map = arr(obj(o.source_map, ['relations']).relations, (r) => str(r, RELATION_RE));
  if ('contract' in o) out.contract = contract(o.contract, stage);
  if ('authorities' in o) {
    out.authorities = arr(o.authorities, (x) => {
      const a = obj(x, ['id', 'operation', 'record']);
      str(a.record, RECORD_ID_RE);
      return { id: id(a.id), operation: oneOf(a.operation, ['authorize', 'add', 'replace', 'supersede', 'defer', 'abandon']) };
    });
  }
  if ('tombstones' in o) {
    out.tombstones = arr(o.tombstones, (x): Tombstone => {
      const t = obj(x, ['id', 'directive', 'authority', 'disposes']);
      return { id: id(t.id), directive: nullable(t.directive, id), authority: id(t.authority), disposes: arr(t.disposes, idOrRelation) };
    });
  }
  if ('scope_history' in o) out.scope_history = scopeHistory(o.scope_history);
  if ('changes' in o) out.changes = changes(o.changes);
  if ('current_files' in o) out.current_files = fileEntries(o.current_files);
  if ('baseline_files' in o) {
    const b = obj(o.baseline_files, ['commit', 'tree', 'manifest', 'files']);
    str(b.commit, GIT_OID_RE);
    str(b.tree, GIT_OID_RE);
    arr(b.manifest, (x) => {
      const m = obj(x, ['path', 'mode', 'sha256']);
      path(m.path);
      oneOf(m.mode, ['100644', '100755', '120000']);
      str(m.sha256, HEX64_RE);
    });
    out.baseline_files = { files: fileEntries(b.files) };
  }
  // docs/bundle.md#the-preservation-section: planning and integration only.
  if ('preservation' in o) {
    check(stage === 'planning' || stage === 'integration');
    out.preservation = preservation(o.preservation, stage);
  }
  if ('prior_receipts' in o) {
    out.prior_receipts = arr(o.prior_receipts, (x) => {
      const r = obj(x, ['receipt_id', 'stage', 'slot', 'verdict']);
      str(r.receipt_id, DIGEST_RE);
      oneOf(r.stage, STAGES);
      str(r.slot, SLOT_RE);
      return { verdict: oneOf(r.verdict, ['CLEAN', 'DIRTY'] as const) };
    });
  }
  return out as Sections;
}

function coverageOf(v: unknown): Coverage {
  const o = obj(v, [...COVERAGE_KINDS, 'relations']);
  const out = {} as Coverage;
  for (const k of COVERAGE_KINDS) out[k] = idList(o[k]);
  out.relations = arr(o.relations, (r) => str(r, RELATION_RE));
  for (const list of Object.values(out)) check(isSortedUnique(list));
  return out;
}

/** Section names, each once, in SECTION_NAMES order. */
function sectionList(v: unknown): SectionName[] {
  const names = arr(v, (x) => oneOf(x, SECTION_NAMES));
  const order = names.map((n) => SECTION_NAMES.indexOf(n));
  for (let i = 1; i < order.length; i++) check((order[i - 1] as number) < (order[i] as number));
  return names;
}

/** Parse and check the bundle file bytes; throws `Malformed` on anything it cannot trust. */
export function readBundle(bytes: Uint8Array): Bundle {
  let text: string;
  let value: unknown;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    value = JSON.parse(text);
  } catch {
    return malformed();
  }
  let canonical: string;
  try {
    canonical = canonicalJson(value);
  } catch {
    return malformed();
  }
  check(canonical === text);

  const o = obj(value, ['schema', 'challenge_id', 'unit', 'stage', 'slot', 'view', 'sections', 'coverage']);
  check(o.schema === BUNDLE_SCHEMA_ID);
  str(o.challenge_id, CHALLENGE_ID_RE);
  str(o.unit, UNIT_ID_RE);
  const stage = oneOf(o.stage, STAGES);
  const slot = str(o.slot, SLOT_RE);
  const view = obj(o.view, ['name', 'included', 'withheld', 'digest']);
  const name = str(view.name, SLOT_RE);
  const included = sectionList(view.included);
  const withheld = sectionList(view.withheld);
  str(view.digest, DIGEST_RE);
  check(!included.some((s) => withheld.includes(s)));
  const sections = sectionsOf(o.sections, stage);
  const present = SECTION_NAMES.filter((s) => s in (o.sections as object));
  check(present.length === included.length && present.every((s, i) => s === included[i]));
  return { stage, slot, view: { name, included }, sections, coverage: coverageOf(o.coverage) };
}
