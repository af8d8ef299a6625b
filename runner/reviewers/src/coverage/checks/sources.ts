// Source fidelity (docs/bundle.md#views `source_fidelity` role and the `complete` view: the `sources` section,
// exact bytes and atoms). Issuance proves the atoms tile each source byte-exactly and that every
// obligation atom maps to a directive (docs/contract.md#validation-rules); it cannot judge whether the writer — who drew
// the atoms — classified a requirement as `context` so that it maps to nothing. That is silent
// narrowing at the very first step.
//
//   source_mapping  a `context` atom of a `directive`-class source whose bytes contain an RFC 2119
//                   absolute-requirement keyword in capitals (MUST, SHALL, REQUIRED; MUST NOT and
//                   SHALL NOT contain them). refs: the atom and its source.
//
// Only the capitalised keywords count: a human who writes them means a requirement, while lower-case
// "must" is common in background prose, and a false finding here could only be cleared by remapping
// a human's source. Context and reference sources carry no obligations by definition and are skipped.
import type { Sections } from '../bundle.js';
import { finding, type Finding } from '../findings.js';

const REQUIREMENT_KEYWORD = /(?<![A-Za-z0-9_])(?:MUST|SHALL|REQUIRED)(?![A-Za-z0-9_])/;

export function sourceFindings(s: Sections): Finding[] {
  const out: Finding[] = [];
  for (const src of s.sources ?? []) {
    if (src.class !== 'directive') continue;
    for (const a of src.atoms) {
      if (a.kind !== 'context') continue;
      const text = src.bytes.subarray(a.span[0], a.span[1]).toString('utf8');
      if (REQUIREMENT_KEYWORD.test(text)) out.push(finding('source_mapping', 'scope', 'MEDIUM', [a.id, src.id]));
    }
  }
  return out;
}
