// Durations and sizes in policies (docs/policy.md#policy-and-trust-root): `10m`, `7d`, `120s`; `2GiB`, `1MiB`. Integers only,
// one unit, no spaces: a policy means exactly one number.
import { fail } from './errors.js';

export const DURATION_RE = /^([1-9][0-9]{0,8})(s|m|h|d)$/;
export const SIZE_RE = /^([1-9][0-9]{0,8})(B|KiB|MiB|GiB)$/;
const DURATION_UNIT = { s: 1, m: 60, h: 3600, d: 86400 } as const;
const SIZE_UNIT = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 } as const;

export function isDuration(text: string): boolean {
  return DURATION_RE.test(text);
}
export function isSize(text: string): boolean {
  return SIZE_RE.test(text);
}

/** Seconds in a duration like `10m`. */
export function parseDurationSeconds(text: string, id = 'duration'): number {
  const m = DURATION_RE.exec(text);
  if (!m) fail('schema_invalid', [id]);
  return Number(m[1]) * DURATION_UNIT[m[2] as keyof typeof DURATION_UNIT];
}

/** Bytes in a size like `64MiB`. */
export function parseSizeBytes(text: string, id = 'size'): number {
  const m = SIZE_RE.exec(text);
  if (!m) fail('schema_invalid', [id]);
  return Number(m[1]) * SIZE_UNIT[m[2] as keyof typeof SIZE_UNIT];
}
