// `governed contract init` (docs/contract-init.md): a request-contract skeleton from the human
// request files. Pure: the caller reads the source bytes and writes the result.
//
// - Atoms tile each source exactly (the span rule, docs/contract.md#validation-rules): every run of non-blank text between two
//   separators is an `obligation` atom, and every separator (the whitespace between them, and any
//   leading or trailing whitespace) is a `context` atom. Spans are UTF-8 byte offsets computed from
//   whole characters, so no span ever ends inside a character.
//   line: a separator is whitespace that holds a newline; paragraph: whitespace that holds a blank
//   line; sentence: a newline-bearing separator too, or whitespace after `.`, `!` or `?` (closing
//   quotes and brackets stay with their sentence).
// - One directive per obligation atom, its statement the atom's text verbatim (the docs/contract.md#validation-rules verbatim
//   rule holds by construction), with one target, one criterion (mapped to the atom), one
//   implementation and one evidence item whose paths and criterion statement are PLACEHOLDERS.
// - A placeholder is a string starting with PLACEHOLDER_PREFIX. `parseContract` refuses any contract
//   that still has one (`contract_fill_in_left`, ids = the field paths), so a skeleton can
//   never be bound by mistake.
import { fail } from '../errors.js';
import { fieldPath, PLACEHOLDER_PREFIX } from './schema.js';
import { CONTRACT_MAX_LIST } from '../limits.js';

export const ATOM_MODES = ['line', 'paragraph', 'sentence'] as const;
export type AtomMode = (typeof ATOM_MODES)[number];

export { PLACEHOLDER_PREFIX, findPlaceholders } from './schema.js';

export interface Segment {
  /** Byte offsets into the UTF-8 source, half-open. */
  readonly start: number;
  readonly end: number;
  readonly kind: 'obligation' | 'context';
  readonly text: string;
}

