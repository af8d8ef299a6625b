// Strict JSON or YAML text → canonical value, loading the YAML parser only for YAML (docs/gate.md
// item 3: the gate path must not load yaml when its inputs are JSON). Same detection rule and the
// same parsers as src/core/strict-parse.ts `parseStructured` (whose module imports yaml at load):
// `.json` names are JSON, `.yaml`/`.yml` names are YAML, anything else is JSON when it starts with
// `{` or `[` and YAML otherwise. The YAML branch is that very module, imported on demand.
import type { CanonicalValue } from '../canonical.js';
import { fail } from '../errors.js';
import { parseJsonStrict } from '../strict-json.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function isJsonText(text: string, fileName: string): boolean {
  if (/\.json$/i.test(fileName)) return true;
  if (/\.ya?ml$/i.test(fileName)) return false;
  return /^\s*[{[]/.test(text);
}

/** Decode UTF-8 strictly; a non-UTF-8 document is `input_unreadable` naming `what`. */
export function decodeUtf8(bytes: Uint8Array, what: string): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    return fail('input_unreadable', [what]);
  }
}

export async function parseStructuredLean(text: string, fileName: string): Promise<CanonicalValue> {
  if (isJsonText(text, fileName)) return parseJsonStrict(text);
  const { parseYamlStrict } = await import('../strict-parse.js');
  return parseYamlStrict(text);
}
