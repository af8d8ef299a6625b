// Finding-agnostic helpers shared by the review protocols (docs/review-pass.md#review-protocols). Kept small and stable:
//   meaningfulTokens(text): string[]          — token rule of docs/review-pass-protocol.md#matching-rules (see tokens.ts)
//   jaccardSimilarity(a, b): number           — |A∩B|/|A∪B| over token sets (0 for two empty sets)
//   textSimilarity(a, b): number              — Jaccard of the meaningful tokens of two texts
//   lineDistance(a, b): number | null         — |a-b|, null when either line is unknown
//   linesWithin(a, b, limit): boolean         — distance known and < limit
//   stableDigest(value): string               — sha256:<hex> over RFC 8785
//   digestOfSet(items): string                — digest of a sorted, de-duplicated string set
//   lineRangeDigest(text, start, end)         — digest of lines [start, end] (1-based), null if invalid
//   wholeTextDigest(text): string             — sha256:<hex> of a whole text
export { meaningfulTokens, jaccardSimilarity, textSimilarity } from './tokens.js';
export { lineDistance, linesWithin } from './line-distance.js';
export { stableDigest, digestOfSet, lineRangeDigest, wholeTextDigest } from './stable-hash.js';
