// Strict parsing of JSON and YAML inputs (docs/threat-model.md#rules-that-hold-everywhere "Closed objects", docs/contract.md#validation-rules): duplicate keys are
// refused in both; YAML anchors, aliases, tags and merge keys are refused. The parsed value is then
// checked against governed's canonical domain (safe integers, well-formed strings), so a number
// like 1.5 or 2^53 never reaches a digest. Errors carry the JSON path of the problem, never text.
import { createRequire } from 'node:module';
import type * as YamlLib from 'yaml';
import type { Node } from 'yaml';
import { assertCanonicalDomain, type CanonicalValue } from './canonical.js';
import { parseJsonStrict } from './strict-json.js';
import { isJsonText } from './structured.js';

export { parseJsonStrict };
import { fail } from './errors.js';

let yaml: typeof YamlLib | undefined;

/**
 * The yaml library, evaluated on first use: most commands read only JSON (stored pins are often
 * JSON, receipts and log entries always are), and evaluating yaml costs every cold start several
 * milliseconds (bench/runner, bench/gate). In the built CLI esbuild bundles the `require('yaml')`
 * below as a lazily initialised module (no file is resolved at run time); unbundled (tests) it is
 * Node's own require. Same library, same options, either way.
 */
function yamlLib(): typeof YamlLib {
  yaml ??= (typeof require === 'function' ? require('yaml') : createRequire(import.meta.url)('yaml')) as typeof YamlLib;
  return yaml;
}

/**
 * YAML 1.2 core schema, duplicate keys refused, and no anchors/aliases/tags/merge keys: a contract
 * or policy means exactly what its text says at each place (docs/contract.md#validation-rules).
 */
export function parseYamlStrict(text: string): CanonicalValue {
  const { parseDocument, isAlias, isMap, isScalar, isSeq, isPair, visit } = yamlLib();
  const doc = parseDocument(text, {
    schema: 'core',
    uniqueKeys: true,
    merge: false,
    strict: true,
    prettyErrors: false,
    intAsBigInt: false,
  });
  for (const err of doc.errors) {
    if (err.code === 'DUPLICATE_KEY') fail('yaml_duplicate_key', [`line:${err.linePos?.[0]?.line ?? 0}`]);
  }
  if (doc.errors.length > 0) fail('yaml_invalid', [`line:${doc.errors[0]?.linePos?.[0]?.line ?? 0}`]);
  let refused = false;
  // Keys are compared as the JS property names they become, not as YAML nodes: `1` and `"1"` (or
  // `true` and `"true"`, `~` and `""`) are distinct YAML keys that `uniqueKeys` lets through but
  // that toJS merges into one property, last one winning — a duplicate key by another route
  // (docs/contract.md#validation-rules). A collection used as a key has no property name at all (toJS would stringify it
  // and print its text as a process warning, docs/threat-model.md#rules-that-hold-everywhere "no secrets in output"): refused.
  let keyCollision = false;
  let collectionKey = false;
  visit(doc, {
    Map(_key, map) {
      const seen = new Set<string>();
      for (const item of map.items) {
        const k = item.key;
        let name: string;
        if (k === null || k === undefined) name = '';
        else if (isAlias(k)) continue; // refused below as an alias (yaml_alias_refused)
        else if (isScalar(k)) name = k.value === null || k.value === undefined ? '' : String(k.value);
        else {
          collectionKey = true;
          return visit.BREAK;
        }
        if (seen.has(name)) {
          keyCollision = true;
          return visit.BREAK;
        }
        seen.add(name);
      }
      return undefined;
    },
  });
  if (collectionKey) fail('yaml_invalid', []);
  if (keyCollision) fail('yaml_duplicate_key', []);
  visit(doc, {
    Node(_key, node: Node) {
      if (isAlias(node)) refused = true;
      else if ((isScalar(node) || isMap(node) || isSeq(node)) && (node.anchor !== undefined || node.tag !== undefined && !node.tag.startsWith('tag:yaml.org,2002:'))) refused = true;
      // An explicit tag written in the source (even a standard one like !!str) changes meaning
      // away from the plain text; refuse it too.
      if ((isScalar(node) || isMap(node) || isSeq(node)) && node.tag !== undefined) refused = true;
    },
    Pair(_key, pair) {
      if (isPair(pair) && isScalar(pair.key) && pair.key.value === '<<') refused = true;
    },
  });
  if (refused) fail('yaml_alias_refused', []);
  const value: unknown = doc.toJS({ maxAliasCount: 0 });
  assertCanonicalDomain(value);
  return value;
}

/** Parse by file name: `.json` strict JSON, `.yaml`/`.yml` strict YAML. */
export function parseStructured(text: string, fileName: string): CanonicalValue {
  // By name, else JSON when it looks like JSON and YAML otherwise (./structured.ts, one rule).
  return isJsonText(text, fileName) ? parseJsonStrict(text) : parseYamlStrict(text);
}
