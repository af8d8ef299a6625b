// Strict parsing of JSON and YAML inputs (SPEC §3 "Closed objects", §6.1): duplicate keys are
// refused in both; YAML anchors, aliases, tags and merge keys are refused. The parsed value is then
// checked against governed's canonical domain (safe integers, well-formed strings), so a number
// like 1.5 or 2^53 never reaches a digest. Errors carry the JSON path of the problem, never text.
import { parseDocument, isAlias, isMap, isScalar, isSeq, isPair, visit, type Node } from 'yaml';
import { assertCanonicalDomain, type CanonicalValue } from './canonical.js';
import { parseJsonStrict } from './strict-json.js';

export { parseJsonStrict };
import { fail } from './errors.js';

/**
 * YAML 1.2 core schema, duplicate keys refused, and no anchors/aliases/tags/merge keys: a contract
 * or policy means exactly what its text says at each place (SPEC §6.1).
 */
export function parseYamlStrict(text: string): CanonicalValue {
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
  if (/\.json$/i.test(fileName)) return parseJsonStrict(text);
  if (/\.ya?ml$/i.test(fileName)) return parseYamlStrict(text);
  // Anything else: JSON when it looks like JSON, YAML otherwise.
  return /^\s*[{[]/.test(text) ? parseJsonStrict(text) : parseYamlStrict(text);
}
