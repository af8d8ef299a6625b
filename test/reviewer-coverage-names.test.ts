// The coverage reviewer's "F names P" rule (runner/reviewers/src/coverage/references.ts,
// docs/reviewers.md#references-coveragereferencests: F names P when P's repository-relative path appears in F as a whole token).
// Before the fix a `/` before the match was always accepted, so a test that runs ANOTHER file whose
// path merely ends with the implementation's path (`vendor/bin/tool.mjs`, `legacy/src/export.ts`)
// counted as referencing the implementation: CLEAN on a real trace gap (docs/reviewers.md#reviewer-output trace_gap). A `/`
// is accepted only after `.` / `..` (a relative spelling) or at a root (`/bin/tool.mjs`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namesPath, ReferenceGraph } from '../runner/reviewers/src/coverage/references.js';
import { buildReviewer, bundleOf, cleanScenario, cleanup, expectValidOutput, PROJECT, runReviewer, summary, type Scenario } from './reviewer-coverage-helpers.js';

describe('namesPath: a longer path ending with P does not name P', () => {
  it('refuses a path with another directory before P', () => {
    expect(namesPath('node vendor/bin/tool.mjs --version', 'bin/tool.mjs')).toBe(false);
    expect(namesPath("import x from '../legacy/src/export.ts'", 'src/export.ts')).toBe(false);
    expect(namesPath('/home/ci/other-checkout/bin/tool.mjs', 'bin/tool.mjs')).toBe(false);
  });

  it('still accepts the relative, rooted and bare spellings', () => {
    expect(namesPath('node bin/tool.mjs --version', 'bin/tool.mjs')).toBe(true);
    expect(namesPath("spawn('../bin/tool.mjs')", 'bin/tool.mjs')).toBe(true);
    expect(namesPath("spawn('../../bin/tool.mjs')", 'bin/tool.mjs')).toBe(true);
    expect(namesPath("spawn('./bin/tool.mjs')", 'bin/tool.mjs')).toBe(true);
    expect(namesPath('exec /bin/tool.mjs', 'bin/tool.mjs')).toBe(true);
    expect(namesPath('bin/tool.mjs', 'bin/tool.mjs')).toBe(true);
    expect(namesPath('node "$ROOT/bin/tool.mjs"', 'bin/tool.mjs')).toBe(true);
    expect(namesPath('node "${ROOT}/bin/tool.mjs"', 'bin/tool.mjs')).toBe(true);
    expect(namesPath('vendor/bin/tool.mjs and then bin/tool.mjs', 'bin/tool.mjs')).toBe(true);
  });

  it('the reference graph follows the same rule', () => {
    const g = new ReferenceGraph([
      { path: 'bin/tool.mjs', text: 'export {}' },
      { path: 'test/t.sh', text: 'node vendor/bin/tool.mjs' },
    ]);
    expect(g.references(['test/t.sh'], ['bin/tool.mjs'])).toBe(false);
  });
});

describe('the built reviewer answers DIRTY (trace_gap) on such a test', () => {
  let reviewer: string;
  beforeAll(async () => {
    reviewer = await buildReviewer();
  }, 60_000);
  afterAll(cleanup);
  const review = (s: Scenario) => {
    const built = bundleOf(s, 'development', 'coverage');
    return expectValidOutput(runReviewer(reviewer, built.bytes), built, s);
  };

  it('a shell test running vendor/bin/tool.mjs is not evidence for bin/tool.mjs', () => {
    const s = cleanScenario();
    s.current.set('test/tool.test.sh', (PROJECT.get('test/tool.test.sh') as string).replace('node bin/tool.mjs', 'node vendor/bin/tool.mjs'));
    expect(summary(review(s))).toEqual(['trace_gap/correctness/HIGH:DIR-4,EVD-4']);
  });

  it('the clean fixture stays CLEAN', () => {
    expect(summary(review(cleanScenario()))).toEqual([]);
  });
});
