// Validate an already-parsed value against a strict zod schema and fail closed with one protocol
// code. The error IDs carry the JSON path of the first problem only, never the rejected value
// (docs/threat-model.md#rules-that-hold-everywhere "No secrets in output"). Shared by the two-pass, weave and simple engines; it can move
// to src/protocols/shared once that folder offers an equivalent.
import type * as z from 'zod/mini';
import { fail, type ErrorCode } from '../../core/errors.js';

export function parseOrFail<S extends z.ZodMiniType>(schema: S, value: unknown, code: ErrorCode): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const first = parsed.error.issues[0];
  const path = first === undefined ? '$' : ['$', ...first.path.map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))].join('.');
  return fail(code, [path]);
}
