// Preservation contract bytes → contract, parsed exactly the same way by `preservation set`, replay
// and the check (strict UTF-8, duplicate keys and YAML aliases refused, format from the content).
import { digestOf } from '../canonical.js';
import { parseStructured } from '../strict-parse.js';
import { decodeUtf8 } from '../utf8.js';
import { parsePreservationContract, type PreservationContract } from './schema.js';

export function parsePreservationBytes(bytes: Uint8Array): PreservationContract {
  const text = decodeUtf8(bytes, 'preservation_contract');
  return parsePreservationContract(parseStructured(text, ''));
}

/** The digest a binding records and the planning state binds: of the parsed contract (JCS). */
export function preservationDigest(contract: PreservationContract): string {
  return digestOf({ kind: 'governed/preservation-contract-digest', version: 1, contract });
}
