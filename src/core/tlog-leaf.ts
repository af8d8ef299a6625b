// The leaf bytes of a log entry in the Merkle tree (docs/audit.md "Transparency log"): the RFC 8785
// text, UTF-8, of {seq, time, type, unit, payload_digest, prev_hash} — exactly what the chain hashes
// into entry_hash. Its own small file: the store (and so the gate's cold path) imports it without
// the proof-file parsers. Pure.
import { canonicalJson } from './canonical.js';

export interface LeafFields {
  readonly seq: number;
  readonly time: number;
  readonly type: string;
  readonly unit: string | null;
  readonly payload_digest: string;
  readonly prev_hash: string;
}

export function leafBytesOf(e: LeafFields): Buffer {
  const { seq, time, type, unit, payload_digest, prev_hash } = e;
  return Buffer.from(canonicalJson({ seq, time, type, unit, payload_digest, prev_hash }), 'utf8');
}
