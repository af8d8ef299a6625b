// Reading the JSON a reviewer prints for the two-pass, weave and simple protocols.
//   - The answer is the whole stdout, or — because model CLIs like to wrap answers — the one
//     fenced ```json block in it (exactly one: two blocks are ambiguous and refused).
//   - Duplicate keys are refused (docs/threat-model.md#rules-that-hold-everywhere: two readers of one file must never disagree).
//     governed's own strict parser refuses non-integers, but the two-pass schema carries a 0.0-1.0
//     `confidence`, so this reader checks JSON validity with JSON.parse and duplicate keys with the
//     YAML parser (YAML 1.2 is a superset of JSON and reports duplicate keys), and both must agree.
// The value is then validated by the protocol engine's own strict schema; a failure here or there
// means the reviewer output is unusable (never partially accepted).
import { parseDocument } from 'yaml';
import { REVIEW_PASS_REVIEWER_JSON_MAX } from '../../core/limits.js';

const FENCE = /```(?:json)?[ \t]*\r?\n([\s\S]*?)\r?\n```/g;

/** The JSON text of a reviewer answer, or null. */
export function extractJsonText(stdout: string): string | null {
  const t = stdout.trim();
  if (t.startsWith('{')) return t;
  const blocks = [...t.matchAll(FENCE)].map((m) => (m[1] ?? '').trim());
  return blocks.length === 1 && (blocks[0] as string).startsWith('{') ? (blocks[0] as string) : null;
}

/** Parse a reviewer's JSON answer; null when it is not exactly one JSON object without duplicate keys. */
export function parseReviewerJson(stdout: string): Record<string, unknown> | null {
  const text = extractJsonText(stdout);
  if (text === null || text.length > REVIEW_PASS_REVIEWER_JSON_MAX) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const doc = parseDocument(text, { uniqueKeys: true, strict: true, prettyErrors: false, schema: 'core' });
  if (doc.errors.length > 0) return null;
  return value as Record<string, unknown>;
}
