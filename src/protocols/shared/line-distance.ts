// Line distance between two findings in one file (docs/review-pass-protocol.md#the-line-distance-rule: "line distance < 20
// lines → MATCH candidate"). A file-level finding (line null) has no distance to anything: proximity
// cannot be claimed without two positions.

export function lineDistance(a: number | null, b: number | null): number | null {
  if (a === null || b === null) return null;
  return Math.abs(a - b);
}

/** True when both lines are known and strictly closer than `limit` lines. */
export function linesWithin(a: number | null, b: number | null, limit: number): boolean {
  const d = lineDistance(a, b);
  return d !== null && d < limit;
}
