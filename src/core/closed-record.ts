// `z.record` that refuses an own `__proto__` key. zod's record drops that key silently (a guard
// against prototype pollution) and accepts the rest, so a document carrying one would pass while
// its digest or signature covers bytes the parsed value no longer holds; a closed schema (docs/threat-model.md#rules-that-hold-everywhere
// "closed objects") refuses it. The strict JSON parser makes such a key an own property, so it can
// arrive. Found twice (a policy map; a statement's predicate), tested in test/init-command.test.ts and
// test/intoto-statement-proto.test.ts.
import * as z from 'zod';

export function closedRecord<K extends z.ZodType<string, string>, V extends z.ZodType>(key: K, value: V) {
  return z
    .unknown()
    .refine((v) => !(typeof v === 'object' && v !== null && Object.prototype.hasOwnProperty.call(v, '__proto__')), { message: 'unknown key' })
    .pipe(z.record(key, value));
}