const SEPARATOR: Record<AtomMode, (ws: string, before: string) => boolean> = {
  line: (ws) => ws.includes('\n'),
  paragraph: (ws) => /\n[^\S\n]*\n/.test(ws),
  sentence: (ws, before) => ws.includes('\n') || /[.!?]["'\u2019\u201d)\]]*$/u.test(before),
};

/** Split `text` into atoms that tile it exactly (see the header). */
export function segmentSource(text: string, mode: AtomMode): Segment[] {
  const pieces: { from: number; to: number; kind: 'obligation' | 'context' }[] = [];
  let cursor = 0;
  for (const m of text.matchAll(/\s+/gu)) {
    const from = m.index;
    const to = from + m[0].length;
    const edge = from === 0 || to === text.length;
    if (!edge && !SEPARATOR[mode](m[0], text.slice(Math.max(0, from - 8), from))) continue;
    if (from > cursor) pieces.push({ from: cursor, to: from, kind: 'obligation' });
    pieces.push({ from, to, kind: 'context' });
    cursor = to;
  }
  if (cursor < text.length) pieces.push({ from: cursor, to: text.length, kind: 'obligation' });
  const out: Segment[] = [];
  let byte = 0;
  for (const p of pieces) {
    const slice = text.slice(p.from, p.to);
    const len = Buffer.byteLength(slice, 'utf8');
    out.push({ start: byte, end: byte + len, kind: p.kind, text: slice });
    byte += len;
  }
  return out;
}

export interface SkeletonSource {
  /** Repository-relative path (normalized). */
  readonly path: string;
  readonly text: string;
}

const ph = (what: string): string => `${PLACEHOLDER_PREFIX}: ${what}>>`;

/** The skeleton contract (a plain value in schema order) for `sources`. */
export function contractSkeleton(sources: readonly SkeletonSource[], mode: AtomMode, title?: string): Record<string, unknown> {
  let atomN = 0;
  let dirN = 0;
  const directives: Record<string, unknown>[] = [];
  const implementations: Record<string, unknown>[] = [];
  const evidence: Record<string, unknown>[] = [];
  const contractSources = sources.map((s, si) => {
    const sourceId = `SRC-${si + 1}`;
    const segments = segmentSource(s.text, mode);
    if (segments.length > CONTRACT_MAX_LIST) fail('contract_field_too_large', [fieldPath(['sources', si, 'atoms'])]);
    const atoms = segments.map((seg) => {
      const id = `ATOM-${++atomN}`;
      if (seg.kind === 'context') return { id, span: [seg.start, seg.end], kind: 'context', directives: [] };
      const n = ++dirN;
      directives.push({
        id: `DIR-${n}`,
        statement: seg.text,
        state: 'active',
        sources: [sourceId],
        targets: [{ id: `TGT-${n}`, paths: [ph('a repository-relative file this directive changes')] }],
        criteria: [{ id: `AC-${n}`, statement: ph('how a reviewer tells this directive is met'), atoms: [id] }],
        implementations: [`IMP-${n}`],
        evidence: [`EVD-${n}`],
      });
      implementations.push({ id: `IMP-${n}`, paths: [ph('a repository-relative file that implements it')] });
      evidence.push({ id: `EVD-${n}`, kind: 'test', paths: [ph('a repository-relative test or other evidence file')] });
      return { id, span: [seg.start, seg.end], kind: 'obligation', directives: [`DIR-${n}`] };
    });
    return { id: sourceId, path: s.path, class: 'directive', atoms };
  });
  return {
    kind: 'governed/request-contract',
    version: 1,
    title: title ?? ph('a short title of the request'),
    sources: contractSources,
    directives,
    implementations,
    evidence,
    authorities: [],
    tombstones: [],
  };
}

const q = (s: string): string => JSON.stringify(s); // a JSON string is a YAML double-quoted scalar
const ql = (xs: readonly unknown[]): string => `[${xs.map((x) => (typeof x === 'string' ? q(x) : String(x))).join(', ')}]`;

/**
 * The skeleton as YAML: a header that says what to fill, atoms one per line in flow style (so the
 * spans read like a table), every string double-quoted (the source text is never YAML-interpreted).
 */
export function skeletonYaml(contract: Record<string, unknown>, mode: AtomMode): string {
  type Atom = { id: string; span: number[]; kind: string; directives: string[] };
  type Src = { id: string; path: string; class: string; atoms: Atom[] };
  type Dir = {
    id: string;
    statement: string;
    state: string;
    sources: string[];
    targets: { id: string; paths: string[] }[];
    criteria: { id: string; statement: string; atoms: string[] }[];
    implementations: string[];
    evidence: string[];
  };
  const c = contract as { title: string; sources: Src[]; directives: Dir[]; implementations: { id: string; paths: string[] }[]; evidence: { id: string; kind: string; paths: string[] }[] };
  const lines = [
    `# Request contract skeleton made by \`governed contract init --atoms ${mode}\` (docs/contract-init.md).`,
    `# Every value starting with ${PLACEHOLDER_PREFIX} is a placeholder: \`governed unit create\` refuses the`,
    '# contract (contract_fill_in_left, naming each field path) until all are filled in.',
    '# The atom spans tile each source byte for byte; an atom that states no obligation can be made',
    '# `kind: context` (then remove its directive and that directive\'s implementation and evidence).',
    'kind: governed/request-contract',
    'version: 1',
    `title: ${q(c.title)}`,
    'sources:',
  ];
  for (const s of c.sources) {
    lines.push(`  - id: ${s.id}`, `    path: ${q(s.path)}`, `    class: ${s.class}`, '    atoms:');
    for (const a of s.atoms) lines.push(`      - { id: ${a.id}, span: ${ql(a.span)}, kind: ${a.kind}, directives: ${ql(a.directives)} }`);
  }
  lines.push(c.directives.length === 0 ? 'directives: []' : 'directives:');
  for (const d of c.directives) {
    lines.push(
      `  - id: ${d.id}`,
      `    statement: ${q(d.statement)}`,
      `    state: ${d.state}`,
      `    sources: ${ql(d.sources)}`,
      '    targets:',
      ...d.targets.map((t) => `      - { id: ${t.id}, paths: ${ql(t.paths)} }`),
      '    criteria:',
      ...d.criteria.map((k) => `      - { id: ${k.id}, statement: ${q(k.statement)}, atoms: ${ql(k.atoms)} }`),
      `    implementations: ${ql(d.implementations)}`,
      `    evidence: ${ql(d.evidence)}`,
    );
  }
  lines.push(c.implementations.length === 0 ? 'implementations: []' : 'implementations:');
  for (const i of c.implementations) lines.push(`  - { id: ${i.id}, paths: ${ql(i.paths)} }`);
  lines.push(c.evidence.length === 0 ? 'evidence: []' : 'evidence:');
  for (const e of c.evidence) lines.push(`  - { id: ${e.id}, kind: ${e.kind}, paths: ${ql(e.paths)} }`);
  lines.push('authorities: []', 'tombstones: []', '');
  return lines.join('\n');
}
