// The ONE rule for a timestamp governed accepts (docs/reviewers.md#reviewer-output, docs/formats.md#receipt "times in whole seconds", docs/policy.md#policy-and-trust-root trust
// root `expires`, `not_before`, `not_after`, `revoked_at`): exactly `YYYY-MM-DDTHH:MM:SSZ`, UTC, and a
// real instant of the proleptic Gregorian calendar. A regex alone let `2026-02-30T00:00:00Z`,
// `2026-13-01…`, `…T24:00:00Z` or `…T23:60:00Z` through, and `Date.parse` then rolled them over
// silently (Feb 30 → Mar 2): a signed time would have meant another instant than the text shows,
// and the string comparisons of key validity (src/core/key-status.ts) would have judged a day that
// does not exist. Every zod schema and its lean twin use this check, so both refuse the same inputs.
//
// No leap seconds (`:60`): UTC as POSIX counts it, like every clock governed reads. Years 0000–9999,
// the four digits the format has. Pure: no clock, no `Date` (whose two-digit-year rule would map
// year 0050 to 1950).

const ISO_SECONDS_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

/** The shape alone, for a published JSON Schema `pattern` (docs/schemas/bundle.schema.json): a JSON Schema
 * cannot say "a real calendar day", so consumers get the shape and governed checks the calendar. */
export const ISO_SECONDS_SHAPE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

const isLeapYear = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

/** Days from 1970-01-01 to y-m-d (proleptic Gregorian; H. Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/**
 * Epoch seconds of a strict `YYYY-MM-DDTHH:MM:SSZ` timestamp that names a real calendar instant,
 * or null for anything else (wrong shape, month 13, Feb 29 of a common year, Apr 31, hour 24,
 * minute or second 60). Never throws.
 */
export function secondsOfIsoTime(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const m = ISO_SECONDS_RE.exec(text);
  if (m === null) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  if (month < 1 || month > 12) return null;
  const monthDays = month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!;
  if (day < 1 || day > monthDays) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  return daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
}

/** True when `text` is a strict, real ISO-seconds timestamp (the schemas' refinement). */
export function isIsoSeconds(text: string): boolean {
  return secondsOfIsoTime(text) !== null;
}
