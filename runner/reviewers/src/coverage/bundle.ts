// Reading the review bundle at $GOVERNED_BUNDLE (docs/bundle.md#views, docs/reviewers.md#the-reviewers-world; docs/bundle.md and
// docs/schemas/bundle.schema.json are the format). The reviewer trusts nothing it cannot check, so a bundle
// is accepted only when:
//   - its bytes are valid UTF-8 and exactly the RFC 8785 form of the parsed value (this also rules
//     out duplicate keys, which JSON.parse would silently collapse);
//   - it passes governed's one definition of the format, the zod/mini `bundleSchema`
//     (src/core/bundle/schema.ts: every object closed, every field its type), through its compiled
//     form bundled into this file (docs/architecture.md#compiled-formats: no zod in the reviewer);
//   - it keeps the rules that schema cannot state, governed's one function for them
//     (src/core/bundle/rules.ts `bundleRuleViolation`): view and sections agree, the contract form
//     matches the stage, base64 fields are canonical and hash to the digest beside them, change ids
//     derive from their paths, atom spans lie inside their source, every implementation and evidence a
//     directive names is defined, the preservation section keeps its rules, coverage lists are sorted
//     and unique;
//   - it carries no `check` inputs (those are for check slots, docs/reviewers.md#check-reviewers; the
//     check reviewers read the same way through `parseBundle` and require them, ../check/bundle.ts).
// Anything else is `Malformed`: the reviewer then exits non-zero with no stdout, and the error never
// names a key or a value (docs/reviewers.md).
import type { Bundle as WireBundle, FileEntry as WireFile } from '../../../../src/core/bundle/schema.js';
import { BUNDLE_SCHEMA_ID, COVERAGE_KINDS, SECTION_NAMES } from '../../../../src/core/bundle/names.js';
import { BUNDLE_FORMAT } from '../../../../src/core/bundle/format.js';
import { checkFormat } from '../../../../src/core/format/interpret.js';
import { bundleRuleViolation, canonicalBase64 } from '../../../../src/core/bundle/rules.js';
import type { PreservationSurfaceEntry } from '../../../../src/core/bundle/preservation-schema.js';
import { STAGES } from '../../../../src/core/review-vocabulary.js';
import { DIRECTIVE_STATES, EVIDENCE_KINDS } from '../../../../src/core/contract/vocabulary.js';
import { canonicalJson } from './canonical.js';
import { check, malformed } from './shape.js';

export { BUNDLE_SCHEMA_ID, COVERAGE_KINDS, DIRECTIVE_STATES, EVIDENCE_KINDS, SECTION_NAMES, STAGES };

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


/** Decoded canonical base64 (the rule function has already checked it round-trips). */
function b64(s: string): Buffer {
  const bytes = canonicalBase64(s);
  if (bytes === null) malformed();
  return bytes;
}

const files = (list: readonly WireFile[]): FileEntry[] =>
  list.map((f): FileEntry => (f.present ? { path: f.path, present: true, bytes: b64(f.bytes_b64) } : { path: f.path, present: false }));

/**
 * Parse and check the bundle file bytes with governed's one schema and rule function; throws
 * `Malformed` on anything it cannot trust. The bundle as parsed, `check` inputs included if present.
 */
export function parseBundle(bytes: Uint8Array): WireBundle {
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
  const parsed = checkFormat(BUNDLE_FORMAT, value);
  if (!parsed.success) return malformed();
  check(bundleRuleViolation(parsed.data) === null);
  return parsed.data;
}

/** The bundle of a reviewer slot (no `check` inputs), for the coverage and model reviewers. */
export function readBundle(bytes: Uint8Array): Bundle {
  const b = parseBundle(bytes);
  check(b.check === undefined);
  return viewOf(b);
}

/** The reviewers' view of a parsed bundle: file bytes decoded, the fields they read. */
export function viewOf(b: WireBundle): Bundle {
  const w = b.sections;
  const out: { -readonly [K in keyof Sections]: Sections[K] } = {};
  if (w.sources !== undefined) {
    out.sources = w.sources.map((x) => ({ id: x.id, class: x.class, bytes: b64(x.bytes_b64), atoms: x.atoms.map((a) => ({ id: a.id, span: a.span, kind: a.kind })) }));
  }
  if (w.source_map !== undefined) out.source_map = w.source_map.relations;
  if (w.contract !== undefined) {
    const c = w.contract;
    out.contract =
      c.form === 'planning'
        ? { form: 'planning', directives: c.directives.map((d) => ({ id: d.id, targets: d.targets, criteria: d.criteria })) }
        : { form: 'full', directives: c.directives, implementations: c.implementations, evidence: c.evidence };
  }
  if (w.authorities !== undefined) out.authorities = w.authorities.map((a) => ({ id: a.id, operation: a.operation }));
  if (w.tombstones !== undefined) out.tombstones = w.tombstones;
  if (w.scope_history !== undefined) out.scope_history = w.scope_history.map((v) => ({ id: v.id, version: v.version, narrowing: v.narrowing, authorities: v.authorities }));
  if (w.changes !== undefined) out.changes = w.changes.map((c) => ({ id: c.id, path: c.path, baseline: c.baseline, current: c.current }));
  if (w.current_files !== undefined) out.current_files = files(w.current_files);
  if (w.baseline_files !== undefined) out.baseline_files = { files: files(w.baseline_files.files) };
  if (w.preservation !== undefined) {
    const p = w.preservation;
    out.preservation = {
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
  if (w.prior_receipts !== undefined) out.prior_receipts = w.prior_receipts.map((r) => ({ verdict: r.verdict }));
  return { stage: b.stage, slot: b.slot, view: { name: b.view.name, included: b.view.included }, sections: out, coverage: b.coverage };
}
