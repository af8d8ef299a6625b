// The digest of a scope's source bytes (docs/contract.md#validation-rules "the bytes are read at issuance and their digest
// bound"; docs/formats.md#receipt receipt input `sources_digest`). Each source's bytes are read from the unit's baseline
// tree and digested on their own (`sha256:` of the exact bytes); the set is bound as one digest over
// a closed, kind-tagged object so it can never be confused with another governed digest.
import { digestOf, DIGEST_RE } from '../canonical.js';
import { fail } from '../errors.js';
import { compareUtf8 } from '../contract/ids.js';

export interface SourceDigest {
  readonly id: string;
  readonly path: string;
  /** `sha256:<hex>` of the exact source bytes. */
  readonly digest: string;
}

/** Sources sorted by id (UTF-8 bytes); ids must be unique. */
export function sortSourceDigests(sources: readonly SourceDigest[]): SourceDigest[] {
  const sorted = [...sources].sort((a, b) => compareUtf8(a.id, b.id));
  sorted.forEach((s, i) => {
    if (!DIGEST_RE.test(s.digest)) fail('contract_digest_input_invalid', ['source_digests']);
    if (i > 0 && sorted[i - 1]?.id === s.id) fail('contract_digest_input_invalid', ['source_digests']);
  });
  return sorted.map((s) => ({ id: s.id, path: s.path, digest: s.digest }));
}

export function sourcesDigest(sources: readonly SourceDigest[]): string {
  return digestOf({
    kind: 'governed/sources',
    version: 1,
    sources: sortSourceDigests(sources).map((s) => ({ id: s.id, path: s.path, digest: s.digest })),
  });
}
