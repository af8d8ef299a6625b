// Meaningful-token extraction and Jaccard similarity for finding matching (docs/review-pass-protocol.md#matching-rules rule 3:
// "Keyword similarity: Jaccard coefficient > 0.5 on meaningful tokens").
//
// The seed does not define "meaningful token"; governed's rule (documented here and in the protocol
// docs) is:
//   1. Unicode NFKC, then lower case, so "Null" and "null" and full-width forms agree;
//   2. split on every character that is not a letter, a digit or "_" (so `foo.bar()` gives foo, bar);
//   3. drop tokens shorter than 3 characters (a, of, i, x1 carry no finding identity);
//   4. drop purely numeric tokens (line numbers and counts differ between reviewers describing one defect);
//   5. drop English stop words and the review-format vocabulary (severity and class tags, "line",
//      "file", "finding"), which every finding shares and which would inflate similarity.
// The result is a *set*: repetition does not weigh more.

const STOP_WORDS: ReadonlySet<string> = new Set([
  // English function words (3+ letters; shorter ones are already dropped by rule 3).
  'the', 'and', 'for', 'are', 'but', 'not', 'you', 'all', 'any', 'can', 'had', 'her', 'was', 'one',
  'our', 'out', 'has', 'his', 'how', 'its', 'may', 'new', 'now', 'own', 'say', 'she', 'too', 'use',
  'who', 'why', 'yet', 'this', 'that', 'with', 'from', 'have', 'into', 'when', 'than', 'then', 'them',
  'they', 'there', 'their', 'these', 'those', 'what', 'which', 'while', 'will', 'would', 'should',
  'could', 'does', 'did', 'doing', 'done', 'been', 'being', 'were', 'also', 'only', 'just', 'more',
  'most', 'some', 'such', 'very', 'each', 'other', 'here', 'where', 'because', 'about', 'after',
  'before', 'over', 'under', 'again', 'still', 'must', 'might', 'upon', 'onto', 'via', 'per',
  // Review-format vocabulary shared by every finding (docs/review-pass-protocol.md#reviewer-output-format output format).
  'critical', 'high', 'medium', 'low', 'info', 'correctness', 'preservation', 'scope', 'authority',
  'release', 'finding', 'findings', 'issue', 'issues', 'line', 'lines', 'file', 'files', 'code',
]);

const SPLIT = /[^\p{L}\p{N}_]+/u;
const NUMERIC = /^[\p{N}_]+$/u;

/** The set of meaningful tokens of a text (rule above). Pure; order of the returned array is sorted. */
export function meaningfulTokens(text: string): string[] {
  const out = new Set<string>();
  for (const raw of text.normalize('NFKC').toLowerCase().split(SPLIT)) {
    if ([...raw].length < 3) continue;
    if (NUMERIC.test(raw)) continue;
    if (STOP_WORDS.has(raw)) continue;
    out.add(raw);
  }
  return [...out].sort();
}

/**
 * |A ∩ B| / |A ∪ B| of two token collections (treated as sets). Two empty sets have similarity 0:
 * findings with no meaningful words share no evidence of being the same defect.
 */
export function jaccardSimilarity(a: readonly string[], b: readonly string[]): number {
  const setA = new Set(a);
  const setB = new Set(b);
  if (setA.size === 0 && setB.size === 0) return 0;
  let intersection = 0;
  for (const t of setA) if (setB.has(t)) intersection++;
  const union = setA.size + setB.size - intersection;
  return intersection / union;
}

/** Jaccard similarity of the meaningful tokens of two texts. */
export function textSimilarity(a: string, b: string): number {
  return jaccardSimilarity(meaningfulTokens(a), meaningfulTokens(b));
}
