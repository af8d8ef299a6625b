// Reading caller-named JSON/YAML input files (the raw capped read is ./read-file.ts). Shared by
// every flow that takes a structured file argument.
import { parseStructured } from '../core/strict-parse.js';
import type { CanonicalValue } from '../core/canonical.js';

export { DEFAULT_INPUT_CAP, readInputFile } from './read-file.js';
import { DEFAULT_INPUT_CAP, readInputFile } from './read-file.js';
import { decodeUtf8 } from '../core/utf8.js';

/** Read and strictly parse a JSON or YAML file (by extension). */
export function readStructuredFile(path: string, maxBytes = DEFAULT_INPUT_CAP): { bytes: Buffer; value: CanonicalValue } {
  const bytes = readInputFile(path, maxBytes);
  return { bytes, value: parseStructured(decodeUtf8(bytes, 'utf8'), path) };
}
