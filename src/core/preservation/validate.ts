// Cross-field rules of a preservation contract (docs/preservation.md#the-contract), each with its
// own code. Errors carry field paths or contract ids, never paths or text from the file.
import { DIGEST_RE } from '../canonical.js';
import { fail } from '../errors.js';
import { AUTHORITY_RECORD_ID_RE, CONTRACT_ID_RE } from '../contract/ids.js';
import { isGitMetadataPath, isInsideRoots, isNormalizedRelativePath } from '../contract/paths.js';
import { isDestructive, type PreservationContract } from './schema.js';
import { GIT_OID_RE } from '../ids.js';


function checkPath(path: string, where: string, roots: readonly string[]): void {
  if (!isNormalizedRelativePath(path) || isGitMetadataPath(path) || !isInsideRoots(path, roots)) fail('preservation_path_invalid', [where]);
}

/**
 * Everything but the shape: ids, one namespace for surfaces, vendor sources and evidence ids, paths,
 * the N/A reason of `other`, the fields of destructive dispositions, and the origin of vendor sources.
 */
export function validatePreservationContract(c: PreservationContract, productRoots: readonly string[]): void {
  const seen = new Set<string>();
  const id = (value: string, where: string): void => {
    if (!CONTRACT_ID_RE.test(value)) fail('preservation_id_invalid', [where]);
    if (seen.has(value)) fail('preservation_id_duplicate', [value]);
    seen.add(value);
  };
  const probes = new Set<string>();
  c.surfaces.forEach((s, i) => {
    const at = `$.surfaces[${i}]`;
    id(s.id, `${at}.id`);
    id(s.baseline_evidence_id, `${at}.baseline_evidence_id`);
    id(s.current_evidence_id, `${at}.current_evidence_id`);
    const pathSet = new Set<string>();
    s.paths.forEach((p, j) => {
      checkPath(p, `${at}.paths[${j}]`, productRoots);
      if (pathSet.has(p)) fail('preservation_path_invalid', [`${at}.paths[${j}]`]);
      pathSet.add(p);
    });
    if (s.kind === 'other' && s.na_reason === undefined) fail('preservation_na_reason_missing', [s.id]);
    if (s.kind !== 'other' && s.na_reason !== undefined) fail('preservation_na_reason_unexpected', [s.id]);
    // A supported kind names its real entry; `other` may have none (its N/A reason says why).
    if (s.kind !== 'other' && s.probe === undefined) fail('preservation_field_missing', [`${at}.probe`]);
    if (s.probe !== undefined) {
      if (probes.has(s.probe)) fail('preservation_id_duplicate', [s.id]);
      probes.add(s.probe);
    }
    if (isDestructive(s.disposition)) {
      if (s.authority_id === undefined || s.expected_diff_digest === undefined) fail('preservation_destructive_fields_missing', [s.id]);
      if (!AUTHORITY_RECORD_ID_RE.test(s.authority_id)) fail('preservation_id_invalid', [`${at}.authority_id`]);
      if (!DIGEST_RE.test(s.expected_diff_digest)) fail('preservation_field_invalid', [`${at}.expected_diff_digest`]);
    } else if (s.authority_id !== undefined || s.expected_diff_digest !== undefined) {
      fail('preservation_destructive_fields_unexpected', [s.id]);
    }
  });
  c.vendor_sources.forEach((v, i) => {
    const at = `$.vendor_sources[${i}]`;
    id(v.id, `${at}.id`);
    checkPath(v.path, `${at}.path`, productRoots);
    const o = v.origin;
    // URL or commit syntax alone is not an origin: the tree digest computed from the origin tree is.
    if (o === undefined || o.commit === undefined || o.tree_digest === undefined) fail('preservation_vendor_origin_missing', [v.id]);
    if (!GIT_OID_RE.test(o.commit)) fail('preservation_field_invalid', [`${at}.origin.commit`]);
    if (!DIGEST_RE.test(o.tree_digest)) fail('preservation_field_invalid', [`${at}.origin.tree_digest`]);
    if (o.path !== undefined && o.path !== '.' && !isNormalizedRelativePath(o.path)) fail('preservation_path_invalid', [`${at}.origin.path`]);
  });
}
