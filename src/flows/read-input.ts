// Reading caller-named JSON/YAML input files (the raw capped read is ./read-file.ts). Shared by
// every flow that takes a structured file argument.
import { fail } from '../core/errors.js';
import { parseStructured } from '../core/strict-parse.js';
import type { CanonicalValue } from '../core/canonical.js';

export { DEFAULT_INPUT_CAP, readInputFile } from './read-file.js';
import { DEFAULT_INPUT_CAP, readInputFile } from './read-file.js';

/** Read and strictly parse a JSON or YAML file (by extension). */
export function readStructuredFile(path: string, maxBytes = DEFAULT_INPUT_CAP): { bytes: Buffer; value: CanonicalValue } {
  const bytes = readInputFile(path, maxBytes);
  const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let s: string;
  try {
    s = text.decode(bytes);
  } catch {
    fail('input_unreadable', ['utf8']);
  }
  return { bytes, value: parseStructured(s, path) };
}
