// The review bundle's rules that its schema (./schema.ts) cannot state, in one pure function
// (docs/bundle.md#views, docs/schemas/bundle.schema.json `description`): the view and the sections
// agree, the contract form matches the stage, every base64 field is canonical and hashes to the
// digest beside it, atom spans lie inside their source's bytes, change ids are derived from their
// paths, every implementation and evidence a directive names is defined, the preservation section
// obeys its own rules, and every coverage list is sorted by UTF-8 bytes and unique.
// The pinned coverage reviewer (runner/reviewers/src/coverage/bundle.ts) applies it after
// `bundleSchema`, bundled into its single file; it returns a fixed rule name, never a key's value.
// Pure (hashing only, node:crypto).
import { createHash } from 'node:crypto';
import { SECTION_NAMES } from './names.js';
import type { Bundle, FileEntry } from './schema.js';
import { preservationSectionViolation } from './preservation-rules.js';
import { changeId } from './ids.js';

const sha256Hex = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** Canonical base64 decoded, or null: the schema checks the alphabet, decoding must round-trip. */
export function canonicalBase64(s: string): Buffer | null {
  const bytes = Buffer.from(s, 'base64');
  return bytes.toString('base64') === s ? bytes : null;
}

/** True when `list` is strictly increasing by UTF-8 bytes (sorted and unique). */
function sortedUnique(list: readonly string[]): boolean {
  for (let i = 1; i < list.length; i++) {
    if (Buffer.compare(Buffer.from(list[i - 1] as string, 'utf8'), Buffer.from(list[i] as string, 'utf8')) >= 0) return false;
  }
  return true;
}

/** Section names each once, in SECTION_NAMES order. */
function inSectionOrder(names: readonly string[]): boolean {
  const order = names.map((n) => (SECTION_NAMES as readonly string[]).indexOf(n));
  for (let i = 1; i < order.length; i++) if ((order[i - 1] as number) >= (order[i] as number)) return false;
  return true;
}

function filesViolation(files: readonly FileEntry[]): boolean {
  for (const f of files) {
    if (!f.present) continue;
    const bytes = canonicalBase64(f.bytes_b64);
    if (bytes === null || sha256Hex(bytes) !== f.sha256) return true;
  }
  return false;
}

/** The first rule a schema-valid bundle breaks, by a fixed name; null when it keeps them all. */
export function bundleRuleViolation(b: Bundle): string | null {
  const { included, withheld } = b.view;
  if (!inSectionOrder(included) || !inSectionOrder(withheld)) return 'view_order';
  if (included.some((s) => withheld.includes(s))) return 'view_overlap';
  const present = SECTION_NAMES.filter((s) => Object.prototype.hasOwnProperty.call(b.sections, s));
  if (present.length !== included.length || !present.every((s, i) => s === included[i])) return 'view_sections';
  const s = b.sections;
  for (const src of s.sources ?? []) {
    const bytes = canonicalBase64(src.bytes_b64);
    if (bytes === null || src.digest !== `sha256:${sha256Hex(bytes)}`) return 'source_digest';
    if (src.atoms.some((a) => a.span[0] > a.span[1] || a.span[1] > bytes.length)) return 'atom_span';
  }
  if (s.contract !== undefined) {
    // docs/contract.md#the-states-a-receipt-is-judged-against: planning bundles carry the planning view, every other stage the full one.
    if (s.contract.form !== (b.stage === 'planning' ? 'planning' : 'full')) return 'contract_form';
    if (s.contract.form === 'full') {
      const impl = new Set(s.contract.implementations.map((i) => i.id));
      const ev = new Set(s.contract.evidence.map((e) => e.id));
      if (s.contract.directives.some((d) => !d.implementations.every((i) => impl.has(i)) || !d.evidence.every((e) => ev.has(e)))) return 'contract_mapping';
    }
  }
  // docs/bundle.md: a change id is derived from its path, never chosen.
  if ((s.changes ?? []).some((c) => c.id !== changeId(c.path))) return 'change_id';
  if (filesViolation(s.current_files ?? []) || filesViolation(s.baseline_files?.files ?? [])) return 'file_digest';
  // docs/bundle.md#the-preservation-section: planning and integration only, and its own rules.
  if (s.preservation !== undefined && preservationSectionViolation(s.preservation, b.stage) !== null) return 'preservation';
  if (!Object.values(b.coverage).every(sortedUnique)) return 'coverage_order';
  return null;
}
