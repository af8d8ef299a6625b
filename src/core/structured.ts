// Strict JSON or YAML text → canonical value, loading the YAML parser only for YAML (the gate path
// must not load yaml when its inputs are JSON, docs/architecture.md). The detection rule is
// `isJsonText`, which src/core/strict-parse.ts `parseStructured` uses too: `.json` names are JSON,
// `.yaml`/`.yml` names are YAML, anything else is JSON when it starts with `{` or `[` and YAML
// otherwise. The YAML branch is that very module, imported on demand.
import type { CanonicalValue } from './canonical.js';
import { parseJsonStrict } from './strict-json.js';

export function isJsonText(text: string, fileName: string): boolean {
  if (/\.json$/i.test(fileName)) return true;
  if (/\.ya?ml$/i.test(fileName)) return false;
  return /^\s*[{[]/.test(text);
}

export async function parseStructuredLazy(text: string, fileName: string): Promise<CanonicalValue> {
  if (isJsonText(text, fileName)) return parseJsonStrict(text);
  const { parseYamlStrict } = await import('./strict-parse.js');
  return parseYamlStrict(text);
}
