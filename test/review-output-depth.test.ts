// Reviewer stdout nested deep enough to overflow JSON.stringify's recursion (well under
// the policy's 1 MiB output cap). docs/reviewers.md#reviewer-output, docs/runner.md#the-run-step-by-step step 7: any malformed output is a coded refusal
// (`review_output_not_canonical`, run ABORTED with exit 9) — never a RangeError that surfaces as
// `internal_error`. The receipt verifier's canonical-payload decoder (docs/formats.md#receipt) shares the rule:
// a deep payload must be `payload_not_canonical`.
import { describe, expect, it } from 'vitest';
import { parseReviewOutput } from '../src/core/review-output.js';
import { IN_TOTO_PAYLOAD_TYPE } from '../src/core/dsse.js';
import { decodeCanonicalPayload } from '../src/core/verify-receipt.js';
import { isGovernedError } from '../src/core/errors.js';

const DEPTH = 500_000; // 1,000,000 bytes of brackets: below max_output (1 MiB)
const deep = '['.repeat(DEPTH) + ']'.repeat(DEPTH);
const coverage = { atoms: ['ATOM-1'], relations: [], sources: ['SRC-1'] };

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return isGovernedError(e) ? e.code : `uncoded:${(e as Error)?.constructor?.name}`;
  }
  return 'accepted';
}

describe('deeply nested reviewer output / payload', () => {
  it('reviewer stdout of 500k nested arrays is review_output_not_canonical, not an uncoded RangeError', () => {
    const stdout = Buffer.from(
      `{"coverage":{"atoms":["ATOM-1"],"relations":[],"sources":["SRC-1"]},"findings":${deep},"schema":"governed.review-output/v1","verdict":"DIRTY"}\n`,
    );
    expect(stdout.length).toBeLessThan(1024 * 1024);
    expect(codeOf(() => parseReviewOutput(stdout, coverage))).toBe('review_output_not_canonical');
  });

  it('a deep in-toto payload is payload_not_canonical on the receipt payload decoder', () => {
    const env = { payloadType: IN_TOTO_PAYLOAD_TYPE, payload: Buffer.from(deep), signatures: [] };
    expect(codeOf(() => decodeCanonicalPayload(env))).toBe('payload_not_canonical');
  });
});
