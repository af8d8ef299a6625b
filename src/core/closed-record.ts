// `z.record` that refuses an own `__proto__` key. zod's record drops that key silently (a guard
// against prototype pollution) and accepts the rest, so a document carrying one would pass while
// its digest or signature covers bytes the parsed value no longer holds; a closed schema (docs/threat-model.md#rules-that-hold-everywhere
// "closed objects") refuses it. The strict JSON parser makes such a key an own property, so it can
// arrive. Found twice (a policy map; a statement's predicate), tested in test/init-command.test.ts and
// test/intoto-statement-proto.test.ts. A JSON Schema cannot say this: the published schemas
// (docs/schemas/) carry it in their description.
import * as z from 'zod/mini';
import { REFINEMENTS } from './format/refinements.js';

const noOwnProto = z.unknown().check(z.refine(REFINEMENTS.noOwnProto, { message: 'unknown key' }));

export function closedRecord<K extends z.ZodMiniString<string>, V extends z.ZodMiniType>(key: K, value: V) {
  return z.pipe(noOwnProto, z.record(key, value));
}
